// The simd path of full reductions over contiguous float arrays with xsimd:
// sums fold 1024-element blocks with four batch accumulators and add the block
// sums pairwise (error growth like NumPy's pairwise sum, not like a running sum);
// max/min fold batches and propagate NaN exactly like np.max / np.min. The
// lowering offers this path only when the array dtype is the result dtype and
// floating; strided or broadcast views are reduced by the loops kernel.
#pragma once

#include <limits>
#include <vector>

#include "../../ops/reduce.hpp"

#if defined(EP_HAVE_SIMD)
#include <xsimd/xsimd.hpp>

namespace ep::simd {

template <class T>
T block_sum(const T* p, index_t n) {
  using B = xsimd::batch<T>;
  constexpr index_t W = static_cast<index_t>(B::size);
  B s0(T(0)), s1(T(0)), s2(T(0)), s3(T(0));
  index_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    s0 += B::load_unaligned(p + i);
    s1 += B::load_unaligned(p + i + W);
    s2 += B::load_unaligned(p + i + 2 * W);
    s3 += B::load_unaligned(p + i + 3 * W);
  }
  for (; i + W <= n; i += W) s0 += B::load_unaligned(p + i);
  T s = xsimd::hadd((s0 + s1) + (s2 + s3));
  for (; i < n; ++i) s += p[i];
  return s;
}

template <class T>
T pairwise_blocks(const T* p, index_t n) {
  constexpr index_t kBlock = 1024;
  if (n <= kBlock) return block_sum(p, n);
  index_t half = (n / 2 / kBlock) * kBlock;
  if (half == 0) half = kBlock;
  return pairwise_blocks(p, half) + pairwise_blocks(p + half, n - half);
}

template <class R, class T, int N>
R sum_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T> && std::is_floating_point_v<T>) {
    if (a.contiguous()) return R(0) + pairwise_blocks(a.data, a.size());
  }
  return red::reduce_all<red::Sum<R>>(a);
}

template <bool IsMax, class T>
T minmax_contig(const T* p, index_t n) {
  using B = xsimd::batch<T>;
  constexpr index_t W = static_cast<index_t>(B::size);
  T acc = p[0];
  index_t i = 0;
  if (n >= W) {
    B m = B::load_unaligned(p);
    xsimd::batch_bool<T> nan = xsimd::isnan(m);
    for (i = W; i + W <= n; i += W) {
      B x = B::load_unaligned(p + i);
      nan = nan || xsimd::isnan(x);
      m = IsMax ? xsimd::max(m, x) : xsimd::min(m, x);
    }
    if (xsimd::any(nan)) return std::numeric_limits<T>::quiet_NaN();
    alignas(64) T lanes[W];  // xsimd 8 has no horizontal max/min
    m.store_aligned(lanes);
    acc = lanes[0];
    for (index_t k = 1; k < W; ++k) acc = IsMax ? std::max(acc, lanes[k]) : std::min(acc, lanes[k]);
  }
  for (; i < n; ++i) acc = IsMax ? sc::maximum<T>(acc, p[i]) : sc::minimum<T>(acc, p[i]);
  return acc;
}

template <class R, class T, int N>
R max_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T> && std::is_floating_point_v<T>) {
    if (a.contiguous() && a.size() > 0) return minmax_contig<true>(a.data, a.size());
  }
  return red::reduce_all<red::Max<R>>(a);
}

template <class R, class T, int N>
R min_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T> && std::is_floating_point_v<T>) {
    if (a.contiguous() && a.size() > 0) return minmax_contig<false>(a.data, a.size());
  }
  return red::reduce_all<red::Min<R>>(a);
}

template <class R, class A, class T, int N>
R mean_all(const Array<T, N>& a) {
  A s = simd::sum_all<A>(a);
  return elem_cast<R>(red::div_count<A>(s, static_cast<double>(a.size())));
}

}  // namespace ep::simd
#endif
