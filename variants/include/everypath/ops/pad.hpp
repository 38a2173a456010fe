// np.pad with modes constant, edge, reflect, symmetric (reflect_type even/odd),
// wrap and empty. Axis by axis on the padded array, line by line, as NumPy's
// _arraypad_impl does (same region of interest per axis, same iterative
// reflection/wrapping when the padding is wider than the data), so results
// match NumPy's exactly, including odd reflections of padded values.
#pragma once

#include <string>

#include "../array.hpp"
#include "../index.hpp"
#include "../scalar.hpp"

namespace ep {

namespace padk {
enum Mode { Constant = 0, Edge = 1, Reflect = 2, Symmetric = 3, Wrap = 4, Empty = 5 };

// 2 * edge - v in NumPy's arithmetic (bool goes through int, integers wrap)
template <class T>
inline T odd_value(T edge, T v) {
  if constexpr (std::is_same_v<T, bool>) return (2 * static_cast<int64_t>(edge) - static_cast<int64_t>(v)) != 0;
  else if constexpr (is_complex_v<T>) return sc::mul(T(2), edge) - v;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<T>(2 * edge) - v);
  else return T(2) * edge - v;
}

// _set_reflect_both, repeated until the line is filled. p: the line, s: its stride,
// len: its length, (lp, rp): padding still to fill, n: the original length.
template <class T>
void reflect_line(T* p, index_t s, index_t len, index_t lp, index_t rp, index_t n, bool sym, bool odd) {
  while (lp > 0 || rp > 0) {
    index_t old = len - rp - lp, edge_offset = 0;
    if (sym) {
      old = old / n * n;
      edge_offset = 1;
    } else {
      old = (old - 1) / (n - 1) * (n - 1) + 1 - 1;
    }
    if (lp > 0) {
      const index_t chunk = std::min(old, lp), start = lp - edge_offset + chunk;
      const T edge = p[lp * s];
      for (index_t i = 0; i < chunk; ++i) {
        const T v = p[(start - i) * s];
        p[(lp - chunk + i) * s] = odd ? odd_value(edge, v) : v;
      }
      lp -= chunk;
    }
    if (rp > 0) {
      const index_t chunk = std::min(old, rp), start = len - rp + edge_offset - 2;
      const T edge = p[(len - rp - 1) * s];
      for (index_t i = 0; i < chunk; ++i) {
        const T v = p[(start - i) * s];
        p[(len - rp + i) * s] = odd ? odd_value(edge, v) : v;
      }
      rp -= chunk;
    }
  }
}

// _set_wrap_both, repeated until the line is filled
template <class T>
void wrap_line(T* p, index_t s, index_t len, index_t lp, index_t rp, index_t n) {
  while (lp > 0 || rp > 0) {
    const index_t period = (len - rp - lp) / n * n;
    index_t new_lp = 0, new_rp = 0;
    if (lp > 0) {
      const index_t chunk = std::min(period, lp), from = lp + period - chunk;
      const index_t to = lp > period ? lp - period : 0;
      if (lp > period) new_lp = lp - period;
      for (index_t i = 0; i < chunk; ++i) p[(to + i) * s] = p[(from + i) * s];
    }
    if (rp > 0) {
      const index_t chunk = std::min(period, rp), from = len - rp - period, to = len - rp;
      if (rp > period) new_rp = rp - period;
      for (index_t i = 0; i < chunk; ++i) p[(to + i) * s] = p[(from + i) * s];
    }
    lp = new_lp, rp = new_rp;
  }
}
}  // namespace padk

// w: (before, after) per axis; cv: the constant values per axis (mode constant)
template <int Mode, bool Odd, class T, int N>
Array<T, N> pad(const Array<T, N>& a, const std::array<index_t, 2 * N>& w, const std::array<T, 2 * N>& cv) {
  for (index_t x : w)
    if (x < 0) raise("ValueError", "index can't contain negative values");
  std::array<index_t, N> shape;
  for (int k = 0; k < N; ++k) shape[k] = a.shape[k] + w[2 * k] + w[2 * k + 1];
  Array<T, N> out = empty<T, N>(shape);
  Array<T, N> inner = out;
  for (int k = 0; k < N; ++k) inner.data += w[2 * k] * out.strides[k], inner.shape[k] = a.shape[k];
  if (a.size() > 0) assign(inner, a);
  if (Mode == padk::Empty) return out;
  if (Mode != padk::Constant && a.size() == 0) {
    for (int k = 0; k < N; ++k)
      if (a.shape[k] == 0 && (w[2 * k] || w[2 * k + 1]))
        raise("ValueError", "can't extend empty axis " + std::to_string(k) +
                                " using modes other than 'constant' or 'empty'");
    return out;
  }
  for (int k = 0; k < N; ++k) {
    const index_t lp = w[2 * k], rp = w[2 * k + 1], len = shape[k], n = a.shape[k], s = out.strides[k];
    if (lp == 0 && rp == 0) continue;
    // lines along axis k: earlier axes whole, later ones over the original area only
    std::array<index_t, N> lo{}, hi{}, idx{};
    bool none = false;
    for (int j = 0; j < N; ++j) {
      lo[j] = j < k ? 0 : (j == k ? 0 : w[2 * j]);
      hi[j] = j < k ? shape[j] : (j == k ? 1 : w[2 * j] + a.shape[j]);
      idx[j] = lo[j];
      none = none || hi[j] <= lo[j];
    }
    while (!none) {
      index_t off = 0;
      for (int j = 0; j < N; ++j) off += idx[j] * out.strides[j];
      T* p = out.data + off;
      if (Mode == padk::Constant || Mode == padk::Edge || ((Mode == padk::Reflect || Mode == padk::Symmetric) && n == 1)) {
        const T left = Mode == padk::Constant ? cv[2 * k] : p[lp * s];
        const T right = Mode == padk::Constant ? cv[2 * k + 1] : p[(len - rp - 1) * s];
        for (index_t i = 0; i < lp; ++i) p[i * s] = left;
        for (index_t i = len - rp; i < len; ++i) p[i * s] = right;
      } else if (Mode == padk::Wrap) {
        padk::wrap_line(p, s, len, lp, rp, n);
      } else {
        padk::reflect_line(p, s, len, lp, rp, n, Mode == padk::Symmetric, Odd);
      }
      int j = N - 1;
      for (; j >= 0; --j) {
        if (++idx[j] < hi[j]) break;
        idx[j] = lo[j];
      }
      if (j < 0) break;
    }
  }
  return out;
}

}  // namespace ep
