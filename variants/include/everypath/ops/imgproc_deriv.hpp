// cv2.Sobel / Scharr / Laplacian / filter2D, loops path. As in OpenCV: uint8 -> int16 with
// integer kernels runs in exact integer arithmetic, everything else in float (double
// when a float64 image or result is involved); filter2D accumulates its non-zero taps
// in row-major order with fused multiply-adds, like OpenCV's vector loop.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "imgproc_core.hpp"
#include "imgproc_filter.hpp"

namespace ep {
namespace cvk {

// getSobelKernels / the Scharr kernels (ksize -1) for one direction of derivative order
inline std::vector<int> deriv_kernel(int order, int ksize, const char* fn) {
  if (ksize == -1) return order == 0 ? std::vector<int>{3, 10, 3} : std::vector<int>{-1, 0, 1};
  if (ksize == 1 && order > 0) ksize = 3;
  if (ksize < 1 || ksize % 2 == 0 || ksize > 31)
    cv_fail("The kernel size must be odd and not larger than 31", "getSobelKernels", "-211:One of the arguments' values is out of range");
  if (ksize <= order) cv_fail("ksize > order", "getSobelKernels");
  (void)fn;
  std::vector<int> k(static_cast<size_t>(ksize + 1), 0);
  if (ksize == 1) return {1};
  if (ksize == 3) {
    if (order == 0) return {1, 2, 1};
    if (order == 1) return {-1, 0, 1};
    return {1, -2, 1};
  }
  k[0] = 1;
  for (int i = 0; i < ksize - order - 1; ++i) {
    int old = k[0];
    for (int j = 1; j <= ksize; ++j) {
      const int nv = k[j] + k[j - 1];
      k[j - 1] = old;
      old = nv;
    }
  }
  for (int i = 0; i < order; ++i) {
    int old = -k[0];
    for (int j = 1; j <= ksize; ++j) {
      const int nv = k[j - 1] - k[j];
      k[j - 1] = old;
      old = nv;
    }
  }
  k.resize(static_cast<size_t>(ksize));
  return k;
}

// sepFilter2D as cv::Sobel calls it: integer arithmetic for uint8 -> int16 when both
// kernels are integers, else W (float, or double when 64F is involved)
template <class D, class T>
void deriv_filter(const Img<const T>& s, const Img<D>& d, const std::vector<double>& kx, const std::vector<double>& ky,
                  double delta, int border) {
  auto integral = [](const std::vector<double>& k) {
    for (double v : k)
      if (v != std::nearbyint(v)) return false;
    return true;
  };
  if constexpr (std::is_same_v<T, uint8_t> && std::is_same_v<D, int16_t>) {
    if (integral(kx) && integral(ky)) {
      const std::vector<int64_t> ix(kx.begin(), kx.end()), iy(ky.begin(), ky.end());
      sep_filter<int64_t>(s, ix, iy, index_t(ix.size() / 2), index_t(iy.size() / 2), border, int64_t(cv_round(delta)),
                          [&](index_t y, index_t i, int64_t acc) { d.row(y)[i] = sat_int<D>(acc); });
      return;
    }
  }
  using W = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<D, double>, double, float>;
  const std::vector<W> wx(kx.begin(), kx.end()), wy(ky.begin(), ky.end());
  sep_filter<W>(s, wx, wy, index_t(wx.size() / 2), index_t(wy.size() / 2), border, W(delta),
                [&](index_t y, index_t i, W acc) { d.row(y)[i] = sat<D>(acc); });
}

template <class D, class T, int N>
Array<D, N> sobel_like(const Array<T, N>& src, int dx, int dy, int ksize, double scale, double delta, int border,
                       const char* fn) {
  Array<T, N> keep;
  auto s = in_image(src, keep, fn);
  cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", fn);
  if (ksize == -1) cv_assert(dx >= 0 && dy >= 0 && dx + dy == 1, "dx >= 0 && dy >= 0 && dx+dy == 1", "getScharrKernels");
  else cv_assert(dx >= 0 && dy >= 0 && dx + dy > 0, "dx >= 0 && dy >= 0 && dx+dy > 0", "getSobelKernels");
  const auto ix = deriv_kernel(dx, ksize, fn), iy = deriv_kernel(dy, ksize, fn);
  std::vector<double> kx(ix.begin(), ix.end()), ky(iy.begin(), iy.end());
  if (scale != 1) {  // OpenCV scales the smoothing direction
    using K = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<D, double>, double, float>;
    for (double& v : dx == 0 ? kx : ky) v = double(K(v) * K(scale));
  }
  auto out = new_image<D, N>(s.rows, s.cols, s.cn);
  deriv_filter(s, image_of(out), kx, ky, delta, border);
  return out;
}

// filter2D's direct loop: out = sat(delta + sum of k * pixel over the non-zero taps)
template <class D, class W, class T>
void filter2d(const Img<const T>& s, const Img<D>& d, const std::vector<W>& k, index_t kw, index_t kh, Size2 a,
              W delta, int border) {
  const auto xt = border_table(s.cols, a.width, kw - 1 - a.width, border);
  const auto yt = border_table(s.rows, a.height, kh - 1 - a.height, border);
  std::vector<index_t> ty, tx;
  std::vector<W> kv;
  for (index_t y = 0; y < kh; ++y)
    for (index_t x = 0; x < kw; ++x)
      if (k[y * kw + x] != W(0)) ty.push_back(y), tx.push_back(x), kv.push_back(k[y * kw + x]);
  for (index_t y = 0; y < s.rows; ++y)
    for (index_t x = 0; x < s.cols; ++x)
      for (index_t c = 0; c < s.cn; ++c) {
        W acc = delta;
        for (size_t t = 0; t < kv.size(); ++t) {
          const index_t sy = yt[y + ty[t]], sx = xt[x + tx[t]];
          const W v = (sy < 0 || sx < 0) ? W(0) : W(s.row(sy)[sx * s.cn + c]);
          acc = std::fma(v, kv[t], acc);
        }
        d.row(y)[x * s.cn + c] = sat<D>(acc);
      }
}

template <class D, class T, class K>
void filter2d_run(const Img<const T>& s, const Img<D>& d, const Img<const K>& kern, Size2 anchor, double delta,
                  int border) {
  using W = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<D, double>, double, float>;
  std::vector<W> k(static_cast<size_t>(kern.rows * kern.cols));
  for (index_t y = 0; y < kern.rows; ++y)
    for (index_t x = 0; x < kern.cols; ++x) k[y * kern.cols + x] = W(kern.row(y)[x]);
  const Size2 a = normalize_anchor(anchor, kern.cols, kern.rows);
  filter2d(s, d, k, kern.cols, kern.rows, a, W(delta), border);
}

}  // namespace cvk

template <class D, class T, int N>
Array<D, N> cv_sobel(const Array<T, N>& src, int64_t dx, int64_t dy, int64_t ksize, double scale, double delta,
                     int border) {
  return cvk::sobel_like<D>(src, int(dx), int(dy), int(ksize), scale, delta, border, "Sobel");
}

template <class D, class T, int N>
Array<D, N> cv_scharr(const Array<T, N>& src, int64_t dx, int64_t dy, double scale, double delta, int border) {
  return cvk::sobel_like<D>(src, int(dx), int(dy), -1, scale, delta, border, "Scharr");
}

template <class D, class T, int N, class K>
Array<D, N> cv_filter2d(const Array<T, N>& src, const Array<K, 2>& kernel, cvk::Size2 anchor, double delta, int border) {
  Array<T, N> keep;
  Array<K, 2> kkeep;
  auto s = cvk::in_image(src, keep, "filter2D");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "filter2D");
  auto k = cvk::in_image(kernel, kkeep, "filter2D");
  auto out = cvk::new_image<D, N>(s.rows, s.cols, s.cn);
  cvk::filter2d_run(s, cvk::image_of(out), k, anchor, delta, border);
  return out;
}

