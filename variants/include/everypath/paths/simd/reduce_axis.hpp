// The simd path of float reductions over the last axis (np.sum / max / min / mean with
// axis=-1 and keepdims) of arrays whose rows are contiguous, plus the full reductions of
// reduce.hpp (this header is the variant's one header). Measured against the loops
// kernels (see REDUCTION_VARIANTS): rows of up to a few hundred elements are 1.5-5x
// faster; reductions over axis 0 gain nothing (the loops kernel already combines whole
// contiguous rows with vector instructions), so they are not offered here.
//
// Sums keep NumPy's pairwise order exactly (8 lanes of partial sums, the same block
// splits, the same final tree), so they are bit-identical to the loops path and to
// NumPy; max/min are order-independent and propagate NaN like np.max / np.min.
#pragma once

#include <type_traits>

#include "../../ops/reduce.hpp"
#include "reduce.hpp"

#if defined(EP_HAVE_SIMD)
#include <xsimd/xsimd.hpp>

namespace ep::simd {
namespace rowred {

template <class T>
using B8 = xsimd::make_sized_batch_t<T, 8>;  // NumPy's 8 partial sums in one register (void if none)

// red::pairwise_impl<T, true> (NumPy's pairwise_sum) with the 8 accumulators in one batch
template <class T>
T pairwise8(const T* p, index_t n) {
  if (n < 8) {
    T res = T(0);
    for (index_t i = 0; i < n; ++i) res += p[i];
    return res;
  }
  if (n <= 128) {
    using B = B8<T>;
    B r = B::load_unaligned(p);
    index_t i = 8;
    for (; i < n - (n % 8); i += 8) r += B::load_unaligned(p + i);
    alignas(64) T l[8];
    r.store_aligned(l);
    T res = ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
    for (; i < n; ++i) res += p[i];
    return res;
  }
  index_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise8(p, n2) + pairwise8(p + n2, n - n2);
}

// max / min of a contiguous row (n >= 1), NaN-propagating
template <bool IsMax, class T>
T extreme(const T* p, index_t n) {
  using B = xsimd::batch<T>;
  constexpr index_t W = static_cast<index_t>(B::size);
  T acc = p[0];
  index_t i = 0;
  if (n >= 2 * W) {
    B m0 = B::load_unaligned(p), m1 = B::load_unaligned(p + W);
    xsimd::batch_bool<T> nan = xsimd::isnan(m0) || xsimd::isnan(m1);
    for (i = 2 * W; i + 2 * W <= n; i += 2 * W) {
      const B x = B::load_unaligned(p + i), y = B::load_unaligned(p + i + W);
      nan = nan || xsimd::isnan(x) || xsimd::isnan(y);
      m0 = IsMax ? xsimd::max(m0, x) : xsimd::min(m0, x);
      m1 = IsMax ? xsimd::max(m1, y) : xsimd::min(m1, y);
    }
    if (xsimd::any(nan)) return std::numeric_limits<T>::quiet_NaN();
    const B m = IsMax ? xsimd::max(m0, m1) : xsimd::min(m0, m1);
    alignas(64) T lanes[W];
    m.store_aligned(lanes);
    acc = lanes[0];
    for (index_t k = 1; k < W; ++k) acc = IsMax ? std::max(acc, lanes[k]) : std::min(acc, lanes[k]);
  }
  for (; i < n; ++i) acc = IsMax ? sc::maximum<T>(acc, p[i]) : sc::minimum<T>(acc, p[i]);
  return acc;
}

// Kind 0: sum, 1: max, 2: min. The last axis of a C-contiguous float array of rank >= 1,
// keepdims layout; false when the layout or dtype is not covered (the caller runs loops).
template <int Kind, class R, uint32_t Mask, class T, int N>
bool rows(const Array<T, N>& a, Array<R, N>& out) {
  if constexpr (!(N >= 1 && std::is_same_v<R, T> && std::is_floating_point_v<T> && Mask == (1u << (N - 1)) &&
                  !std::is_void_v<B8<T>>)) {
    return false;
  } else {
    const index_t n = a.shape[N - 1];
    if (!a.contiguous() || n == 0 || a.size() == 0) return false;  // empty: loops raises NumPy's errors
    std::array<index_t, N> oshape = a.shape;
    oshape[N - 1] = 1;
    out = empty<R, N>(oshape);
    const index_t m = a.size() / n;
    for (index_t r = 0; r < m; ++r) {
      const T* p = a.data + r * n;
      if constexpr (Kind == 0) out.data[r] = R(0) + pairwise8(p, n);  // R(0) +: as Sum's identity, -0.0 -> 0.0
      else out.data[r] = extreme<Kind == 1>(p, n);
    }
    return true;
  }
}

template <int Kind, class Op, class R, uint32_t Mask, bool Keep, class T, int N>
auto reduce(const Array<T, N>& a) {
  Array<R, N> k;
  if (!rows<Kind, R, Mask>(a, k)) k = red::reduce_keep<Op, Mask>(a);
  return red::drop_axes<red::kept_rank<N>(Mask, Keep)>(k, Keep ? 0u : Mask);
}

}  // namespace rowred

template <class R, uint32_t Mask, bool Keep, class T, int N>
auto sum_axes(const Array<T, N>& a) { return rowred::reduce<0, red::Sum<R>, R, Mask, Keep>(a); }
template <class R, uint32_t Mask, bool Keep, class T, int N>
auto max_axes(const Array<T, N>& a) { return rowred::reduce<1, red::Max<R>, R, Mask, Keep>(a); }
template <class R, uint32_t Mask, bool Keep, class T, int N>
auto min_axes(const Array<T, N>& a) { return rowred::reduce<2, red::Min<R>, R, Mask, Keep>(a); }

template <class R, class A, uint32_t Mask, bool Keep, class T, int N>
auto mean_axes(const Array<T, N>& a) {
  auto s = rowred::reduce<0, red::Sum<A>, A, Mask, Keep>(a);
  const double c = static_cast<double>(red::reduced_count<N>(a.shape, Mask));
  using S = decltype(s);
  Array<R, S::ndim> out = empty<R, S::ndim>(s.shape);
  index_t j = 0;
  for_each_offset(s, [&](index_t off) { out.data[j++] = elem_cast<R>(red::div_count<A>(s.data[off], c)); });
  return out;
}

}  // namespace ep::simd
#endif
