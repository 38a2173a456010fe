// np.ptp (both extremes in one pass), np.average with weights, np.cov and
// np.corrcoef. Sums keep NumPy's pairwise order (reduce.hpp / fused_reduce.hpp)
// and each step happens in the dtype NumPy computes it in.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "../array.hpp"
#include "../fused_reduce.hpp"
#include "../map.hpp"
#include "../scalar.hpp"
#include "creation.hpp"
#include "reduce.hpp"

namespace ep {
namespace more {

// ---- ptp -------------------------------------------------------------------------------
template <class T>
struct Span {
  T lo, hi;
};

// min and max of a contiguous real row in one pass of vector lanes; false when a NaN may
// be present (x - x is NaN for NaN and inf), so the caller redoes it NaN-aware
template <class T>
bool span_lanes(const T* p, index_t n, T& lo, T& hi) {
  constexpr int L = 32 / sizeof(T);
  typedef T V __attribute__((vector_size(32)));
  V mx, mn, z = V{} * T(0);
  std::memcpy(&mx, p, sizeof(V));
  mn = mx;
  index_t i = L;
  for (; i + L <= n; i += L) {
    V x;
    std::memcpy(&x, p + i, sizeof(V));
    mx = x > mx ? x : mx;
    mn = x < mn ? x : mn;
    if constexpr (std::is_floating_point_v<T>) z += x - x;
  }
  lo = mn[0], hi = mx[0];
  bool bad = false;
  for (int k = 0; k < L; ++k) {
    hi = mx[k] > hi ? mx[k] : hi;
    lo = mn[k] < lo ? mn[k] : lo;
    if constexpr (std::is_floating_point_v<T>) bad = bad || z[k] != z[k] || mx[k] != mx[k];
  }
  for (; i < n; ++i) {
    hi = p[i] > hi ? p[i] : hi;
    lo = p[i] < lo ? p[i] : lo;
    if constexpr (std::is_floating_point_v<T>) bad = bad || p[i] != p[i];
  }
  return !bad;
}

template <class T>
struct PtpOp {
  using result = Span<T>;
  static constexpr bool has_identity = false;
  static constexpr const char* name = "maximum";
  static Span<T> row(Span<T> acc, const T* p, index_t n, index_t s) {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      T lo, hi;
      if (s == 1 && n >= 64 && span_lanes(p, n, lo, hi)) return {sc::minimum<T>(acc.lo, lo), sc::maximum<T>(acc.hi, hi)};
    }
    for (index_t i = 0; i < n; ++i) acc = combine(acc, p[i * s]);
    return acc;
  }
  static Span<T> combine(Span<T> acc, const T& x) { return {sc::minimum<T>(acc.lo, x), sc::maximum<T>(acc.hi, x)}; }
};

// max - min over the axes in Mask (keepdims layout), one pass over a
template <uint32_t Mask, class T, int N>
Array<T, N> ptp_keep(const Array<T, N>& a) {
  std::array<index_t, N> oshape{};
  for (int k = 0; k < N; ++k) oshape[k] = ((Mask >> k) & 1u) ? 1 : a.shape[k];
  if (red::reduced_count<N>(a.shape, Mask) == 0) red::no_identity("maximum");
  Array<Span<T>, N> acc = empty<Span<T>, N>(oshape);
  Array<T, N> out = empty<T, N>(oshape);
  if (acc.size() == 0) return out;
  Array<T, N> first = a;  // the first element of each lane seeds its span
  for (int k = 0; k < N; ++k)
    if ((Mask >> k) & 1u) first.shape[k] = 1;
  index_t j = 0;
  for_each_offset(first, [&](index_t off) { acc.data[j++] = Span<T>{first.data[off], first.data[off]}; });
  red::fold_into<PtpOp<T>>(acc.data, acc.strides, a, Mask, true);
  for (index_t i = 0; i < out.size(); ++i) out.data[i] = sc::sub<T>(acc.data[i].hi, acc.data[i].lo);
  return out;
}

template <class T, int N>
T ptp_all(const Array<T, N>& a) {
  return ptp_keep<red::all_axes<N>()>(a).data[0];
}
template <uint32_t Mask, bool Keep, class T, int N>
auto ptp_axes(const Array<T, N>& a) {
  return red::drop_axes<red::kept_rank<N>(Mask, Keep)>(ptp_keep<Mask>(a), Keep ? 0u : Mask);
}

// ---- average with weights ---------------------------------------------------------------
// The weights seen with a's shape: themselves when the shapes agree, else (axis given,
// w.shape == a.shape[axis...]) a view broadcast along the other axes, as NumPy reshapes.
template <bool AxisNone, int... Ax, class W, int M, class T, int N>
Array<W, N> weights_view(const Array<W, M>& w, const Array<T, N>& a, bool& same) {
  same = false;
  if constexpr (M == N) {
    if (w.shape == a.shape) {
      same = true;
      return w;
    }
  }
  if (AxisNone) raise("TypeError", "Axis must be specified when shapes of a and weights differ.");
  constexpr int axes[] = {Ax..., -1};
  bool ok = M == static_cast<int>(sizeof...(Ax));
  Array<W, N> v;
  v.data = w.data;
  v.owner = w.owner;
  for (int k = 0; k < N; ++k) v.shape[k] = a.shape[k], v.strides[k] = 0;
  if (ok) {
    for (int j = 0; j < M; ++j) {
      const int ax = axes[j];
      if (w.shape[j] != a.shape[ax]) ok = false;
      v.strides[ax] = w.strides[j];
    }
  }
  if (!ok) raise("ValueError", "Shape of weights must be consistent with shape of a along specified axis.");
  return v;
}

[[noreturn]] inline void zero_weights() { raise("ZeroDivisionError", "Weights sum to zero, can't be normalized"); }

template <class RT>
struct Product {
  template <class X, class Y>
  RT operator()(X x, Y y) const { return sc::mul<RT>(elem_cast<RT>(x), elem_cast<RT>(y)); }
};

// np.average(a, axis, weights, keepdims) in RT = result_type(a, weights[, float64])
template <class RT, uint32_t Mask, bool Keep, bool AxisNone, int... Ax, class T, int N, class W, int M>
auto average_w(const Array<T, N>& a, const Array<W, M>& w) {
  bool same;
  Array<W, N> wv = weights_view<AxisNone, Ax...>(w, a, same);
  if constexpr (AxisNone && !Keep) {  // same shapes here: both sums straight from the operands
    const RT scl = sum_all<RT>(w);
    if (scl == RT(0)) zero_weights();
    return sc::truediv<RT>(fused_sum_all<RT, RT, N>(Product<RT>{}, a, wv), scl);
  } else {
    Array<RT, N> s = red::reduce_keep<red::Sum<RT>, Mask>(map<RT, N>(Product<RT>{}, a, wv));
    if (same) {
      Array<RT, N> scl = red::reduce_keep<red::Sum<RT>, Mask>(wv);
      for (index_t i = 0; i < scl.size(); ++i)
        if (scl.data[i] == RT(0)) zero_weights();
      for (index_t i = 0; i < s.size(); ++i) s.data[i] = sc::truediv<RT>(s.data[i], scl.data[i]);
    } else {
      const RT scl = sum_all<RT>(w);
      if (scl == RT(0)) zero_weights();
      for (index_t i = 0; i < s.size(); ++i) s.data[i] = sc::truediv<RT>(s.data[i], scl);
    }
    return red::drop_axes<red::kept_rank<N>(Mask, Keep)>(s, Keep ? 0u : Mask);
  }
}

}  // namespace more

template <class T, int N>
T ptp_all(const Array<T, N>& a) { return more::ptp_all(a); }
template <uint32_t Mask, bool Keep, class T, int N>
auto ptp_axes(const Array<T, N>& a) { return more::ptp_axes<Mask, Keep>(a); }

}  // namespace ep
