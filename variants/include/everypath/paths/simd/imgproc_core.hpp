// The simd path of the cv2 filters, shared pieces: the bordered source row, the
// separable row + column engine vectorised across the row (all channels of a row at
// once: the taps of a row kernel are loads at offsets k * cn), and stores with
// OpenCV's saturate_cast. The arithmetic is the loops path's (variants/include/everypath/
// ops/imgproc_filter.hpp), tap for tap in the same order, so integer results are
// identical and float results are too (the build does not contract a * b + c into fma).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../ops/imgproc_core.hpp"

#if defined(EP_HAVE_SIMD)
#include <xsimd/xsimd.hpp>

namespace ep::simd::cvs {

using ep::cvk::Img;

// pad[(p + lo) * cn + c] = the source pixel standing for column p in [-lo, cols + hi),
// fill(c) where the table says constant border (-1)
template <class W, class T, class Fill>
void pad_row(const T* sp, const std::vector<index_t>& xt, index_t lo, index_t cols, index_t cn, Fill&& fill, W* pad) {
  const index_t n = index_t(xt.size());
  for (index_t p = 0; p < lo; ++p)
    for (index_t c = 0; c < cn; ++c) pad[p * cn + c] = xt[p] < 0 ? fill(c) : W(sp[xt[p] * cn + c]);
  W* mid = pad + lo * cn;
  for (index_t i = 0; i < cols * cn; ++i) mid[i] = W(sp[i]);  // plain conversion: g++ vectorises it
  for (index_t p = lo + cols; p < n; ++p)
    for (index_t c = 0; c < cn; ++c) pad[p * cn + c] = xt[p] < 0 ? fill(c) : W(sp[xt[p] * cn + c]);
}

// dst[i] = saturate_cast<D>(acc[i]) for float acc: cvRound (ties to even; NaN and
// out-of-range give INT_MIN, as the SSE conversion and ep::cvk::cv_round do), then clamp
template <class D>
void store_round(const float* acc, D* dst, index_t n) {
  if constexpr (std::is_floating_point_v<D>) {
    std::copy(acc, acc + n, dst);
  } else {
    using B = xsimd::batch<float>;
    using I = xsimd::batch<int32_t>;
    constexpr index_t L = index_t(B::size);
    // static_cast: clang reads `I lo(int32_t(std::numeric_limits<D>::min()))` as a function declaration
    const I lo(static_cast<int32_t>(std::numeric_limits<D>::min())), hi(static_cast<int32_t>(std::numeric_limits<D>::max()));
    alignas(64) int32_t tmp[L];
    index_t i = 0;
    for (; i + L <= n; i += L) {
      const I r = xsimd::to_int(xsimd::nearbyint(B::load_unaligned(acc + i)));
      xsimd::clip(r, lo, hi).store_aligned(tmp);
      for (index_t k = 0; k < L; ++k) dst[i + k] = D(tmp[k]);
    }
    for (; i < n; ++i) dst[i] = ep::cvk::sat<D>(acc[i]);
  }
}

// Separable filtering exactly as ep::cvk::sep_filter computes it: each source row through
// the row kernel once (when an output row first needs it), then the column kernel;
// finish(y, acc) turns one output row of sums into pixels.
template <class W, class T, class Finish>
void sep_filter(const Img<const T>& s, const std::vector<W>& kx, const std::vector<W>& ky, index_t ax, index_t ay,
                int border, W delta, Finish&& finish) {
  using B = xsimd::batch<W>;
  constexpr index_t L = index_t(B::size);
  const index_t cn = s.cn, w = s.cols * cn, nx = index_t(kx.size()), ny = index_t(ky.size());
  const auto xt = ep::cvk::border_table(s.cols, ax, nx - 1 - ax, border);
  const auto yt = ep::cvk::border_table(s.rows, ay, ny - 1 - ay, border);
  std::vector<W> pad(static_cast<size_t>((s.cols + nx - 1) * cn) + 1), rows(static_cast<size_t>(s.rows * w));
  std::vector<W> zero(static_cast<size_t>(w), W(0)), acc(static_cast<size_t>(w));
  std::vector<char> done(static_cast<size_t>(s.rows), 0);
  auto row_pass = [&](index_t sy) {
    pad_row<W>(s.row(sy), xt, ax, s.cols, cn, [](index_t) { return W(0); }, pad.data());
    W* r = rows.data() + sy * w;
    index_t i = 0;
    for (; i + L <= w; i += L) {
      B a(W(0));
      for (index_t k = 0; k < nx; ++k) a += B(kx[k]) * B::load_unaligned(pad.data() + i + k * cn);
      a.store_unaligned(r + i);
    }
    for (; i < w; ++i) {
      W a = W(0);
      for (index_t k = 0; k < nx; ++k) a += kx[k] * pad[i + k * cn];
      r[i] = a;
    }
    done[sy] = 1;
  };
  std::vector<const W*> src(static_cast<size_t>(ny));
  for (index_t y = 0; y < s.rows; ++y) {
    for (index_t j = 0; j < ny; ++j) {
      const index_t sy = yt[y + j];
      if (sy >= 0 && !done[sy]) row_pass(sy);
      src[j] = sy < 0 ? zero.data() : rows.data() + sy * w;
    }
    index_t i = 0;
    for (; i + L <= w; i += L) {
      B a(delta);
      for (index_t j = 0; j < ny; ++j) a += B(ky[j]) * B::load_unaligned(src[j] + i);
      a.store_unaligned(acc.data() + i);
    }
    for (; i < w; ++i) {
      W a = delta;
      for (index_t j = 0; j < ny; ++j) a += ky[j] * src[j][i];
      acc[i] = a;
    }
    finish(y, acc.data());
  }
}

}  // namespace ep::simd::cvs
#endif
