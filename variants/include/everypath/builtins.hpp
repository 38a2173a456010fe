// Python builtins and the math module, with Python's semantics and errors.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <numeric>
#include <tuple>

#include "array.hpp"
#include "scalar.hpp"

namespace ep {

// max(a, b, ...): the first maximal argument, comparing with > as Python does
template <class T>
T py_max(std::initializer_list<T> xs) {
  auto it = xs.begin();
  T r = *it;
  for (++it; it != xs.end(); ++it)
    if (*it > r) r = *it;
  return r;
}
template <class T>
T py_min(std::initializer_list<T> xs) {
  auto it = xs.begin();
  T r = *it;
  for (++it; it != xs.end(); ++it)
    if (*it < r) r = *it;
  return r;
}

// Walk the elements of anything `for` can iterate (1-d arrays, lists, ranges).
template <class T, class F>
void each(const Array<T, 1>& a, F&& f) {
  for (index_t i = 0; i < a.shape[0]; ++i) f(a.data[i * a.strides[0]]);
}
template <class T, class F>
void each(const List<T>& l, F&& f) {
  for (index_t i = 0; i < l.size(); ++i) f(l[i]);
}
template <class F>
void each(const Range& r, F&& f) {
  for (index_t i = 0, n = r.size(); i < n; ++i) f(r.start + i * r.step);
}

template <class R, class S>
R py_max_of(const S& seq) {
  bool any = false;
  R r{};
  each(seq, [&](auto v) {
    if (!any || static_cast<R>(v) > r) r = static_cast<R>(v);
    any = true;
  });
  if (!any) raise("ValueError", "max() arg is an empty sequence");
  return r;
}
template <class R, class S>
R py_min_of(const S& seq) {
  bool any = false;
  R r{};
  each(seq, [&](auto v) {
    if (!any || static_cast<R>(v) < r) r = static_cast<R>(v);
    any = true;
  });
  if (!any) raise("ValueError", "min() arg is an empty sequence");
  return r;
}
template <class R, class S>
R py_sum(const S& seq, R start) {
  R acc = start;
  each(seq, [&](auto v) { acc = static_cast<R>(acc + static_cast<R>(v)); });
  return acc;
}
// sorted(seq, reverse=...): a stable sort, as CPython's (reverse keeps equal items in their order too).
// NaN makes `<` no order at all; CPython's result then depends on its timsort's exact steps, so a NaN
// raises here instead of giving some other permutation.
template <class R, class S>
List<R> py_sorted(const S& seq, bool reverse) {
  List<R> out;
  each(seq, [&](auto v) {
    if constexpr (std::is_floating_point_v<R>) {
      if (std::isnan(static_cast<R>(v)))
        raise("ValueError", "sorted() of floats holding NaN is not supported: CPython's order then depends on its "
                            "sort algorithm's steps");
    }
    out.append(static_cast<R>(v));
  });
  auto& items = *out.items;
  if (reverse)
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return b < a; });
  else
    std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a < b; });
  return out;
}

template <class S>
bool py_any(const S& seq) {
  bool r = false;
  each(seq, [&](auto v) { r = r || sc::truthy(v); });
  return r;
}
template <class S>
bool py_all(const S& seq) {
  bool r = true;
  each(seq, [&](auto v) { r = r && sc::truthy(v); });
  return r;
}

// round(x): nearest integer, ties to even (Python 3)
inline int64_t py_round(double x) {
  if (std::isnan(x)) raise("ValueError", "cannot convert float NaN to integer");
  if (std::isinf(x)) raise("OverflowError", "cannot convert float infinity to integer");
  double r = std::nearbyint(x);  // default rounding mode is round-half-even
  return py::to_int(r);  // beyond int64: OverflowError, not undefined behaviour
}
inline double py_round_digits(double x, int64_t nd) {
  if (!std::isfinite(x)) return x;
  double p = std::pow(10.0, static_cast<double>(nd));
  double y = std::nearbyint(x * p) / p;
  return std::isfinite(y) ? y : x;
}

