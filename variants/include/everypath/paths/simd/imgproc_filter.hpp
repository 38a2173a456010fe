// cv2.GaussianBlur and cv2.Sobel on the simd path (ep::simd, xsimd): the loops path's
// kernels and arithmetic (ops/imgproc_filter.hpp, imgproc_deriv.hpp) through the
// vectorised separable engine of imgproc_core.hpp. uint8 GaussianBlur keeps OpenCV's
// 8-bit fixed point (its sums fit 32-bit lanes); uint8 -> int16 Sobel with integer
// kernels runs in 32-bit integers when its sums cannot overflow them. Other dtypes, and
// the rare argument values outside that (huge Sobel kernels or deltas), are the loops
// path's own code: the lowering declines the dtypes, the values are handed over here.
#pragma once

#include <cmath>
#include <cstdlib>
#include <vector>

#include "../../ops/imgproc_filter.hpp"
#include "imgproc_core.hpp"

#if defined(EP_HAVE_SIMD)

namespace ep::simd {

template <class T, int N>
Array<T, N> cv_gaussian_blur(const Array<T, N>& src, cvk::Size2 ksize, double sigma1, double sigma2, int border) {
  constexpr bool u8 = std::is_same_v<T, uint8_t>;
  if constexpr (!u8 && !std::is_same_v<T, float>) {
    return ep::cv_gaussian_blur(src, ksize, sigma1, sigma2, border);
  } else {
    // the same checks, kernel sizes and weights as ep::cv_gaussian_blur (cvk::gaussian_plan)
    Array<T, N> keep;
    auto s = cvk::in_image(src, keep, "GaussianBlur");
    cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "GaussianBlur");
    auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
    auto d = cvk::image_of(out);
    const auto plan = cvk::gaussian_plan(s.rows, s.cols, ksize, sigma1, sigma2, border, u8);
    if (plan.copy()) {
      for (index_t y = 0; y < s.rows; ++y) std::copy(s.row(y), s.row(y) + s.width(), d.row(y));
      return out;
    }
    const index_t kw = plan.kw, kh = plan.kh;
    const auto& kx = plan.kx;
    const auto& ky = plan.ky;
    const index_t w = s.width();
    if constexpr (u8) {  // 8 fractional bits per pass: row sums <= 255 * 256, column sums < 2^24
      const auto fx = cvk::fixed_kernel(kx, 8), fy = cvk::fixed_kernel(ky, 8);
      const std::vector<int32_t> ix(fx.begin(), fx.end()), iy(fy.begin(), fy.end());
      cvs::sep_filter<int32_t>(s, ix, iy, kw / 2, kh / 2, border, 0, [&](index_t y, const int32_t* acc) {
        uint8_t* dp = d.row(y);
        for (index_t i = 0; i < w; ++i) dp[i] = uint8_t(std::clamp((acc[i] + (1 << 15)) >> 16, 0, 255));
      });
    } else {
      const std::vector<float> wx(kx.begin(), kx.end()), wy(ky.begin(), ky.end());
      cvs::sep_filter<float>(s, wx, wy, kw / 2, kh / 2, border, 0.f,
                             [&](index_t y, const float* acc) { std::copy(acc, acc + w, d.row(y)); });
    }
    return out;
  }
}

template <class D, class T, int N>
Array<D, N> cv_sobel(const Array<T, N>& src, int64_t dx, int64_t dy, int64_t ksize, double scale, double delta,
                     int border) {
  constexpr bool ok_src = std::is_same_v<T, uint8_t> || std::is_same_v<T, float>;
  constexpr bool ok_dst = std::is_same_v<D, uint8_t> || std::is_same_v<D, int16_t> || std::is_same_v<D, float>;
  if constexpr (!ok_src || !ok_dst) {
    return ep::cv_sobel<D>(src, dx, dy, ksize, scale, delta, border);
  } else {
    Array<T, N> keep;
    auto s = cvk::in_image(src, keep, "Sobel");
    cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "Sobel");
    cvk::cv_assert(dx >= 0 && dy >= 0 && dx + dy > 0, "dx >= 0 && dy >= 0 && dx+dy > 0", "getSobelKernels");
    const auto jx = cvk::deriv_kernel(int(dx), int(ksize), "Sobel"), jy = cvk::deriv_kernel(int(dy), int(ksize), "Sobel");
    std::vector<double> kx(jx.begin(), jx.end()), ky(jy.begin(), jy.end());
    if (scale != 1)  // OpenCV scales the smoothing direction (in float: no float64 here)
      for (double& v : dx == 0 ? kx : ky) v = double(float(v) * float(scale));
    auto out = cvk::new_image<D, N>(s.rows, s.cols, s.cn);
    auto d = cvk::image_of(out);
    const index_t w = s.width(), ax = index_t(kx.size() / 2), ay = index_t(ky.size() / 2);
    if constexpr (std::is_same_v<T, uint8_t> && std::is_same_v<D, int16_t>) {
      // exact integer sums (ep::cvk::deriv_filter) in 32-bit lanes when they cannot overflow them
      auto integral = [](const std::vector<double>& k, double& mag) {
        mag = 0;
        for (double v : k) {
          if (v != std::nearbyint(v)) return false;
          mag += std::fabs(v);
        }
        return true;
      };
      double mx = 0, my = 0;
      if (integral(kx, mx) && integral(ky, my)) {
        const int64_t idelta = int64_t(cvk::cv_round(delta));
        if (255. * mx * my + std::fabs(double(idelta)) >= 2147483647.) return ep::cv_sobel<D>(src, dx, dy, ksize, scale, delta, border);
        const std::vector<int32_t> ix(kx.begin(), kx.end()), iy(ky.begin(), ky.end());
        cvs::sep_filter<int32_t>(s, ix, iy, ax, ay, border, int32_t(idelta), [&](index_t y, const int32_t* acc) {
          int16_t* dp = d.row(y);
          for (index_t i = 0; i < w; ++i) dp[i] = int16_t(std::clamp(acc[i], -32768, 32767));
        });
        return out;
      }
    }
    const std::vector<float> wx(kx.begin(), kx.end()), wy(ky.begin(), ky.end());
    cvs::sep_filter<float>(s, wx, wy, ax, ay, border, float(delta),
                           [&](index_t y, const float* acc) { cvs::store_round(acc, d.row(y), w); });
    return out;
  }
}

}  // namespace ep::simd
#endif
