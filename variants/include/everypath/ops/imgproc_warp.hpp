// cv2.warpAffine, loops path, as OpenCV 5 computes it. uint8 / uint16 / float32 images of
// 1, 3 or 4 channels go through its float warp kernels (coordinates in float; nearest:
// cvRound; linear: two lerps in float, out-of-range taps from the border); the others
// (int16, float64, 2 channels) through the older fixed-point map: coordinates in 1/1024
// steps, 5-bit sub-pixel weights (15-bit integers for integer images).
#pragma once

#include <cmath>
#include <vector>

#include "imgproc_core.hpp"

namespace ep {
namespace cvk {

// the 2x3 matrix as doubles, inverted unless WARP_INVERSE_MAP (cv::warpAffine)
template <class M>
std::array<double, 6> affine_matrix(const Array<M, 2>& m, bool inverse_map) {
  cv_assert(m.shape[0] == 2 && m.shape[1] == 3, "(M0.type() == CV_32F || M0.type() == CV_64F) && M0.rows == 2 && M0.cols == 3",
            "warpAffine");
  std::array<double, 6> a{};
  for (int i = 0; i < 6; ++i) a[i] = double(m(i / 3, i % 3));
  if (!inverse_map) {
    double D = a[0] * a[4] - a[1] * a[3];
    D = D != 0 ? 1. / D : 0;
    const double A11 = a[4] * D, A22 = a[0] * D;
    a[0] = A11, a[1] *= -D, a[3] *= -D, a[4] = A22;
    const double b1 = -a[0] * a[2] - a[1] * a[5], b2 = -a[3] * a[2] - a[4] * a[5];
    a[2] = b1, a[5] = b2;
  }
  return a;
}

// OpenCV 5's warp kernels (8-bit, 16-bit unsigned, float32 with 1, 3 or 4 channels)
template <class T>
void warp_affine_float(const Img<const T>& s, const Img<T>& d, const std::array<double, 6>& dm, bool linear, int border,
                 const std::array<double, 4>& value) {
  using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
  float M[6];
  for (int i = 0; i < 6; ++i) M[i] = float(dm[i]);
  T bval[4];
  for (int c = 0; c < 4; ++c) bval[c] = sat<T>(value[c]);
  const index_t cn = s.cn;
  const int bx = border != BORDER_CONSTANT && s.cols <= 1 ? BORDER_REPLICATE : border;
  const int by = border != BORDER_CONSTANT && s.rows <= 1 ? BORDER_REPLICATE : border;
  auto fetch = [&](index_t iy, index_t ix, index_t c) -> W {
    if (ix >= 0 && ix < s.cols && iy >= 0 && iy < s.rows) return W(s.row(iy)[ix * cn + c]);
    if (border == BORDER_CONSTANT) return W(bval[c < 4 ? c : 0]);
    return W(s.row(border_index(iy, s.rows, by))[border_index(ix, s.cols, bx) * cn + c]);
  };
  // OpenCV's vector loop covers whole blocks of `lanes` pixels with fused coordinates and lerps
  // (16: its AVX2 build), the scalar loop the rest of a row with plain float arithmetic
  constexpr index_t lanes = 16;
  const index_t vec_end = d.cols / lanes * lanes;
  for (index_t y = 0; y < d.rows; ++y) {
    T* D = d.row(y);
    const float mx = float(y) * M[1] + M[2], my = float(y) * M[4] + M[5];
    for (index_t x = 0; x < d.cols; ++x) {
      const bool vec = x < vec_end;
      float sx = vec ? std::fma(M[0], float(x), mx) : float(x) * M[0] + float(y) * M[1] + M[2];
      float sy = vec ? std::fma(M[3], float(x), my) : float(x) * M[3] + float(y) * M[4] + M[5];
      if (!linear) {
        const index_t ix = cv_round(sx), iy = cv_round(sy);
        for (index_t c = 0; c < cn; ++c) D[x * cn + c] = sat<T>(fetch(iy, ix, c));
        continue;
      }
      const index_t ix = cv_floor(sx), iy = cv_floor(sy);
      sx -= float(ix), sy -= float(iy);
      if (border == BORDER_CONSTANT && (ix < -1 || ix >= s.cols || iy < -1 || iy >= s.rows)) {
        for (index_t c = 0; c < cn; ++c) D[x * cn + c] = bval[c < 4 ? c : 0];
        continue;
      }
      for (index_t c = 0; c < cn; ++c) {
        const W p00 = fetch(iy, ix, c), p01 = fetch(iy, ix + 1, c), p10 = fetch(iy + 1, ix, c), p11 = fetch(iy + 1, ix + 1, c);
        W v0, v1;
        if (vec) {
          v0 = std::fma(W(sx), p01 - p00, p00);
          v1 = std::fma(W(sx), p11 - p10, p10);
          v0 = std::fma(W(sy), v1 - v0, v0);
        } else {
          v0 = p00 + W(sx) * (p01 - p00);
          v1 = p10 + W(sx) * (p11 - p10);
          v0 += W(sy) * (v1 - v0);
        }
        D[x * cn + c] = sat<T>(v0);
      }
    }
  }
}

// cv::warpAffine's remap path: integer source positions plus a 32x32 weight table index
template <class T>
void warp_affine_remap(const Img<const T>& s, const Img<T>& d, const std::array<double, 6>& M, bool linear, int border,
                       const std::array<double, 4>& value) {
  constexpr int AB_BITS = 10, AB_SCALE = 1 << AB_BITS, INTER_BITS = 5, TAB = 1 << INTER_BITS;
  constexpr bool fixpt = std::is_same_v<T, uint8_t>;
  using WT = std::conditional_t<fixpt, int, std::conditional_t<std::is_same_v<T, double>, double, float>>;
  const int round_delta = linear ? AB_SCALE / TAB / 2 : AB_SCALE / 2;
  const index_t cn = s.cn;
  T cval[4];
  for (int c = 0; c < 4; ++c) cval[c] = sat<T>(value[c]);
  std::vector<int> adelta(static_cast<size_t>(d.cols)), bdelta(static_cast<size_t>(d.cols));
  for (index_t x = 0; x < d.cols; ++x) adelta[x] = cv_round(M[0] * x * AB_SCALE), bdelta[x] = cv_round(M[3] * x * AB_SCALE);
  auto px = [&](index_t sy, index_t sx, index_t c) -> T {
    if (sx >= 0 && sx < s.cols && sy >= 0 && sy < s.rows) return s.row(sy)[sx * cn + c];
    if (border == BORDER_CONSTANT) return cval[c < 4 ? c : 0];
    const index_t bx = border_index(sx, s.cols, border), by = border_index(sy, s.rows, border);
    return s.row(by)[bx * cn + c];
  };
  for (index_t y = 0; y < d.rows; ++y) {
    const int X0 = cv_round((M[1] * y + M[2]) * AB_SCALE) + round_delta;
    const int Y0 = cv_round((M[4] * y + M[5]) * AB_SCALE) + round_delta;
    T* D = d.row(y);
    for (index_t x = 0; x < d.cols; ++x) {
      if (!linear) {
        const index_t sx = sat_int<int16_t>((X0 + adelta[x]) >> AB_BITS), sy = sat_int<int16_t>((Y0 + bdelta[x]) >> AB_BITS);
        for (index_t c = 0; c < cn; ++c) D[x * cn + c] = px(sy, sx, c);
        continue;
      }
      const int X = (X0 + adelta[x]) >> (AB_BITS - INTER_BITS), Y = (Y0 + bdelta[x]) >> (AB_BITS - INTER_BITS);
      const index_t sx = sat_int<int16_t>(X >> INTER_BITS), sy = sat_int<int16_t>(Y >> INTER_BITS);
      const int tx = X & (TAB - 1), ty = Y & (TAB - 1);
      if (border == BORDER_CONSTANT && (sx >= s.cols || sx + 1 < 0 || sy >= s.rows || sy + 1 < 0)) {
        for (index_t c = 0; c < cn; ++c) D[x * cn + c] = cval[c < 4 ? c : 0];
        continue;
      }
      WT w[4];
      if constexpr (fixpt) {  // (32 - t) * t products of 1/32 steps, times 2^15
        w[0] = (TAB - tx) * (TAB - ty) * 32, w[1] = tx * (TAB - ty) * 32, w[2] = (TAB - tx) * ty * 32, w[3] = tx * ty * 32;
      } else {
        const float fx = 1.f * tx / TAB, fy = 1.f * ty / TAB;
        const float wx[2] = {1.f - fx, fx}, wy[2] = {1.f - fy, fy};
        w[0] = wy[0] * wx[0], w[1] = wy[0] * wx[1], w[2] = wy[1] * wx[0], w[3] = wy[1] * wx[1];
      }
      for (index_t c = 0; c < cn; ++c) {
        const WT v = px(sy, sx, c) * w[0] + px(sy, sx + 1, c) * w[1] + px(sy + 1, sx, c) * w[2] + px(sy + 1, sx + 1, c) * w[3];
        if constexpr (fixpt) D[x * cn + c] = sat_int<T>((v + (1 << 14)) >> 15);
        else D[x * cn + c] = sat<T>(v);
      }
    }
  }
}

}  // namespace cvk

template <class T, int N, class M>
Array<T, N> cv_warp_affine(const Array<T, N>& src, const Array<M, 2>& m, cvk::Size2 dsize, int flags, int border,
                           const std::array<double, 4>& value) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "warpAffine");
  cvk::cv_assert(s.cols > 0 && s.rows > 0, "src.cols > 0 && src.rows > 0", "warpAffine");
  const auto dm = cvk::affine_matrix(m, flags & 16);
  const index_t w = dsize.width > 0 && dsize.height > 0 ? dsize.width : s.cols;
  const index_t h = dsize.width > 0 && dsize.height > 0 ? dsize.height : s.rows;
  auto out = cvk::new_image<T, N>(h, w, s.cn);
  constexpr bool kernels = std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t> || std::is_same_v<T, float>;
  if (kernels && (s.cn == 1 || s.cn == 3 || s.cn == 4))
    cvk::warp_affine_float(s, cvk::image_of(out), dm, (flags & 7) != 0, border, value);
  else
    cvk::warp_affine_remap(s, cvk::image_of(out), dm, (flags & 7) != 0, border, value);
  return out;
}

}  // namespace ep
