// Printing of compiled results for tests/variants: one line per case,
//   name|A|dtype|view|d0,d1,...|v v v ...   (arrays, C order)
//   name|S|dtype|v                          (scalars)
//   name|T|v v ...                          (tuples of scalars)
//   name|E|ExceptionType|message            (a Python exception raised)
// "view" is 1 when the array shares its owner with one of the inputs.
#pragma once

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "everypath/everypath.hpp"

namespace ept {

inline std::vector<std::shared_ptr<void>>& inputs() {
  static std::vector<std::shared_ptr<void>> v;
  return v;
}

template <class T> constexpr const char* dname();
template <> constexpr const char* dname<bool>() { return "bool"; }
template <> constexpr const char* dname<int8_t>() { return "int8"; }
template <> constexpr const char* dname<int16_t>() { return "int16"; }
template <> constexpr const char* dname<int32_t>() { return "int32"; }
template <> constexpr const char* dname<int64_t>() { return "int64"; }
template <> constexpr const char* dname<uint8_t>() { return "uint8"; }
template <> constexpr const char* dname<uint16_t>() { return "uint16"; }
template <> constexpr const char* dname<uint32_t>() { return "uint32"; }
template <> constexpr const char* dname<uint64_t>() { return "uint64"; }
template <> constexpr const char* dname<float>() { return "float32"; }
template <> constexpr const char* dname<double>() { return "float64"; }
template <> constexpr const char* dname<std::complex<float>>() { return "complex64"; }
template <> constexpr const char* dname<std::complex<double>>() { return "complex128"; }

template <class T>
std::string text(const T& x) {
  char buf[128];
  if constexpr (std::is_same_v<T, bool>) {
    return x ? "1" : "0";
  } else if constexpr (std::is_same_v<T, float>) {
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x));
  } else if constexpr (std::is_same_v<T, double>) {
    std::snprintf(buf, sizeof buf, "%.17g", x);
  } else if constexpr (ep::is_complex_v<T>) {
    return text(x.real()) + "," + text(x.imag());
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
  } else {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(x));
  }
  return buf;
}

template <class T, int N>
ep::Array<T, N> input(std::array<ep::index_t, N> shape, std::initializer_list<T> values) {
  auto a = ep::empty<T, N>(shape);
  ep::index_t i = 0;
  for (const T& v : values) a.data[i++] = v;
  inputs().push_back(a.owner);
  return a;
}

template <class T, int N>
void emit(const char* name, const ep::Array<T, N>& a) {
  bool view = false;
  for (auto& o : inputs()) view = view || (a.owner && o == a.owner);
  std::string s = std::string(name) + "|A|" + dname<T>() + "|" + (view ? "1" : "0") + "|";
  for (int k = 0; k < N; ++k) s += (k ? "," : "") + std::to_string(a.shape[k]);
  s += "|";
  bool first = true;
  ep::for_each_offset(a, [&](ep::index_t off) {
    s += (first ? "" : " ") + text(a.data[off]);
    first = false;
  });
  std::printf("%s\n", s.c_str());
}

template <class... X>
void emit(const char* name, const std::tuple<X...>& t) {
  std::string s = std::string(name) + "|T|";
  bool first = true;
  std::apply([&](const auto&... x) { ((s += (first ? "" : " ") + text(x), first = false), ...); }, t);
  std::printf("%s\n", s.c_str());
}

template <class T>
void emit(const char* name, const T& x) {
  std::printf("%s|S|%s|%s\n", name, dname<T>(), text(x).c_str());
}

inline void emit_error(const char* name, const ep::PyError& e) {
  std::string m = e.message;
  for (auto& c : m)
    if (c == '\n') c = ' ';
  std::printf("%s|E|%s|%s\n", name, e.type, m.c_str());
}

}  // namespace ept

#define EPT_CASE(name, ...)                     \
  try {                                         \
    auto ept_r = (__VA_ARGS__);                 \
    ept::emit(name, ept_r);                     \
  } catch (const ep::PyError& ept_e) {          \
    ept::emit_error(name, ept_e);               \
  }