template <class D, class T, int N>
Array<D, N> cv_laplacian(const Array<T, N>& src, int64_t ksize, double scale, double delta, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "Laplacian");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "Laplacian");
  auto out = cvk::new_image<D, N>(s.rows, s.cols, s.cn);
  auto d = cvk::image_of(out);
  if (ksize == 1 || ksize == 3) {  // filter2D with a 3x3 float kernel, scaled
    static const float K[2][9] = {{0, 1, 0, 1, -4, 1, 0, 1, 0}, {2, 0, 2, 0, -8, 0, 2, 0, 2}};
    using W = std::conditional_t<std::is_same_v<T, double> || std::is_same_v<D, double>, double, float>;
    std::vector<W> k(9);
    for (int i = 0; i < 9; ++i) k[i] = W(K[ksize == 3][i] * float(scale));
    cvk::filter2d(s, d, k, 3, 3, cvk::Size2{1, 1}, W(delta), border);
    return out;
  }
  // d2x + d2y in the work depth (int16 for uint8 and ksize <= 5), then convertTo(scale, delta)
  const auto kd = cvk::deriv_kernel(2, int(ksize), "Laplacian"), ks = cvk::deriv_kernel(0, int(ksize), "Laplacian");
  const std::vector<double> d2(kd.begin(), kd.end()), sm(ks.begin(), ks.end());
  auto combine = [&](auto work) {
    using Wk = decltype(work);
    auto a = cvk::new_image<Wk, N>(s.rows, s.cols, s.cn), b = cvk::new_image<Wk, N>(s.rows, s.cols, s.cn);
    cvk::deriv_filter(s, cvk::image_of(a), d2, sm, 0, border);
    cvk::deriv_filter(s, cvk::image_of(b), sm, d2, 0, border);
    using C = std::conditional_t<std::is_same_v<D, double> || std::is_same_v<Wk, double>, double, float>;
    for (index_t i = 0; i < a.size(); ++i) {
      const Wk sum = cvk::sat_any<Wk>(a.data[i] + b.data[i]);
      d.data[i] = (scale == 1 && delta == 0) ? cvk::sat_any<D>(sum) : cvk::sat<D>(std::fma(C(sum), C(scale), C(delta)));
    }
  };
  if (std::is_same_v<T, uint8_t> && ksize <= 5) combine(int16_t(0));
  else if (std::is_same_v<T, double>) combine(double(0));
  else combine(float(0));
  return out;
}

}  // namespace ep
