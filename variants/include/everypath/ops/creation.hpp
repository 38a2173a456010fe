// Array creation: np.zeros/ones/empty/full(_like), arange, linspace, eye,
// np.array/asarray of arrays, lists and tuples, and the conversions they
// share (ep::to_shape, ep::elem_cast).
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>

#include "../array.hpp"

namespace ep {

// ---- shapes -----------------------------------------------------------------
template <class S>
struct is_std_tuple : std::false_type {};
template <class... X>
struct is_std_tuple<std::tuple<X...>> : std::true_type {};
template <class S>
inline constexpr bool is_std_tuple_v = is_std_tuple<std::decay_t<S>>::value;

template <class S>
struct is_std_array : std::false_type {};
template <class X, size_t K>
struct is_std_array<std::array<X, K>> : std::true_type {};

template <class S>
struct is_list : std::false_type {};
template <class X>
struct is_list<List<X>> : std::true_type {};

// int64_t, std::tuple<ints...>, std::array<ints, N> or ep::List<int> -> std::array<index_t, N>
template <int N, class S>
std::array<index_t, N> to_shape(const S& s) {
  std::array<index_t, N> out{};
  if constexpr (std::is_arithmetic_v<S>) {
    static_assert(N == 1, "an integer shape makes a 1-d array");
    out[0] = static_cast<index_t>(s);
  } else if constexpr (is_std_tuple_v<S>) {
    static_assert(std::tuple_size_v<S> == N, "shape tuple length must equal the rank");
    std::apply([&](const auto&... d) {
      int k = 0;
      ((out[k++] = static_cast<index_t>(d)), ...);
      (void)k;
    }, s);
  } else if constexpr (is_std_array<S>::value) {
    static_assert(std::tuple_size_v<S> == N, "shape length must equal the rank");
    for (int k = 0; k < N; ++k) out[k] = static_cast<index_t>(s[k]);
  } else if constexpr (is_list<S>::value) {
    if (s.size() != N) raise("ValueError", "shape has " + std::to_string(s.size()) + " entries, expected " + std::to_string(N));
    for (int k = 0; k < N; ++k) out[k] = static_cast<index_t>((*s.items)[static_cast<size_t>(k)]);
  } else {
    static_assert(sizeof(S) == 0, "unsupported shape type");
  }
  return out;
}

// Element conversion with NumPy's casting semantics (complex -> real drops the
// imaginary part, anything -> bool is "nonzero").
template <class To, class From>
inline To elem_cast(const From& x) {
  using F = std::decay_t<From>;
  if constexpr (std::is_same_v<To, F>) {
    return x;
  } else if constexpr (is_complex_v<To>) {
    using V = typename To::value_type;
    if constexpr (is_complex_v<F>) return To(static_cast<V>(x.real()), static_cast<V>(x.imag()));
    else return To(static_cast<V>(x), V(0));
  } else if constexpr (is_complex_v<F>) {
    if constexpr (std::is_same_v<To, bool>) return x != F(0);
    else return static_cast<To>(x.real());
  } else if constexpr (std::is_same_v<To, bool>) {
    return x != F(0);
  } else {
    return static_cast<To>(x);
  }
}

template <class T>
constexpr const char* np_name() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else if constexpr (std::is_same_v<T, std::complex<float>>) return "complex64";
  else if constexpr (std::is_same_v<T, half>) return "float16";
  else return "complex128";
}

// A Python int stored into an integer dtype: NumPy 2 raises when it does not fit.
template <class T>
inline T checked_int(int64_t v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    bool ok;
    if constexpr (std::is_unsigned_v<T>) ok = v >= 0 && static_cast<uint64_t>(v) <= std::numeric_limits<T>::max();
    else ok = v >= static_cast<int64_t>(std::numeric_limits<T>::min()) && v <= static_cast<int64_t>(std::numeric_limits<T>::max());
    if (!ok) raise("OverflowError", "Python integer " + std::to_string(v) + " out of bounds for " + np_name<T>());
  }
  return static_cast<T>(v);
}

// A converted copy (or the array itself when the dtype already matches).
template <class R, class T, int N>
Array<R, N> as_dtype(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T>) {
    return a;
  } else {
    Array<R, N> out = empty<R, N>(a.shape);
    index_t j = 0;
    for_each_offset(a, [&](index_t off) { out.data[j++] = elem_cast<R>(a.data[off]); });
    return out;
  }
}

