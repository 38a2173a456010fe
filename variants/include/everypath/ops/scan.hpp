// Scans: np.cumsum / np.cumprod (axis=None flattens in C order) and np.diff.
// Accumulation is sequential in the result dtype, as NumPy's accumulate.
#pragma once

#include <string>
#include <type_traits>

#include "../array.hpp"
#include "creation.hpp"

namespace ep {
namespace scan {

template <class R>
struct Add {
  static R apply(R a, R b) {
    if constexpr (std::is_same_v<R, bool>) return a || b;
    else return static_cast<R>(a + b);
  }
};
template <class R>
struct Mul {
  static R apply(R a, R b) {
    if constexpr (std::is_same_v<R, bool>) return a && b;
    else return static_cast<R>(a * b);
  }
};

template <class R, class Op, class T, int N>
Array<R, 1> flat(const Array<T, N>& a) {
  Array<R, 1> out = empty<R, 1>({a.size()});
  index_t j = 0;
  R acc{};
  for_each_offset(a, [&](index_t off) {
    R x = elem_cast<R>(a.data[off]);
    acc = j == 0 ? x : Op::apply(acc, x);
    out.data[j++] = acc;
  });
  return out;
}

template <class R, class Op, int Axis, class T, int N>
Array<R, N> along(const Array<T, N>& a) {
  Array<R, N> out = as_dtype<R>(a);
  if constexpr (std::is_same_v<R, T>) out = copy(a);
  index_t outer = 1, inner = 1;
  for (int k = 0; k < Axis; ++k) outer *= a.shape[k];
  for (int k = Axis + 1; k < N; ++k) inner *= a.shape[k];
  const index_t n = a.shape[Axis];
  R* __restrict d = out.data;
  for (index_t o = 0; o < outer; ++o) {
    R* base = d + o * n * inner;
    for (index_t i = 1; i < n; ++i) {
      R* cur = base + i * inner;
      const R* prev = cur - inner;
      for (index_t j = 0; j < inner; ++j) cur[j] = Op::apply(prev[j], cur[j]);
    }
  }
  return out;
}

}  // namespace scan

template <class R, class T, int N>
Array<R, 1> cumsum_flat(const Array<T, N>& a) { return scan::flat<R, scan::Add<R>>(a); }
template <class R, class T, int N>
Array<R, 1> cumprod_flat(const Array<T, N>& a) { return scan::flat<R, scan::Mul<R>>(a); }
template <class R, int Axis, class T, int N>
Array<R, N> cumsum_axis(const Array<T, N>& a) { return scan::along<R, scan::Add<R>, Axis>(a); }
template <class R, int Axis, class T, int N>
Array<R, N> cumprod_axis(const Array<T, N>& a) { return scan::along<R, scan::Mul<R>, Axis>(a); }

// np.diff(a, n, axis): n-th discrete difference (np.not_equal for booleans)
template <int Axis, class T, int N>
Array<T, N> diff(const Array<T, N>& a, index_t n) {
  if (n < 0) raise("ValueError", "order must be non-negative but got " + std::to_string(n));
  Array<T, N> cur = a.contiguous() ? a : copy(a);
  for (index_t step = 0; step < n; ++step) {
    const index_t len = cur.shape[Axis];
    if (len == 0) break;
    std::array<index_t, N> shape = cur.shape;
    shape[Axis] = len - 1;
    Array<T, N> out = empty<T, N>(shape);
    index_t outer = 1, inner = 1;
    for (int k = 0; k < Axis; ++k) outer *= cur.shape[k];
    for (int k = Axis + 1; k < N; ++k) inner *= cur.shape[k];
    const T* __restrict s = cur.data;
    T* __restrict d = out.data;
    for (index_t o = 0; o < outer; ++o)
      for (index_t i = 0; i + 1 < len; ++i) {
        const T* lo = s + (o * len + i) * inner;
        const T* hi = lo + inner;
        T* dst = d + (o * (len - 1) + i) * inner;
        for (index_t j = 0; j < inner; ++j) {
          if constexpr (std::is_same_v<T, bool>) dst[j] = hi[j] != lo[j];
          else dst[j] = static_cast<T>(hi[j] - lo[j]);
        }
      }
    cur = out;
  }
  return cur;
}

}  // namespace ep
