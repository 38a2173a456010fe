// Conversions that keep or fix an array's layout: np.ascontiguousarray / np.require
// (the array itself when already C-contiguous, else a contiguous copy) and np.copyto
// (broadcasting copy into an existing array, optionally where a mask is true).
#pragma once

#include <string>

#include "../array.hpp"
#include "../map.hpp"
#include "creation.hpp"

namespace ep {

namespace conv {
// NumPy's check before a copy into dst: src must broadcast to dst's shape (never the other way).
template <class T, int N, class V>
void check_into(const Array<T, N>& dst, const V& src) {
  if constexpr (is_array_v<V>) {
    constexpr int M = std::decay_t<V>::ndim;
    bool ok = M <= N;
    if constexpr (M <= N) {
      for (int k = 0; k < M; ++k) {
        const index_t d = src.shape[k];
        if (d != 1 && d != dst.shape[N - M + k]) ok = false;
      }
    }
    if (!ok)
      raise("ValueError", "could not broadcast input array from shape " + shape_str(src) + " into shape " +
                              shape_str(dst));
  }
}
}  // namespace conv

// np.ascontiguousarray: ndim >= 1; no copy when the layout is already C order.
template <class T, int N>
auto ascontiguous(const Array<T, N>& a) {
  if constexpr (N == 0) {
    Array<T, 1> out = empty<T, 1>({1});
    out.data[0] = a.data[0];
    return out;
  } else {
    return a.contiguous() ? a : copy(a);
  }
}

// np.require(..., requirements='C'): as above but keeps 0-d arrays 0-d.
template <class T, int N>
Array<T, N> require_contiguous(const Array<T, N>& a) {
  return a.contiguous() ? a : copy(a);
}

template <class T, int N, class V>
None copyto(const Array<T, N>& dst, const V& src) {
  conv::check_into(dst, src);
  map_into(dst, [](auto v) { return v; }, src);
  return None{};
}

template <class T, int N, class V, class W>
None copyto_where(const Array<T, N>& dst, const V& src, const W& where) {
  conv::check_into(dst, src);
  conv::check_into(dst, where);
  map_into(dst, [](auto d, auto s, bool w) { return w ? static_cast<T>(s) : d; }, dst, src, where);
  return None{};
}

}  // namespace ep
