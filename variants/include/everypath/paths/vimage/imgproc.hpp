// cv2 operators, vimage path (Apple's vImage, part of Accelerate.framework): the same
// signatures as the loops path (ep::cv_* in ops/imgproc*.hpp) in ep::vimage. Only
// apple targets compile this file (the whole file is under __APPLE__; the build adds
// -framework Accelerate when a TU defines EP_HAVE_VIMAGE).
//
// vImage works on planar buffers (one channel, any row stride) of uint8 (Planar8) or
// float (PlanarF). A call vImage cannot answer the way OpenCV does -- another dtype,
// several channels where the op is per-pixel, an even or off-centre kernel, a kernel
// whose fixed-point form overflows vImage's int16 taps, an empty image (whose error the
// loops path raises) -- runs the loops implementation instead, so results never differ
// from the loops path beyond the stated float rounding. Border types vImage lacks
// (REFLECT, REFLECT_101, WRAP for convolutions) are declined when lowering
// (variants/ops/opencv_*.py), as are cv2.resize and cv2.warpAffine: vImage's geometry
// resamples with Lanczos kernels, none of OpenCV's interpolations.
#pragma once

#if defined(__APPLE__)

#include <Accelerate/Accelerate.h>

#include <string>
#include <type_traits>
#include <vector>

#include "../../ops/imgproc.hpp"
#include "../../ops/imgproc_color.hpp"
#include "../../ops/imgproc_filter.hpp"
#include "../../ops/imgproc_morph.hpp"

namespace ep::vimage {

template <class T>
inline constexpr bool planar_v = std::is_same_v<T, uint8_t> || std::is_same_v<T, float>;

// A vImage_Buffer over w elements per row of an image (w = cols for planar images)
template <class T>
vImage_Buffer buffer(const cvk::Img<T>& im, index_t w) {
  vImage_Buffer b;
  b.data = const_cast<std::remove_const_t<T>*>(im.data);
  b.height = vImagePixelCount(im.rows);
  b.width = vImagePixelCount(w);
  b.rowBytes = size_t(im.step) * sizeof(T);
  return b;
}

template <class T>
vImage_Buffer plane(std::vector<T>& data, index_t rows, index_t cols) {
  data.resize(size_t(rows * cols));
  vImage_Buffer b;
  b.data = data.data();
  b.height = vImagePixelCount(rows);
  b.width = vImagePixelCount(cols);
  b.rowBytes = size_t(cols) * sizeof(T);
  return b;
}

inline void check(vImage_Error e, const char* fn) {
  if (e < 0) raise("RuntimeError", std::string("vImage ") + fn + " failed with error " + std::to_string(long(e)));
}

// OpenCV border -> vImage edge mode: BORDER_CONSTANT (0 fill) and BORDER_REPLICATE only
inline vImage_Flags edge(int border) { return border == cvk::BORDER_CONSTANT ? kvImageBackgroundColorFill : kvImageEdgeExtend; }

// cv2.threshold on uint8 images: the loops path thresholds the 256 possible values once,
// vImageTableLookUp_Planar8 maps every pixel through that table (exact by construction).
template <class T, int N>
std::tuple<double, Array<T, N>> cv_threshold(const Array<T, N>& src, double thresh, double maxval, int type) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    if (!(type & 8) && src.size() > 0) {
      Array<uint8_t, 2> all = empty<uint8_t, 2>({1, 256});
      for (int v = 0; v < 256; ++v) all.data[v] = uint8_t(v);
      auto [ret, tab] = ep::cv_threshold(all, thresh, maxval, type);
      Pixel_8 table[256];
      for (int v = 0; v < 256; ++v) table[v] = tab.data[v];
      Array<T, N> keep;
      auto s = cvk::in_image(src, keep, "threshold");
      auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
      auto d = cvk::image_of(out);
      const vImage_Buffer sb = buffer(s, s.width()), db = buffer(d, d.width());
      check(vImageTableLookUp_Planar8(&sb, &db, table, kvImageNoFlags), "TableLookUp_Planar8");
      return {ret, out};
    }
  }
  return ep::cv_threshold(src, thresh, maxval, type);
}

// cv2.cvtColor to gray from 3 or 4 channels: split into planes, then one matrix multiply.
// uint8: OpenCV 5's 15-bit coefficients and rounding ((sum + 2**14) >> 15, as the loops
// path: exact); float32: 0.114 B + 0.587 G + 0.299 R (rounding order may differ by 1 ulp).
template <int Code, int NO, class T, int N>
Array<T, NO> cv_cvt_color(const Array<T, N>& src) {
  constexpr bool gray = Code == 6 || Code == 7 || Code == 10 || Code == 11;
  if constexpr (gray && N == 3 && NO == 2 && planar_v<T>) {
    Array<T, N> keep;
    auto s = cvk::in_image(src, keep, "cvtColor");
    if (s.rows > 0 && s.cols > 0 && (s.cn == 3 || s.cn == 4)) {
      constexpr int bi = (Code == 6 || Code == 10) ? 0 : 2;  // plane of blue
      auto out = cvk::new_image<T, NO>(s.rows, s.cols, 1);
      auto d = cvk::image_of(out);
      std::vector<T> p[4];
      vImage_Buffer pb[4];
      for (int c = 0; c < 4; ++c) pb[c] = plane(p[c], s.rows, s.cols);
      const vImage_Buffer sb = buffer(s, s.cols), db = buffer(d, d.cols);
      const vImage_Buffer* srcs[4] = {&pb[0], &pb[1], &pb[2], &pb[3]};
      const vImage_Buffer* dests[1] = {&db};
      const uint32_t n = uint32_t(s.cn);
      if constexpr (std::is_same_v<T, uint8_t>) {
        if (s.cn == 3) check(vImageConvert_RGB888toPlanar8(&sb, &pb[0], &pb[1], &pb[2], kvImageNoFlags), "RGB888toPlanar8");
        else check(vImageConvert_ARGB8888toPlanar8(&sb, &pb[0], &pb[1], &pb[2], &pb[3], kvImageNoFlags), "ARGB8888toPlanar8");
        int16_t m[4] = {0, int16_t(cvk::GY15), 0, 0};
        m[bi] = int16_t(cvk::BY15);
        m[bi ^ 2] = int16_t(cvk::RY15);
        const int32_t post[4] = {1 << 14, 1 << 14, 1 << 14, 1 << 14};
        check(vImageMatrixMultiply_Planar8(srcs, dests, n, 1, m, 1 << 15, nullptr, post, kvImageNoFlags),
              "MatrixMultiply_Planar8");
      } else {
        if (s.cn == 3) check(vImageConvert_RGBFFFtoPlanarF(&sb, &pb[0], &pb[1], &pb[2], kvImageNoFlags), "RGBFFFtoPlanarF");
        else check(vImageConvert_ARGBFFFFtoPlanarF(&sb, &pb[0], &pb[1], &pb[2], &pb[3], kvImageNoFlags), "ARGBFFFFtoPlanarF");
        float m[4] = {0.f, 0.587f, 0.f, 0.f};
        m[bi] = 0.114f;
        m[bi ^ 2] = 0.299f;
        check(vImageMatrixMultiply_PlanarF(srcs, dests, n, 1, m, nullptr, nullptr, kvImageNoFlags),
              "MatrixMultiply_PlanarF");
      }
      return out;
    }
  }
  return ep::cv_cvt_color<Code, NO>(src);
}

}  // namespace ep::vimage

#include "imgproc_filter.hpp"

#endif
