// cv2 operators, loops path: flip, transpose, copyMakeBorder, threshold (with Otsu),
// addWeighted, normalize, integral, equalizeHist, getRotationMatrix2D and
// getStructuringElement, with OpenCV's arithmetic (saturate_cast, float scales).
// The opencv path (paths/opencv/imgproc.hpp) has the same signatures in ep::opencv.
#pragma once

#include <cfloat>
#include <cmath>
#include <string>
#include <tuple>

#include "imgproc_core.hpp"

namespace ep {
namespace cvk {

// dst(y, x) = f(src pixel row pointer, x, channel) written for every pixel of an image
template <class T, int N, class F>
Array<T, N> map_pixels(const Img<const T>& s, F&& f) {
  auto out = new_image<T, N>(s.rows, s.cols, s.cn);
  auto d = image_of(out);
  for (index_t y = 0; y < s.rows; ++y) {
    const T* sp = s.row(y);
    T* dp = d.row(y);
    for (index_t i = 0; i < s.width(); ++i) dp[i] = f(sp[i]);
  }
  return out;
}

template <class T>
int64_t otsu_threshold(const Img<const T>& s) {
  constexpr int n = std::is_same_v<T, uint8_t> ? 256 : 65536;
  std::vector<int> h(n, 0);
  for (index_t y = 0; y < s.rows; ++y)
    for (index_t x = 0; x < s.cols; ++x) h[s.row(y)[x]]++;
  double mu = 0, scale = 1. / static_cast<double>(s.rows * s.cols);
  for (int i = 0; i < n; ++i) mu += i * static_cast<double>(h[i]);
  mu *= scale;
  double mu1 = 0, q1 = 0, max_sigma = 0;
  int64_t max_val = 0;
  for (int i = 0; i < n; ++i) {  // getThreshVal_Otsu, operation for operation
    double p_i = h[i] * scale;
    mu1 *= q1;
    q1 += p_i;
    double q2 = 1. - q1;
    if (std::min(q1, q2) < FLT_EPSILON || std::max(q1, q2) > 1. - FLT_EPSILON) continue;
    mu1 = (mu1 + i * p_i) / q1;
    double mu2 = (mu - q1 * mu1) / q2;
    double sigma = q1 * q2 * (mu1 - mu2) * (mu1 - mu2);
    if (sigma > max_sigma) {
      max_sigma = sigma;
      max_val = i;
    }
  }
  return max_val;
}

// The comparisons are written as OpenCV's kernels make them, which decides what a NaN
// gives: float32 keeps NaN for TRUNC / TOZERO / TOZERO_INV, float64 does not.
template <class T, int N>
Array<T, N> threshold_apply(const Img<const T>& s, T th, T mx, int type) {
  constexpr bool f32 = std::is_same_v<T, float>;
  switch (type) {
    case 0: return map_pixels<T, N>(s, [=](T v) { return v > th ? mx : T(0); });
    case 1: return map_pixels<T, N>(s, [=](T v) { return v <= th ? mx : T(0); });
    case 2: return map_pixels<T, N>(s, [=](T v) { return f32 ? (th < v ? th : v) : (v <= th ? v : th); });
    case 3: return map_pixels<T, N>(s, [=](T v) { return f32 ? (v <= th ? T(0) : v) : (v > th ? v : T(0)); });
    default: return map_pixels<T, N>(s, [=](T v) { return f32 ? (v > th ? T(0) : v) : (v <= th ? v : T(0)); });
  }
}

// The integer depths' clamping of thresh/maxval before thresholding (cv::threshold).
template <class T, int N>
std::tuple<double, Array<T, N>> threshold_int(const Img<const T>& s, double thresh, double maxval, int type) {
  const int ithresh = cv_floor(thresh);
  int imaxval = cv_round(maxval);
  if (type == 2) imaxval = ithresh;
  imaxval = sat_int<T>(imaxval);
  constexpr int lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
  if (ithresh < lo || ithresh >= hi) {
    if (type == 0 || type == 1 || ((type == 2 || type == 4) && ithresh < lo) || (type == 3 && ithresh >= hi)) {
      const int v = type == 0 ? (ithresh >= hi ? 0 : imaxval) : type == 1 ? (ithresh >= hi ? imaxval : 0) : 0;
      return {double(ithresh), map_pixels<T, N>(s, [=](T) { return T(v); })};
    }
    return {double(ithresh), map_pixels<T, N>(s, [](T v) { return v; })};
  }
  return {double(ithresh), threshold_apply<T, N>(s, T(ithresh), T(imaxval), type)};
}

}  // namespace cvk

template <class T, int N>
Array<T, N> cv_flip(const Array<T, N>& src, int64_t code) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "flip");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("flip");
  auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
  auto d = cvk::image_of(out);
  const bool rows = code <= 0, cols = code != 0;
  for (index_t y = 0; y < s.rows; ++y) {
    const T* sp = s.row(rows ? s.rows - 1 - y : y);
    T* dp = d.row(y);
    for (index_t x = 0; x < s.cols; ++x) {
      const T* px = sp + (cols ? s.cols - 1 - x : x) * s.cn;
      for (index_t c = 0; c < s.cn; ++c) dp[x * s.cn + c] = px[c];
    }
  }
  return out;
}

