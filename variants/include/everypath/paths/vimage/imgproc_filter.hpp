// cv2 filters, vimage path (included by paths/vimage/imgproc.hpp, Apple targets only):
// GaussianBlur, blur / boxFilter and filter2D through vImageConvolve_Planar8 / PlanarF,
// erode / dilate through vImageMin_* / vImageMax_*. Planar (2-d) uint8 and float32
// images; anything else runs the loops implementation (see imgproc.hpp).
//
// Exactness: for uint8, vImageConvolve_Planar8 computes (sum + divisor / 2) / divisor
// over int16 taps, which is exactly OpenCV's fixed point: GaussianBlur (8-bit taps per
// pass, (sum + 2**15) >> 16 -> the 2-d kernel fx * fy over divisor 65536) and the
// normalised box filter for areas of 3..256 pixels (OpenCV's (s + dd) * ds >> 23 equals
// round-half-up of s / area there; checked for every odd area). Float32 results round
// differently from OpenCV's separable passes (a few ulp). A rectangular min / max over a
// centred window equals OpenCV's erode / dilate for the default border value and for
// BORDER_REPLICATE / REFLECT / REFLECT_101 (the mirrored pixels are inside the window).
#pragma once

#if defined(__APPLE__)

#include <cmath>
#include <vector>