template <class A, class B>
auto py_divmod(A a, B b) {
  using C = std::common_type_t<A, B>;
  return std::make_tuple(py::floordiv<C>(C(a), C(b)), py::mod<C>(C(a), C(b)));
}

namespace pymath {
[[noreturn]] inline void domain() { raise("ValueError", "math domain error"); }
[[noreturn]] inline void range_error() { raise("OverflowError", "math range error"); }

inline double checked(double r, double x) {
  if (std::isnan(r) && !std::isnan(x)) domain();
  if (std::isinf(r) && std::isfinite(x)) range_error();
  return r;
}
inline double sqrt(double x) { if (x < 0) domain(); return std::sqrt(x); }
inline double exp(double x) { return checked(std::exp(x), x); }
inline double exp2(double x) { return checked(std::exp2(x), x); }
inline double expm1(double x) { return checked(std::expm1(x), x); }
inline double log(double x) { if (x <= 0) domain(); return std::log(x); }
inline double log(double x, double base) { return log(x) / log(base); }
inline double log2(double x) { if (x <= 0) domain(); return std::log2(x); }
inline double log10(double x) { if (x <= 0) domain(); return std::log10(x); }
inline double log1p(double x) { if (x <= -1) domain(); return std::log1p(x); }
inline double sin(double x) { if (std::isinf(x)) domain(); return std::sin(x); }
inline double cos(double x) { if (std::isinf(x)) domain(); return std::cos(x); }
inline double tan(double x) { if (std::isinf(x)) domain(); return std::tan(x); }
inline double asin(double x) { if (x < -1 || x > 1) domain(); return std::asin(x); }
inline double acos(double x) { if (x < -1 || x > 1) domain(); return std::acos(x); }
inline double atan(double x) { return std::atan(x); }
inline double atan2(double y, double x) { return std::atan2(y, x); }
inline double sinh(double x) { return checked(std::sinh(x), x); }
inline double cosh(double x) { return checked(std::cosh(x), x); }
inline double tanh(double x) { return std::tanh(x); }
inline double asinh(double x) { return std::asinh(x); }
inline double acosh(double x) { if (x < 1) domain(); return std::acosh(x); }
inline double atanh(double x) { if (x <= -1 || x >= 1) domain(); return std::atanh(x); }
inline double fabs(double x) { return std::fabs(x); }
inline double erf(double x) { return std::erf(x); }
inline double erfc(double x) { return std::erfc(x); }
inline double gamma(double x) { if (x <= 0 && std::floor(x) == x) domain(); return checked(std::tgamma(x), x); }
inline double lgamma(double x) { if (x <= 0 && std::floor(x) == x) domain(); return std::lgamma(x); }
inline double degrees(double x) { return x * (180.0 / M_PI); }
inline double radians(double x) { return x * (M_PI / 180.0); }
inline double cbrt(double x) { return std::cbrt(x); }
inline double pow(double x, double y) {
  if (x == 0 && y < 0) domain();
  if (x < 0 && std::isfinite(x) && std::floor(y) != y && std::isfinite(y)) domain();
  double r = std::pow(x, y);
  if (std::isinf(r) && std::isfinite(x) && std::isfinite(y)) range_error();
  return r;
}
inline double hypot(double x, double y) { return std::hypot(x, y); }
inline double copysign(double x, double y) { return std::copysign(x, y); }
inline double fmod(double x, double y) {
  if (y == 0 || std::isinf(x)) { if (!std::isnan(x) && !std::isnan(y)) domain(); }
  return std::fmod(x, y);
}
inline int64_t floor(double x) { return py::to_int(std::floor(x)); }
inline int64_t ceil(double x) { return py::to_int(std::ceil(x)); }
inline int64_t trunc(double x) { return py::to_int(std::trunc(x)); }
inline bool isnan(double x) { return std::isnan(x); }
inline bool isinf(double x) { return std::isinf(x); }
inline bool isfinite(double x) { return std::isfinite(x); }
inline int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }
}  // namespace pymath

}  // namespace ep
