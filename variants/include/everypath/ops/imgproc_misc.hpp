// cv2 operators, loops path: normalize, integral, equalizeHist, getRotationMatrix2D and
// getStructuringElement (OpenCV's formulas: float scales for convertTo, Point2f centers).
#pragma once

#include <cmath>
#include <string>

#include "imgproc_core.hpp"

namespace ep {
namespace cvk {

// convertTo(dst, D, a, b): saturate(src * a + b), in float unless a double (or int32) is
// involved, with OpenCV's fused multiply-add
template <class D, class T>
void convert_scale(const Img<const T>& s, const Img<D>& d, double a, double b) {
  using W = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<D, double> || std::is_same_v<T, int32_t> ||
                                   std::is_same_v<D, int32_t>, double, float>;
  const W wa = W(a), wb = W(b);
  for (index_t y = 0; y < s.rows; ++y)
    for (index_t i = 0; i < s.width(); ++i) d.row(y)[i] = sat<D>(std::fma(W(s.row(y)[i]), wa, wb));
}

template <class T>
double image_norm(const Img<const T>& s, int type) {
  double acc = 0;
  for (index_t y = 0; y < s.rows; ++y)
    for (index_t i = 0; i < s.width(); ++i) {
      const double v = std::abs(double(s.row(y)[i]));
      if (type == 1) acc = std::max(acc, v);
      else if (type == 2) acc += v;
      else acc += v * v;
    }
  return type == 4 ? std::sqrt(acc) : acc;
}

}  // namespace cvk

// cv2.normalize(src, None, alpha, beta, norm_type, dtype)
template <class D, class T, int N>
Array<D, N> cv_normalize(const Array<T, N>& src, double a, double b, int norm_type) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "normalize");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("normalize");
  double scale = 1, shift = 0;
  if (norm_type == 32) {  // NORM_MINMAX
    double smin = INFINITY, smax = -INFINITY, dmin = std::min(a, b), dmax = std::max(a, b);
    for (index_t y = 0; y < s.rows; ++y)
      for (index_t i = 0; i < s.width(); ++i) {
        smin = std::min(smin, double(s.row(y)[i]));
        smax = std::max(smax, double(s.row(y)[i]));
      }
    scale = (dmax - dmin) * (smax - smin > DBL_EPSILON ? 1. / (smax - smin) : 0);
    if constexpr (std::is_same_v<D, float>) {
      scale = float(scale);
      shift = float(dmin) - float(smin * scale);
    } else {
      shift = dmin - smin * scale;
    }
  } else {
    scale = cvk::image_norm(s, norm_type);
    scale = scale > DBL_EPSILON ? a / scale : 0.;
  }
  auto out = cvk::new_image<D, N>(s.rows, s.cols, s.cn);
  cvk::convert_scale(s, cvk::image_of(out), scale, shift);
  return out;
}

// cv2.integral: (rows + 1, cols + 1) sums, a zero first row and column
template <class D, class T, int N>
Array<D, N> cv_integral(const Array<T, N>& src) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "integral");
  auto out = cvk::new_image<D, N>(s.rows + 1, s.cols + 1, s.cn);
  auto d = cvk::image_of(out);
  std::fill(d.row(0), d.row(0) + d.width(), D(0));
  for (index_t y = 0; y < s.rows; ++y) {
    D* dp = d.row(y + 1);
    const D* up = d.row(y);
    for (index_t c = 0; c < s.cn; ++c) {
      D acc = 0;
      dp[c] = 0;
      for (index_t x = 0; x < s.cols; ++x) {
        acc += D(s.row(y)[x * s.cn + c]);
        dp[(x + 1) * s.cn + c] = up[(x + 1) * s.cn + c] + acc;
      }
    }
  }
  return out;
}

template <class T, int N>
Array<T, N> cv_equalize_hist(const Array<T, N>& src) {
  static_assert(std::is_same_v<T, uint8_t> && N == 2);
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "equalizeHist");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("equalizeHist");
  int hist[256] = {0};
  for (index_t y = 0; y < s.rows; ++y)
    for (index_t x = 0; x < s.cols; ++x) hist[s.row(y)[x]]++;
  uint8_t lut[256];
  int i = 0;
  while (!hist[i]) ++i;
  const int total = int(s.rows * s.cols);
  if (hist[i] == total) {
    std::fill(lut, lut + 256, uint8_t(i));
  } else {
    const float scale = (256 - 1.f) / (total - hist[i]);
    int sum = 0;
    for (lut[i++] = 0; i < 256; ++i) {
      sum += hist[i];
      lut[i] = cvk::sat<uint8_t>(sum * scale);
    }
  }
  return cvk::map_pixels<T, N>(s, [&](T v) { return lut[v]; });
}

// cv2.getRotationMatrix2D: the center is a cv::Point2f
inline Array<double, 2> cv_rotation_matrix(cvk::Point2d center, double angle, double scale) {
  const double cx = float(center.x), cy = float(center.y);
  angle *= M_PI / 180;
  const double alpha = std::cos(angle) * scale, beta = std::sin(angle) * scale;
  auto m = empty<double, 2>({2, 3});
  const double v[6] = {alpha, beta, (1 - alpha) * cx - beta * cy, -beta, alpha, beta * cx + (1 - alpha) * cy};
  std::copy(v, v + 6, m.data);
  return m;
}

// cv2.getStructuringElement(MORPH_RECT / MORPH_CROSS / MORPH_ELLIPSE, (w, h), anchor)
inline Array<uint8_t, 2> cv_structuring_element(int shape, cvk::Size2 ksize, cvk::Size2 anchor) {
  const index_t w = ksize.width, h = ksize.height;
  const index_t ax = anchor.width == -1 ? w / 2 : anchor.width, ay = anchor.height == -1 ? h / 2 : anchor.height;
  if (ax < 0 || ay < 0 || ax >= w || ay >= h) cvk::cv_fail("anchor.inside(Rect(0, 0, ksize.width, ksize.height))", "normalizeAnchor");
  if (w == 1 && h == 1) shape = 0;
  const index_t r = h / 2, c = w / 2;
  const double inv_r2 = r ? 1. / (double(r) * r) : 0;
  auto e = empty<uint8_t, 2>({h, w});
  for (index_t i = 0; i < h; ++i) {
    index_t j1 = 0, j2 = 0;
    if (shape == 0 || (shape == 1 && i == ay)) {
      j2 = w;
    } else if (shape == 1) {
      j1 = ax, j2 = ax + 1;
    } else {
      const index_t dy = i - r;
      if (std::abs(dy) <= r) {
        const index_t dx = cvk::cv_round(c * std::sqrt((r * r - dy * dy) * inv_r2));
        j1 = std::max<index_t>(c - dx, 0);
        j2 = std::min<index_t>(c + dx + 1, w);
      }
    }
    for (index_t j = 0; j < w; ++j) e.data[i * w + j] = j >= j1 && j < j2;
  }
  return e;
}

}  // namespace ep