// ndarray.astype: always a new C-contiguous array.
template <class R, class T, int N>
Array<R, N> astype(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T>) return copy(a);
  else return as_dtype<R>(a);
}

// A scalar seen as a 0-d array (np.sum(3.0), np.array(x)).
template <class T>
Array<T, 0> scalar_array(const T& x) {
  Array<T, 0> a = empty<T, 0>({});
  a.data[0] = x;
  return a;
}

template <class T>
inline auto as_array(const T& x) {
  if constexpr (is_array_v<T>) return x;
  else return scalar_array(x);
}

// ---- zeros / ones / full ----------------------------------------------------
template <class T, int N, class S>
Array<T, N> zeros(const S& shape) {
  return full<T, N>(to_shape<N>(shape), T(0));
}
template <class T, int N, class S>
Array<T, N> ones(const S& shape) {
  return full<T, N>(to_shape<N>(shape), elem_cast<T>(1));
}
template <class T, int N, class S>
Array<T, N> empty_shape(const S& shape) {
  return empty<T, N>(to_shape<N>(shape));
}
template <class T, int N, class S, class V>
Array<T, N> full_value(const S& shape, const V& v) {
  return full<T, N>(to_shape<N>(shape), elem_cast<T>(v));
}

template <class A>
inline auto shape_of(const A& a) {
  if constexpr (is_array_v<A>) return a.shape;
  else return std::array<index_t, 0>{};
}

// ---- arange -----------------------------------------------------------------
// Length as NumPy: ceil((stop - start) / step) in Python arithmetic; values
// first = T(start), delta = T(start + step) - first, x[i] = first + i * delta.
template <class T, class A, class B, class C>
Array<T, 1> arange(A start, B stop, C step) {
  using W = std::common_type_t<A, B, C>;
  if (step == C(0)) raise("ZeroDivisionError", "division by zero");
  double q;
  if constexpr (std::is_integral_v<W>) {
    q = static_cast<double>(static_cast<W>(stop) - static_cast<W>(start)) / static_cast<double>(step);
  } else {
    q = static_cast<double>((static_cast<W>(stop) - static_cast<W>(start)) / static_cast<W>(step));
  }
  if (std::isnan(q)) raise("ValueError", "arange: cannot compute length");
  if (std::isinf(q) || q > 9.2e18) raise("ValueError", "Maximum allowed size exceeded");
  double c = std::ceil(q);
  index_t n = c > 0 ? static_cast<index_t>(c) : 0;
  if (q == 0.0 && stop != start) n = std::signbit(q) ? 0 : 1;  // e.g. step = inf
  Array<T, 1> out = empty<T, 1>({n});
  if (n == 0) return out;
  T first = elem_cast<T>(start);
  out.data[0] = first;
  if (n == 1) return out;
  T second = elem_cast<T>(static_cast<W>(start) + static_cast<W>(step));
  out.data[1] = second;
  if constexpr (std::is_same_v<T, bool>) {
    if (n > 2) raise("ValueError", "no fill-function for data-type.");
  } else if constexpr (std::is_integral_v<T>) {
    using I = std::conditional_t<std::is_unsigned_v<T>, uint64_t, int64_t>;
    I f = static_cast<I>(first), d = static_cast<I>(static_cast<T>(second - first));
    for (index_t i = 2; i < n; ++i) out.data[i] = static_cast<T>(f + static_cast<I>(i) * d);
  } else {
    T d = second - first;
    using V = std::conditional_t<is_complex_v<T>, T, T>;
    for (index_t i = 2; i < n; ++i) out.data[i] = first + static_cast<V>(static_cast<double>(i)) * d;
  }
  return out;
}

template <class T, class A, class B>
Array<T, 1> arange(A start, B stop) {
  return arange<T>(start, stop, int64_t{1});
}
template <class T, class B>
Array<T, 1> arange(B stop) {
  return arange<T>(int64_t{0}, stop, int64_t{1});
}

