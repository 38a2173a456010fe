// cv2.threshold (uint8) and cv2.cvtColor (gray, gray to colour, channel swaps; uint8 and
// float32) on the simd path (ep::simd). threshold compares and selects whole batches of
// bytes with xsimd; gray conversions gather a batch of pixels' channels (the channel count
// is a compile-time constant here, so the gather loop is a fixed shuffle) and weight them
// in 32-bit integer (OpenCV's 15-bit coefficients) or float lanes, in the loops path's
// order (ops/imgproc.hpp, ops/imgproc_color.hpp), so results are identical to it.
// Gray to colour and channel swaps only move bytes: loops specialised on the channel
// counts, which g++ turns into vector shuffles. Other codes and dtypes: the loops path.
#pragma once

#include <cstdint>
#include <tuple>

#include "../../ops/imgproc.hpp"
#include "../../ops/imgproc_color.hpp"
#include "imgproc_core.hpp"

#if defined(EP_HAVE_SIMD)

namespace ep::simd {
namespace cvs {

template <class F>
void threshold_rows(const Img<const uint8_t>& s, const Img<uint8_t>& d, F&& f) {
  using B = xsimd::batch<uint8_t>;
  constexpr index_t L = index_t(B::size);
  const index_t w = s.width();
  for (index_t y = 0; y < s.rows; ++y) {
    const uint8_t* sp = s.row(y);
    uint8_t* dp = d.row(y);
    index_t i = 0;
    for (; i + L <= w; i += L) f(B::load_unaligned(sp + i)).store_unaligned(dp + i);
    if (i < w) {  // the tail through one batch too
      alignas(64) uint8_t t[L] = {};
      std::copy(sp + i, sp + w, t);
      f(B::load_aligned(t)).store_aligned(t);
      std::copy(t, t + (w - i), dp + i);
    }
  }
}

// one gray row: y = b * cb + g * cg + r * cr per pixel (B at channel Bi of Scn)
template <int Scn, int Bi, class T>
void gray_row(const T* sp, T* dp, index_t n) {
  using W = std::conditional_t<std::is_same_v<T, uint8_t>, int32_t, float>;
  using V = xsimd::batch<W>;
  constexpr index_t L = index_t(V::size);
  auto pixel = [](auto b, auto g, auto r) {  // on batches and on scalars
    using X = decltype(b);
    if constexpr (std::is_same_v<W, float>) return X(b * X(0.114f) + g * X(0.587f) + r * X(0.299f));
    else return X((b * X(ep::cvk::BY15) + g * X(ep::cvk::GY15) + r * X(ep::cvk::RY15) + X(1 << 14)) >> 15);
  };
  alignas(64) W b[L], g[L], r[L], o[L];
  index_t x = 0;
  for (; x + L <= n; x += L) {
    const T* p = sp + x * Scn;
    for (index_t k = 0; k < L; ++k) b[k] = W(p[k * Scn + Bi]), g[k] = W(p[k * Scn + 1]), r[k] = W(p[k * Scn + (Bi ^ 2)]);
    pixel(V::load_aligned(b), V::load_aligned(g), V::load_aligned(r)).store_aligned(o);
    for (index_t k = 0; k < L; ++k) dp[x + k] = T(o[k]);
  }
  for (; x < n; ++x) dp[x] = T(pixel(W(sp[x * Scn + Bi]), W(sp[x * Scn + 1]), W(sp[x * Scn + (Bi ^ 2)])));
}

// channel swaps and gray to colour: d gets Dcn channels per pixel from Scn ones
template <int Code, int Scn, int Dcn, class T>
void move_row(const T* sp, T* dp, index_t n) {
  constexpr ep::cvk::CvtInfo info = ep::cvk::cvt_info(Code);
  constexpr int bi = info.bidx;
  const T alpha = T(ep::cvk::channel_max<T>());
  for (index_t x = 0; x < n; ++x) {
    const T* s = sp + x * Scn;
    T* d = dp + x * Dcn;
    if constexpr (info.kind == ep::cvk::Cvt::FromGray) {
      d[0] = d[1] = d[2] = s[0];
    } else {
      const T b = s[0], g = s[1], r = s[2];
      d[bi] = b, d[1] = g, d[bi ^ 2] = r;
    }
    if constexpr (Dcn == 4) d[3] = (info.kind != ep::cvk::Cvt::FromGray && Scn == 4) ? s[3] : alpha;
  }
}

template <int Code, int Scn, class T>
void cvt_row(const T* sp, T* dp, index_t n) {
  constexpr ep::cvk::CvtInfo info = ep::cvk::cvt_info(Code);
  if constexpr (info.kind == ep::cvk::Cvt::ToGray) gray_row<Scn, info.bidx>(sp, dp, n);
  else move_row<Code, Scn, info.dcn>(sp, dp, n);
}

}  // namespace cvs

template <class T, int N>
std::tuple<double, Array<T, N>> cv_threshold(const Array<T, N>& src, double thresh, double maxval, int type) {
  if constexpr (!std::is_same_v<T, uint8_t>) {
    return ep::cv_threshold(src, thresh, maxval, type);
  } else {
    Array<T, N> keep;
    auto s = cvk::in_image(src, keep, "threshold");
    if (s.rows == 0 || s.cols == 0) cvk::none_result("threshold");
    const int base = type & 7;
    if (type & 8) thresh = double(cvk::otsu_threshold(s));
    // cv::threshold's clamping of thresh / maxval (ep::cvk::threshold_int); the cases it
    // turns into a constant image or a copy stay with it
    const int ith = cvk::cv_floor(thresh);
    const int imax = cvk::sat_int<uint8_t>(base == 2 ? ith : cvk::cv_round(maxval));
    if (ith < 0 || ith >= 255) return cvk::threshold_int<T, N>(s, thresh, maxval, base);
    using B = xsimd::batch<uint8_t>;
    const uint8_t th = uint8_t(ith), mx = uint8_t(imax);
    const B tb(th), mb(mx), zb(uint8_t(0));
    auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
    auto d = cvk::image_of(out);
    switch (base) {
      case 0: cvs::threshold_rows(s, d, [&](auto v) { return xsimd::select(v > tb, mb, zb); }); break;
      case 1: cvs::threshold_rows(s, d, [&](auto v) { return xsimd::select(v > tb, zb, mb); }); break;
      case 2: cvs::threshold_rows(s, d, [&](auto v) { return xsimd::min(v, tb); }); break;
      case 3: cvs::threshold_rows(s, d, [&](auto v) { return xsimd::select(v > tb, v, zb); }); break;
      default: cvs::threshold_rows(s, d, [&](auto v) { return xsimd::select(v > tb, zb, v); }); break;
    }
    return {double(ith), std::move(out)};
  }
}

template <int Code, int NO, class T, int N>
Array<T, NO> cv_cvt_color(const Array<T, N>& src) {
  constexpr cvk::Cvt kind = cvk::cvt_info(Code).kind;
  constexpr bool ok = kind == cvk::Cvt::Swap || kind == cvk::Cvt::ToGray || kind == cvk::Cvt::FromGray;
  if constexpr (!ok || !(std::is_same_v<T, uint8_t> || std::is_same_v<T, float>)) {
    return ep::cv_cvt_color<Code, NO>(src);
  } else {
    Array<T, N> keep;
    auto s = cvk::in_image(src, keep, "cvtColor");
    cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "cvtColor");
    cvk::check_cvt_channels(Code, s.cn);
    const index_t dcn = cvk::cvt_info(Code).dcn;
    auto out = cvk::new_image<T, NO>(s.rows, s.cols, dcn);
    auto d = cvk::image_of(out);
    for (index_t y = 0; y < s.rows; ++y) {
      if (s.cn == 1) cvs::cvt_row<Code, 1>(s.row(y), d.row(y), s.cols);
      else if (s.cn == 3) cvs::cvt_row<Code, 3>(s.row(y), d.row(y), s.cols);
      else cvs::cvt_row<Code, 4>(s.row(y), d.row(y), s.cols);
    }
    return out;
  }
}

}  // namespace ep::simd
#endif