template <class T, int N>
Array<T, N> cv_transpose(const Array<T, N>& src) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "transpose");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("transpose");
  auto out = cvk::new_image<T, N>(s.cols, s.rows, s.cn);
  auto d = cvk::image_of(out);
  for (index_t y = 0; y < d.rows; ++y)
    for (index_t x = 0; x < d.cols; ++x)
      for (index_t c = 0; c < s.cn; ++c) d.row(y)[x * s.cn + c] = s.row(x)[y * s.cn + c];
  return out;
}

template <class T, int N>
Array<T, N> cv_copy_make_border(const Array<T, N>& src, int64_t top, int64_t bottom, int64_t left, int64_t right,
                                int border, const std::array<double, 4>& value) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "copyMakeBorder");
  cvk::check_border_args(s, top, bottom, left, right, border, value);
  auto out = cvk::new_image<T, N>(s.rows + top + bottom, s.cols + left + right, s.cn);
  auto d = cvk::image_of(out);
  T fill[4];
  for (int c = 0; c < 4; ++c) fill[c] = cvk::sat<T>(value[c]);
  for (index_t y = 0; y < d.rows; ++y) {
    const index_t sy = cvk::border_index(y - top, s.rows, border);
    T* dp = d.row(y);
    for (index_t x = 0; x < d.cols; ++x) {
      const index_t sx = cvk::border_index(x - left, s.cols, border);
      for (index_t c = 0; c < s.cn; ++c)
        dp[x * s.cn + c] = (sy < 0 || sx < 0) ? fill[c < 4 ? c : 0] : s.row(sy)[sx * s.cn + c];
    }
  }
  return out;
}

template <class T, int N>
std::tuple<double, Array<T, N>> cv_threshold(const Array<T, N>& src, double thresh, double maxval, int type) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "threshold");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("threshold");
  const int base = type & 7;
  if (type & 8) {  // THRESH_OTSU (1-channel uint8 / uint16, checked when typing)
    if constexpr (std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>) thresh = double(cvk::otsu_threshold(s));
  }
  if constexpr (std::is_integral_v<T>) {
    return cvk::threshold_int<T, N>(s, thresh, maxval, base);
  } else {
    return {thresh, cvk::threshold_apply<T, N>(s, T(thresh), T(maxval), base)};
  }
}

// dst = saturate(src1 * alpha + src2 * beta + gamma), computed in float (double for
// float64) with two fused multiply-adds like OpenCV's vector kernel
template <class D, class T, int N>
Array<D, N> cv_add_weighted(const Array<T, N>& a, double alpha, const Array<T, N>& b, double beta, double gamma) {
  Array<T, N> ka, kb;
  auto s1 = cvk::in_image(a, ka, "addWeighted");
  auto s2 = cvk::in_image(b, kb, "addWeighted");
  if (s1.rows != s2.rows || s1.cols != s2.cols || s1.cn != s2.cn)
    cvk::cv_fail("The operation is neither 'array op array' (where arrays have the same size and the same number of "
                 "channels), nor 'array op scalar', nor 'scalar op array'", "arithm_op", "-209:Sizes of input arguments do not match");
  if (s1.rows == 0 || s1.cols == 0) cvk::none_result("addWeighted");
  using W = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<D, double>, double, float>;
  const W wa = W(alpha), wb = W(beta), wg = W(gamma);
  auto out = cvk::new_image<D, N>(s1.rows, s1.cols, s1.cn);
  auto d = cvk::image_of(out);
  for (index_t y = 0; y < s1.rows; ++y)
    for (index_t i = 0; i < s1.width(); ++i)
      d.row(y)[i] = cvk::sat<D>(std::fma(W(s1.row(y)[i]), wa, std::fma(W(s2.row(y)[i]), wb, wg)));
  return out;
}

}  // namespace ep

#include "imgproc_misc.hpp"
