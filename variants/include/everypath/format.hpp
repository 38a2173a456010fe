// str() of values, as Python prints them, for exception messages (f-strings).
#pragma once

#include <charconv>
#include <cmath>
#include <complex>
#include <string>

#include "array.hpp"

namespace ep {

inline std::string py_str(const std::string& s) { return s; }
inline std::string py_str(const char* s) { return s; }
inline std::string py_str(bool b) { return b ? "True" : "False"; }
inline std::string py_str(None) { return "None"; }

template <class T>
std::string py_str(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    std::string s(buf, r.ptr);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
  } else if constexpr (is_complex_v<T>) {
    return "(" + py_str(v.real()) + (v.imag() >= 0 ? "+" : "") + py_str(v.imag()) + "j)";
  } else {
    return std::to_string(v);
  }
}

template <class... P>
std::string format(const P&... parts) {
  std::string s;
  ((s += py_str(parts)), ...);
  return s;
}

}  // namespace ep
