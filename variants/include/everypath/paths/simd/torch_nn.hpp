// The simd path of torch.nn.functional's row kernels: softmax / log_softmax and layer_norm with xsimd
// batches (AVX2 / AVX-512 / NEON from one source). A contiguous row (dim=-1) runs a vector max, a
// vector exp with a vector sum, and a vector scale; another dim runs lanes across the inner axis (each
// lane its own row), so both layouts vectorise. Sums are kept in the tensor's dtype per lane, as
// torch's vectorised kernels keep them; xsimd's exp differs from torch's (SLEEF) by ulps.
#pragma once

#include "../../ops/torch_nn.hpp"

#if defined(EP_HAVE_SIMD)
#include <xsimd/xsimd.hpp>

namespace ep::tch {
namespace vnn {

template <class R>
using V = xsimd::batch<R>;
template <class R>
inline constexpr index_t W = static_cast<index_t>(V<R>::size);

// the NaN-propagating running max (torch's max of a row with a NaN is NaN)
template <class R>
inline V<R> vmax(V<R> m, V<R> v) {
  return xsimd::select((v > m) || xsimd::isnan(v), v, m);
}

template <class R>
inline R lanes_max(V<R> m) {
  alignas(64) R l[W<R>];
  m.store_aligned(l);
  R r = l[0];
  for (index_t k = 1; k < W<R>; ++k) r = sc::torch_max(r, l[k]);
  return r;
}

// one contiguous row of len values
template <class R, bool Log>
void softmax_row(const R* p, R* q, index_t len) {
  constexpr index_t w = W<R>;
  index_t j = 0;
  R m = -std::numeric_limits<R>::infinity();
  if (len >= w) {
    V<R> vm = V<R>::load_unaligned(p);
    for (j = w; j + w <= len; j += w) vm = vmax<R>(vm, V<R>::load_unaligned(p + j));
    m = lanes_max<R>(vm);
  }
  for (; j < len; ++j) m = sc::torch_max(m, p[j]);
  const V<R> bm(m);
  V<R> vs(R(0));
  R s = 0;
  for (j = 0; j + w <= len; j += w) {
    const V<R> e = xsimd::exp(V<R>::load_unaligned(p + j) - bm);
    vs += e;
    if constexpr (!Log) e.store_unaligned(q + j);
  }
  for (; j < len; ++j) {
    const R e = std::exp(p[j] - m);
    s += e;
    if constexpr (!Log) q[j] = e;
  }
  s += xsimd::hadd(vs);
  if constexpr (Log) {
    const R ls = std::log(s);
    for (j = 0; j + w <= len; j += w) (V<R>::load_unaligned(p + j) - bm - V<R>(ls)).store_unaligned(q + j);
    for (; j < len; ++j) q[j] = (p[j] - m) - ls;
  } else {
    const R r = R(1) / s;  // torch scales by the reciprocal of the sum too
    const V<R> vr(r);
    for (j = 0; j + w <= len; j += w) (V<R>::load_unaligned(q + j) * vr).store_unaligned(q + j);
    for (; j < len; ++j) q[j] *= r;
  }
}

// lanes [i, i + W) of rows that stride by inner (softmax over a dim other than the last)
template <class R, bool Log>
void softmax_lanes(const R* p, R* q, index_t len, index_t inner) {
  V<R> vm(-std::numeric_limits<R>::infinity());
  for (index_t j = 0; j < len; ++j) vm = vmax<R>(vm, V<R>::load_unaligned(p + j * inner));
  V<R> vs(R(0));
  for (index_t j = 0; j < len; ++j) {
    const V<R> e = xsimd::exp(V<R>::load_unaligned(p + j * inner) - vm);
    vs += e;
    if constexpr (!Log) e.store_unaligned(q + j * inner);
  }
  if constexpr (Log) {
    const V<R> ls = xsimd::log(vs);
    for (index_t j = 0; j < len; ++j)
      ((V<R>::load_unaligned(p + j * inner) - vm) - ls).store_unaligned(q + j * inner);
  } else {
    const V<R> r = V<R>(R(1)) / vs;
    for (index_t j = 0; j < len; ++j) (V<R>::load_unaligned(q + j * inner) * r).store_unaligned(q + j * inner);
  }
}

template <class R, bool Log>
void softmax_block(const R* x, R* y, index_t o0, index_t o1, index_t i0, index_t i1, index_t len, index_t inner) {
  for (index_t o = o0; o < o1; ++o) {
    const R* p = x + o * len * inner;
    R* q = y + o * len * inner;
    if (inner == 1) {
      softmax_row<R, Log>(p, q, len);
      continue;
    }
    index_t i = i0;
    for (; i + W<R> <= i1; i += W<R>) softmax_lanes<R, Log>(p + i, q + i, len, inner);
    if (i < i1) SoftmaxKernel<R, Log, path::loops>::run(p, q, 0, 1, i, i1, len, inner);  // the last lanes
  }
}

// one row of layer_norm: two passes for mean and variance (as torch's float kernels, in R per lane)
template <class R>
void layer_norm_row(const R* p, R* q, index_t cols, const R* w, const R* b, double eps) {
  constexpr index_t vw = W<R>;
  V<R> vs(R(0));
  index_t j = 0;
  for (; j + vw <= cols; j += vw) vs += V<R>::load_unaligned(p + j);
  R s = xsimd::hadd(vs);
  for (; j < cols; ++j) s += p[j];
  const R mean = s / static_cast<R>(cols);
  const V<R> vmean(mean);
  V<R> vv(R(0));
  for (j = 0; j + vw <= cols; j += vw) {
    const V<R> d = V<R>::load_unaligned(p + j) - vmean;
    vv += d * d;
  }
  R var = xsimd::hadd(vv);
  for (; j < cols; ++j) var += (p[j] - mean) * (p[j] - mean);
  const R rstd = static_cast<R>(1.0 / std::sqrt(static_cast<double>(var) / static_cast<double>(cols) + eps));
  const V<R> vr(rstd);
  for (j = 0; j + vw <= cols; j += vw) {
    V<R> v = (V<R>::load_unaligned(p + j) - vmean) * vr;
    if (w) v *= V<R>::load_unaligned(w + j);
    if (b) v += V<R>::load_unaligned(b + j);
    v.store_unaligned(q + j);
  }
  for (; j < cols; ++j) {
    R v = (p[j] - mean) * rstd;
    if (w) v *= w[j];
    if (b) v += b[j];
    q[j] = v;
  }
}

}  // namespace vnn

template <class R, bool Log>
  requires(std::is_same_v<R, float> || std::is_same_v<R, double>)
struct SoftmaxKernel<R, Log, path::simd> {
  static void run(const R* x, R* y, index_t o0, index_t o1, index_t i0, index_t i1, index_t len, index_t inner) {
    vnn::softmax_block<R, Log>(x, y, o0, o1, i0, i1, len, inner);
  }
};

template <class R>
  requires(std::is_same_v<R, float> || std::is_same_v<R, double>)
struct LayerNormKernel<R, path::simd> {
  static void run(const R* x, R* y, index_t r0, index_t r1, index_t cols, const R* w, const R* b, double eps) {
    for (index_t r = r0; r < r1; ++r) vnn::layer_norm_row<R>(x + r * cols, y + r * cols, cols, w, b, eps);
  }
};

}  // namespace ep::tch
#endif

// ---- conv2d: the blocked direct kernel ----------------------------------------------------------
#include "torch_conv.hpp"