// ---- linspace ---------------------------------------------------------------
// D: the inexact dtype NumPy computes in; T: the result dtype.
template <class T, class D, class A, class B>
Array<T, 1> linspace(A start_, B stop_, index_t num, bool endpoint) {
  if (num < 0) raise("ValueError", "Number of samples, " + std::to_string(num) + ", must be non-negative.");
  const index_t div = endpoint ? num - 1 : num;
  const D start = elem_cast<D>(start_), stop = elem_cast<D>(stop_);
  const D delta = stop - start;
  Array<D, 1> y = empty<D, 1>({num});
  for (index_t i = 0; i < num; ++i) y.data[i] = static_cast<D>(static_cast<double>(i));
  if (div > 0) {
    const D step = delta / static_cast<D>(static_cast<double>(div));
    if (step == D(0)) {
      for (index_t i = 0; i < num; ++i) y.data[i] = (y.data[i] / static_cast<D>(static_cast<double>(div))) * delta;
    } else {
      for (index_t i = 0; i < num; ++i) y.data[i] = y.data[i] * step;
    }
  } else {
    for (index_t i = 0; i < num; ++i) y.data[i] = y.data[i] * delta;
  }
  for (index_t i = 0; i < num; ++i) y.data[i] = y.data[i] + start;
  if (endpoint && num > 1) y.data[num - 1] = stop;
  if constexpr (std::is_same_v<T, D>) {
    return y;
  } else {
    Array<T, 1> out = empty<T, 1>({num});
    for (index_t i = 0; i < num; ++i) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && !is_complex_v<D>)
        out.data[i] = elem_cast<T>(std::floor(y.data[i]));
      else
        out.data[i] = elem_cast<T>(y.data[i]);
    }
    return out;
  }
}

// ---- eye / identity -----------------------------------------------------------
template <class T>
Array<T, 2> eye(index_t n, index_t m, index_t k) {
  Array<T, 2> out = full<T, 2>({n, m}, T(0));
  for (index_t i = 0; i < n; ++i) {
    index_t j = i + k;
    if (j >= 0 && j < m) out.data[i * m + j] = elem_cast<T>(1);
  }
  return out;
}
template <class T>
Array<T, 2> eye(index_t n) {
  return eye<T>(n, n, 0);
}
template <class T>
Array<T, 2> eye(index_t n, None, index_t k) {
  return eye<T>(n, n, k);
}

// ---- np.array / np.asarray ----------------------------------------------------
// PyInts: the items are Python ints (range-checked like NumPy does)
template <class T, bool PyInts = false, class X>
Array<T, 1> array_from_list(const List<X>& l) {
  const index_t n = l.size();
  Array<T, 1> out = empty<T, 1>({n});
  const auto& items = *l.items;  // not l[i]: List<bool> holds a std::vector<bool>
  for (index_t i = 0; i < n; ++i) {
    if constexpr (PyInts) out.data[i] = checked_int<T>(static_cast<int64_t>(items[static_cast<size_t>(i)]));
    else out.data[i] = elem_cast<T>(static_cast<X>(items[static_cast<size_t>(i)]));
  }
  return out;
}

// np.array([a, b, ...]) of equally shaped arrays -> one more leading axis
template <class T, bool PyInts = false, class X, int N>
Array<T, N + 1> array_from_list(const List<Array<X, N>>& l) {
  const index_t n = l.size();
  std::array<index_t, N + 1> shape{};
  shape[0] = n;
  if (n > 0)
    for (int k = 0; k < N; ++k) shape[k + 1] = l[0].shape[k];
  for (index_t i = 1; i < n; ++i)
    if (l[i].shape != l[0].shape)
      raise("ValueError", "setting an array element with a sequence. The requested array has an inhomogeneous shape "
                          "after 1 dimensions. The detected shape was (" + std::to_string(n) +
                          ",) + inhomogeneous part.");
  Array<T, N + 1> out = empty<T, N + 1>(shape);
  index_t j = 0;
  for (index_t i = 0; i < n; ++i) {
    const Array<X, N>& a = l[i];
    for_each_offset(a, [&](index_t off) { out.data[j++] = elem_cast<T>(a.data[off]); });
  }
  return out;
}

template <bool PyInts, class T, class X>
inline void flatten_into(T*& dst, const X& x) {
  if constexpr (is_std_tuple_v<X>) {
    std::apply([&](const auto&... item) { (flatten_into<PyInts>(dst, item), ...); }, x);
  } else if constexpr (PyInts && std::is_same_v<X, int64_t>) {
    *dst++ = checked_int<T>(x);
  } else {
    *dst++ = elem_cast<T>(x);
  }
}

// np.array of a (nested) tuple of scalars; the shape is known at compile time.
// PyInts: the int64_t items are Python ints (range-checked).
template <class T, int N, bool PyInts = false, class Tup>
Array<T, N> array_from_tuple(const Tup& t, const std::array<index_t, N>& shape) {
  Array<T, N> out = empty<T, N>(shape);
  T* dst = out.data;
  flatten_into<PyInts>(dst, t);
  return out;
}

}  // namespace ep
