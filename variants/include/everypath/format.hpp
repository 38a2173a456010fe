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

// Shortest round-trip digits of v ("12345") and its decimal exponent (1.2345e+04 -> 4).
template <class T>
inline void shortest_digits(T v, std::string& digits, int& exp10) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  size_t e = s.find('e');
  exp10 = std::stoi(s.substr(e + 1));
  digits.clear();
  for (size_t i = 0; i < e; ++i)
    if (s[i] >= '0' && s[i] <= '9') digits += s[i];
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

// digits/exponent as Python writes them: positional (1234.5, 0.001, 100.0) or
// scientific with a signed exponent of at least two digits (1e+16, 1.5e-05).
inline std::string place_digits(bool neg, const std::string& d, int e, bool positional, bool dot0) {
  std::string s = neg ? "-" : "";
  if (!positional) {
    s += d.substr(0, 1);
    if (d.size() > 1) s += "." + d.substr(1);
    std::string ex = std::to_string(e < 0 ? -e : e);
    if (ex.size() < 2) ex = "0" + ex;
    return s + "e" + (e < 0 ? "-" : "+") + ex;
  }
  if (e < 0) return s + "0." + std::string(static_cast<size_t>(-e - 1), '0') + d;
  const size_t point = static_cast<size_t>(e) + 1;
  if (d.size() <= point) return s + d + std::string(point - d.size(), '0') + (dot0 ? ".0" : "");
  return s + d.substr(0, point) + "." + d.substr(point);
}

// repr(float) of CPython: shortest digits, positional for decimal exponents in [-4, 16).
// dot0 = false gives the parts of a complex repr ((1+2j), not (1.0+2.0j)).
inline std::string py_float(double v, bool dot0 = true) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return std::string(std::signbit(v) ? "-0" : "0") + (dot0 ? ".0" : "");
  std::string d;
  int e = 0;
  shortest_digits(v, d, e);
  return place_digits(v < 0, d, e, e >= -4 && e < 16, dot0);
}

// str() of a NumPy float scalar: shortest digits of its own precision, positional when
// 1e-4 <= |v| < 1e16 (float64) or 1e6 (float32), compared in long double as NumPy does.
template <class T>
inline std::string np_float(T v) {
  if constexpr (std::is_same_v<T, double>) {
    return py_float(v);
  } else {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
    T a = v < 0 ? -v : v;
    std::string d;
    int e = 0;
    shortest_digits(v, d, e);
    const long double la = a;  // NumPy compares in long double: float32(1e-4) < 1e-4L
    return place_digits(v < 0, d, e, la >= 1e-4L && la < 1e6L, true);
  }
}

// repr(complex) of CPython: (1+2j), 2j, (1.5-0j), (nan+infj).
template <class T>
inline std::string py_complex(const std::complex<T>& v) {
  const double re = static_cast<double>(v.real()), im = static_cast<double>(v.imag());
  std::string i = py_float(im, false);
  if (re == 0 && !std::signbit(re)) return i + "j";
  return "(" + py_float(re, false) + (i[0] == '-' ? "" : "+") + i + "j)";
}

// repr(str) of CPython for the common cases: single quotes unless the text has one and no double.
inline std::string py_repr_str(const std::string& s) {
  const char q = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
  std::string o(1, q);
  for (unsigned char c : s) {
    if (c == '\\' || c == static_cast<unsigned char>(q)) { o += '\\'; o += static_cast<char>(c); }
    else if (c == '\n') o += "\\n";
    else if (c == '\t') o += "\\t";
    else if (c == '\r') o += "\\r";
    else if (c < 32 || c == 127) {
      const char* hex = "0123456789abcdef";
      o += "\\x";
      o += hex[c >> 4];
      o += hex[c & 15];
    } else o += static_cast<char>(c);
  }
  return o + q;
}

inline std::string strip_parens(const std::string& s) {
  return s.size() >= 2 && s.front() == '(' && s.back() == ')' ? s.substr(1, s.size() - 2) : s;
}

template <class T>
std::string py_str(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return py_float(static_cast<double>(v));
  } else if constexpr (is_complex_v<T>) {
    return py_complex(v);
  } else {
    return std::to_string(v);
  }
}

// "[a, b]" of a list, each item written by item_text (their repr).
template <class L, class F>
std::string py_list(const L& l, F item_text) {
  std::string s = "[";
  for (index_t i = 0; i < l.size(); ++i) s += (i ? ", " : "") + item_text(l[i]);
  return s + "]";
}

template <class... P>
std::string format(const P&... parts) {
  std::string s;
  ((s += py_str(parts)), ...);
  return s;
}

}  // namespace ep