namespace ep::vimage {

template <class T, int N>
Array<T, N> cv_gaussian_blur(const Array<T, N>& src, cvk::Size2 ksize, double sigma1, double sigma2, int border) {
  if constexpr (N == 2 && planar_v<T>) {
    if (src.size() > 0) {
      // sizes, weights and OpenCV's errors exactly as the loops path computes them
      const auto plan = cvk::gaussian_plan(src.shape[0], src.shape[1], ksize, sigma1, sigma2, border,
                                           std::is_same_v<T, uint8_t>);
      if (!plan.copy()) {
        const index_t kw = plan.kw, kh = plan.kh;
        const auto& kx = plan.kx;
        const auto& ky = plan.ky;
        Array<T, N> keep;
        auto s = cvk::in_image(src, keep, "GaussianBlur");
        const vImage_Buffer sb = buffer(s, s.cols);
        if constexpr (std::is_same_v<T, uint8_t>) {
          // a 1-tap side contributes 1 (not 256) and drops 8 bits from the divisor: same result
          const auto fx = kw > 1 ? cvk::fixed_kernel(kx, 8) : std::vector<int64_t>{1};
          const auto fy = kh > 1 ? cvk::fixed_kernel(ky, 8) : std::vector<int64_t>{1};
          std::vector<int16_t> k(static_cast<size_t>(kw * kh));
          bool fits = true;
          for (index_t j = 0; j < kh; ++j)
            for (index_t i = 0; i < kw; ++i) {
              const int64_t v = fy[j] * fx[i];
              fits = fits && v >= 0 && v <= 32767;
              k[j * kw + i] = int16_t(v);
            }
          if (fits) {
            auto out = cvk::new_image<T, N>(s.rows, s.cols, 1);
            const auto d = cvk::image_of(out);
            const vImage_Buffer db = buffer(d, d.cols);
            const int32_t divisor = int32_t((kw > 1 ? 256 : 1) * (kh > 1 ? 256 : 1));
            check(vImageConvolve_Planar8(&sb, &db, nullptr, 0, 0, k.data(), uint32_t(kh), uint32_t(kw), divisor, 0,
                                         edge(border)), "Convolve_Planar8");
            return out;
          }
        } else {
          std::vector<float> k(static_cast<size_t>(kw * kh));
          for (index_t j = 0; j < kh; ++j)
            for (index_t i = 0; i < kw; ++i) k[j * kw + i] = float(ky[j] * kx[i]);
          auto out = cvk::new_image<T, N>(s.rows, s.cols, 1);
          const auto d = cvk::image_of(out);
          const vImage_Buffer db = buffer(d, d.cols);
          check(vImageConvolve_PlanarF(&sb, &db, nullptr, 0, 0, k.data(), uint32_t(kh), uint32_t(kw), 0.0f,
                                       edge(border)), "Convolve_PlanarF");
          return out;
        }
      }
    }
  }
  return ep::cv_gaussian_blur(src, ksize, sigma1, sigma2, border);
}

template <class T, int N>
Array<T, N> cv_box_filter(const Array<T, N>& src, cvk::Size2 ksize, cvk::Size2 anchor, bool normalize, int border) {
  if constexpr (N == 2 && planar_v<T>) {
    const index_t kw = ksize.width, kh = ksize.height, area = kw * kh;
    const bool centred = (anchor.width == -1 || anchor.width == kw / 2) && (anchor.height == -1 || anchor.height == kh / 2);
    const bool u8 = std::is_same_v<T, uint8_t>;
    // uint8: OpenCV's normalised sums are exact round-half-up for 3..256 pixels; raw sums saturate
    const bool ok_u8 = normalize ? (area >= 3 && area <= 256) : (area >= 1 && area * 255 < (1 << 23));
    if (src.size() > 0 && kw > 0 && kh > 0 && kw % 2 == 1 && kh % 2 == 1 && centred && (!u8 || ok_u8)) {
      Array<T, N> keep;
      auto s = cvk::in_image(src, keep, "boxFilter");
      auto out = cvk::new_image<T, N>(s.rows, s.cols, 1);
      const auto d = cvk::image_of(out);
      const vImage_Buffer sb = buffer(s, s.cols), db = buffer(d, d.cols);
      if constexpr (std::is_same_v<T, uint8_t>) {
        const std::vector<int16_t> k(static_cast<size_t>(area), int16_t(1));
        check(vImageConvolve_Planar8(&sb, &db, nullptr, 0, 0, k.data(), uint32_t(kh), uint32_t(kw),
                                     normalize ? int32_t(area) : 1, 0, edge(border)), "Convolve_Planar8");
      } else {
        const std::vector<float> k(static_cast<size_t>(area), normalize ? float(1.0 / double(area)) : 1.0f);
        check(vImageConvolve_PlanarF(&sb, &db, nullptr, 0, 0, k.data(), uint32_t(kh), uint32_t(kw), 0.0f,
                                     edge(border)), "Convolve_PlanarF");
      }
      return out;
    }
  }
  return ep::cv_box_filter(src, ksize, anchor, normalize, border);
}

// float32 -> float32 only (OpenCV's uint8 filter2D rounds float sums, which int16 taps cannot match)
template <class D, class T, int N, class K>
Array<D, N> cv_filter2d(const Array<T, N>& src, const Array<K, 2>& kernel, cvk::Size2 anchor, double delta, int border) {
  if constexpr (N == 2 && std::is_same_v<T, float> && std::is_same_v<D, float>) {
    const index_t kh = kernel.shape[0], kw = kernel.shape[1];
    const bool centred = (anchor.width == -1 || anchor.width == kw / 2) && (anchor.height == -1 || anchor.height == kh / 2);
    if (src.size() > 0 && kw % 2 == 1 && kh % 2 == 1 && centred) {
      Array<T, N> keep;
      Array<K, 2> kkeep;
      auto s = cvk::in_image(src, keep, "filter2D");
      auto ki = cvk::in_image(kernel, kkeep, "filter2D");
      std::vector<float> k(static_cast<size_t>(kw * kh));
      for (index_t j = 0; j < kh; ++j)
        for (index_t i = 0; i < kw; ++i) k[j * kw + i] = float(ki.row(j)[i]);
      auto out = cvk::new_image<D, N>(s.rows, s.cols, 1);
      const auto d = cvk::image_of(out);
      const vImage_Buffer sb = buffer(s, s.cols), db = buffer(d, d.cols);
      check(vImageConvolveWithBias_PlanarF(&sb, &db, nullptr, 0, 0, k.data(), uint32_t(kh), uint32_t(kw),
                                           float(delta), 0.0f, edge(border)), "ConvolveWithBias_PlanarF");
      return out;
    }
  }
  return ep::cv_filter2d<D>(src, kernel, anchor, delta, border);
}

// erode (op 0) / dilate (op 1) with a full rectangular, centred, odd-sized window
template <class T, int N, class Kernel>
Array<T, N> cv_morphology(const Array<T, N>& src, int op, const Kernel& kernel, cvk::Size2 anchor, int64_t iterations,
                          int border, const std::array<double, 4>& value, bool default_value) {
  if constexpr (N == 2 && planar_v<T>) {
    const bool borders_agree = border != cvk::BORDER_WRAP && (border != cvk::BORDER_CONSTANT || default_value);
    if ((op == 0 || op == 1) && src.size() > 0 && iterations >= 1 && borders_agree) {
      cvk::MorphPlan plan;
      if constexpr (std::is_same_v<Kernel, None>) {
        plan = cvk::morph_plan<uint8_t>(nullptr, anchor, iterations);
      } else {
        Kernel kkeep;
        auto k = cvk::in_image(kernel, kkeep, op == 0 ? "erode" : "dilate");
        plan = cvk::morph_plan(&k, anchor, iterations);
      }
      const bool rect = !plan.copy && plan.iterations == 1 && index_t(plan.dy.size()) == plan.kw * plan.kh;
      if (rect && plan.kw % 2 == 1 && plan.kh % 2 == 1 && plan.ax == plan.kw / 2 && plan.ay == plan.kh / 2) {
        Array<T, N> keep;
        auto s = cvk::in_image(src, keep, op == 0 ? "erode" : "dilate");
        auto out = cvk::new_image<T, N>(s.rows, s.cols, 1);
        const auto d = cvk::image_of(out);
        const vImage_Buffer sb = buffer(s, s.cols), db = buffer(d, d.cols);
        const auto kh = vImagePixelCount(plan.kh), kw = vImagePixelCount(plan.kw);
        if constexpr (std::is_same_v<T, uint8_t>) {
          check(op == 0 ? vImageMin_Planar8(&sb, &db, nullptr, 0, 0, kh, kw, kvImageNoFlags)
                        : vImageMax_Planar8(&sb, &db, nullptr, 0, 0, kh, kw, kvImageNoFlags), "Min/Max_Planar8");
        } else {
          check(op == 0 ? vImageMin_PlanarF(&sb, &db, nullptr, 0, 0, kh, kw, kvImageNoFlags)
                        : vImageMax_PlanarF(&sb, &db, nullptr, 0, 0, kh, kw, kvImageNoFlags), "Min/Max_PlanarF");
        }
        return out;
      }
    }
  }
  return ep::cv_morphology(src, op, kernel, anchor, iterations, border, value, default_value);
}

}  // namespace ep::vimage

#endif
