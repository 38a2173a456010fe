// cv2.resize, loops path, as cv::hal::resize computes it: NEAREST with floor(x / scale),
// LINEAR / CUBIC / LANCZOS4 as separable passes with float coefficients (11-bit fixed
// point and OpenCV's vector-loop rounding for uint8), AREA as block means for integer
// factors (the 2x2 uint8/16-bit blocks round (sum + 2) >> 2) or weighted cells otherwise.
// OpenCV 5's cv2 hands float LINEAR and all CUBIC to Intel IPP, which rounds
// differently; tests/variants/test_opencv_cpp.py states the tolerances.
#pragma once

#include <cfloat>
#include <cmath>
#include <vector>

#include "imgproc_core.hpp"

namespace ep {
namespace cvk {

enum : int { INTER_NEAREST = 0, INTER_LINEAR = 1, INTER_CUBIC = 2, INTER_AREA = 3, INTER_LANCZOS4 = 4 };

inline void interp_cubic(float x, float* c) {
  const float A = -0.75f;
  c[0] = ((A * (x + 1) - 5 * A) * (x + 1) + 8 * A) * (x + 1) - 4 * A;
  c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
  c[2] = ((A + 2) * (1 - x) - (A + 3)) * (1 - x) * (1 - x) + 1;
  c[3] = 1.f - c[0] - c[1] - c[2];
}

inline void interp_lanczos4(float x, float* c) {
  static const double s45 = 0.70710678118654752440084436210485;
  static const double cs[][2] = {{1, 0}, {-s45, -s45}, {0, 1}, {s45, -s45}, {-1, 0}, {s45, s45}, {0, -1}, {-s45, s45}};
  float sum = 0;
  const double y0 = -(x + 3) * M_PI * 0.25, s0 = std::sin(y0), c0 = std::cos(y0);
  for (int i = 0; i < 8; ++i) {
    const float y0_ = (x + 3 - i);
    if (std::fabs(y0_) >= 1e-6f) {
      const double y = -y0_ * M_PI * 0.25;
      c[i] = float((cs[i][0] * s0 + cs[i][1] * c0) / (y * y));
    } else {
      c[i] = 1e30f;
    }
    sum += c[i];
  }
  sum = 1.f / sum;
  for (int i = 0; i < 8; ++i) c[i] *= sum;
}

// work types: uint8 runs in int with 11-bit coefficients, float64 in double, the rest in float
template <class T>
using resize_wt = std::conditional_t<std::is_same_v<T, uint8_t>, int, std::conditional_t<std::is_same_v<T, double>, double, float>>;

template <class T>
void resize_nn(const Img<const T>& s, const Img<T>& d, double inv_x, double inv_y) {
  const double ifx = 1. / inv_x, ify = 1. / inv_y;
  std::vector<index_t> xo(static_cast<size_t>(d.cols));
  for (index_t x = 0; x < d.cols; ++x) xo[x] = std::min<index_t>(cv_floor(x * ifx), s.cols - 1);
  for (index_t y = 0; y < d.rows; ++y) {
    const T* sp = s.row(std::min<index_t>(cv_floor(y * ify), s.rows - 1));
    for (index_t x = 0; x < d.cols; ++x)
      for (index_t c = 0; c < s.cn; ++c) d.row(y)[x * s.cn + c] = sp[xo[x] * s.cn + c];
  }
}

// LINEAR, CUBIC, LANCZOS4 (and AREA when enlarging): resizeGeneric_
template <class T>
void resize_generic(const Img<const T>& s, const Img<T>& d, double inv_x, double inv_y, int interp) {
  using WT = resize_wt<T>;
  constexpr bool fixpt = std::is_same_v<T, uint8_t>;
  const int ksize = interp == INTER_CUBIC ? 4 : interp == INTER_LANCZOS4 ? 8 : 2, k2 = ksize / 2;
  const bool area = interp == INTER_AREA, wide = interp == INTER_CUBIC || interp == INTER_LANCZOS4;
  const double sx_scale = 1. / inv_x, sy_scale = 1. / inv_y;
  const index_t cn = s.cn, width = d.cols * cn;
  std::vector<index_t> xofs(static_cast<size_t>(width));
  std::vector<WT> alpha(static_cast<size_t>(width * ksize));
  index_t xmin = 0, xmax = d.cols;
  float cbuf[8];
  auto coefs = [&](float f) {
    if (interp == INTER_CUBIC) interp_cubic(f, cbuf);
    else if (interp == INTER_LANCZOS4) interp_lanczos4(f, cbuf);
    else cbuf[0] = 1.f - f, cbuf[1] = f;
  };
  auto as_wt = [](float v) -> WT { return fixpt ? WT(sat_int<int16_t>(cv_round(double(v * 2048)))) : WT(v); };
  auto position = [&](index_t dx, double scale, double inv, int& sx, float& f) {
    if (!area) {
      f = float((dx + 0.5) * scale - 0.5);
      sx = cv_floor(f);
      f -= sx;
    } else {
      sx = cv_floor(dx * scale);
      f = float((dx + 1) - (sx + 1) * inv);
      f = f <= 0 ? 0.f : f - cv_floor(f);
    }
  };
  for (index_t dx = 0; dx < d.cols; ++dx) {
    int sx;
    float f;
    position(dx, sx_scale, inv_x, sx, f);
    if (sx < k2 - 1) {
      xmin = dx + 1;
      if (sx < 0 && !wide) f = 0, sx = 0;
    }
    if (sx + k2 >= s.cols) {
      xmax = std::min(xmax, dx);
      if (sx >= s.cols - 1 && !wide) f = 0, sx = int(s.cols - 1);
    }
    coefs(f);
    for (index_t c = 0; c < cn; ++c) {
      xofs[dx * cn + c] = sx * cn + c;
      for (int k = 0; k < ksize; ++k) alpha[(dx * cn + c) * ksize + k] = as_wt(cbuf[k]);
    }
  }
  xmin *= cn, xmax *= cn;
  // horizontal pass over one source row (clamped taps at the borders, like HResize*)
  auto hresize = [&](const T* S, WT* D) {
    for (index_t dx = 0; dx < width; ++dx) {
      const WT* a = &alpha[dx * ksize];
      const index_t sx = xofs[dx];
      if (!wide) {
        D[dx] = dx < xmax ? WT(S[sx] * a[0] + S[sx + cn] * a[1]) : WT(S[sx] * (fixpt ? 2048 : 1));
        continue;
      }
      const index_t base = sx - (k2 - 1) * cn;
      WT v = 0;
      if (dx >= xmin && dx < xmax) {
        v = S[base] * a[0];
        for (int k = 1; k < ksize; ++k) v += S[base + k * cn] * a[k];
      } else {
        for (int k = 0; k < ksize; ++k) {
          index_t j = base + k * cn;
          while (j < 0) j += cn;
          while (j >= s.cols * cn) j -= cn;
          v += S[j] * a[k];
        }
      }
      D[dx] = v;
    }
  };
  // every source row through the horizontal pass once (OpenCV caches them in a ring buffer)
  std::vector<WT> hrows(static_cast<size_t>(s.rows * width));
  for (index_t r = 0; r < s.rows; ++r) hresize(s.row(r), hrows.data() + r * width);
  const index_t vec_end = width & ~index_t(7);
  for (index_t dy = 0; dy < d.rows; ++dy) {
    int sy;
    float f;
    position(dy, sy_scale, inv_y, sy, f);
    coefs(f);
    WT beta[8];
    for (int k = 0; k < ksize; ++k) beta[k] = as_wt(cbuf[k]);
    const WT* src_rows[8];
    for (int k = 0; k < ksize; ++k)
      src_rows[k] = hrows.data() + std::clamp<index_t>(sy - k2 + 1 + k, 0, s.rows - 1) * width;
    T* D = d.row(dy);
    for (index_t x = 0; x < width; ++x) {
      if constexpr (fixpt) {
        if (ksize == 2) {  // VResizeLinearVec_32s8u (on every element in OpenCV 5): 16-bit products of sums / 16
          const int a0 = ((src_rows[0][x] >> 4) * beta[0]) >> 16, a1 = ((src_rows[1][x] >> 4) * beta[1]) >> 16;
          D[x] = sat_int<T>((a0 + a1 + 2) >> 2);
        } else if (ksize == 4 && x < vec_end) {  // VResizeCubicVec_32s8u: float with beta / 2^22
          const float sc = 1.f / (2048 * 2048);
          float v = float(src_rows[3][x]) * (beta[3] * sc);
          for (int k = 2; k >= 0; --k) v = float(src_rows[k][x]) * (beta[k] * sc) + v;
          D[x] = sat<T>(v);
        } else {
          int64_t acc = 0;
          for (int k = 0; k < ksize; ++k) acc += int64_t(src_rows[k][x]) * beta[k];
          D[x] = sat_int<T>((acc + (1 << 21)) >> 22);
        }
      } else {
        WT v = src_rows[0][x] * beta[0];
        for (int k = 1; k < ksize; ++k) v += src_rows[k][x] * beta[k];
        D[x] = sat<T>(v);
      }
    }
  }
}

// AREA with integer factors (resizeAreaFast_)
template <class T>
void resize_area_fast(const Img<const T>& s, const Img<T>& d, int isx, int isy) {
  using WT = std::conditional_t<std::is_same_v<T, uint8_t>, int, std::conditional_t<std::is_same_v<T, double>, double, float>>;
  const index_t cn = s.cn, area = index_t(isx) * isy;
  const float scale = 1.f / float(area);
  const bool fast2 = isx == 2 && isy == 2 && std::is_integral_v<T> && (cn == 1 || cn == 3 || cn == 4);
  const index_t full_w = (s.cols / isx) * cn;
  for (index_t dy = 0; dy < d.rows; ++dy) {
    T* D = d.row(dy);
    const index_t sy0 = dy * isy;
    const index_t w = sy0 + isy <= s.rows ? full_w : 0;
    for (index_t i = 0; i < d.width(); ++i) {
      const index_t dx = i / cn, c = i % cn, sx0 = dx * isx;
      if (i < w) {
        if (fast2) {
          const T* a = s.row(sy0) + sx0 * cn + c;
          const T* b = s.row(sy0 + 1) + sx0 * cn + c;
          D[i] = T((int(a[0]) + int(a[cn]) + int(b[0]) + int(b[cn]) + 2) >> 2);
          continue;
        }
        WT sum = 0;
        index_t k = 0;
        auto px = [&](index_t kk) { return WT(s.row(sy0 + kk / isx)[(sx0 + kk % isx) * cn + c]); };
        for (; k + 4 <= area; k += 4) sum += px(k) + px(k + 1) + px(k + 2) + px(k + 3);
        for (; k < area; ++k) sum += px(k);
        D[i] = sat<T>(std::is_same_v<WT, double> ? double(sum) * scale : float(sum) * scale);
      } else {  // a cell cut by the image's edge: the mean of what is inside
        WT sum = 0;
        int count = 0;
        for (index_t yy = 0; yy < isy && sy0 + yy < s.rows; ++yy)
          for (index_t xx = 0; xx < isx && sx0 + xx < s.cols; ++xx, ++count) sum += WT(s.row(sy0 + yy)[(sx0 + xx) * cn + c]);
        D[i] = count ? sat<T>(std::is_same_v<WT, double> ? double(sum) / count : float(sum) / count) : T(0);
      }
    }
  }
}

struct AreaTab {
  index_t di, si;
  float alpha;
};

inline std::vector<AreaTab> area_tab(index_t ssize, index_t dsize, index_t cn, double scale) {
  std::vector<AreaTab> tab;
  for (index_t dx = 0; dx < dsize; ++dx) {
    const double fsx1 = dx * scale, fsx2 = fsx1 + scale, cell = std::min(scale, ssize - fsx1);
    int sx1 = cv_ceil(fsx1), sx2 = cv_floor(fsx2);
    sx2 = std::min<int>(sx2, int(ssize - 1));
    sx1 = std::min(sx1, sx2);
    if (sx1 - fsx1 > 1e-3) tab.push_back({dx * cn, (sx1 - 1) * cn, float((sx1 - fsx1) / cell)});
    for (int sx = sx1; sx < sx2; ++sx) tab.push_back({dx * cn, sx * cn, float(1.0 / cell)});
    if (fsx2 - sx2 > 1e-3) tab.push_back({dx * cn, sx2 * cn, float(std::min(std::min(fsx2 - sx2, 1.), cell) / cell)});
  }
  return tab;
}

// AREA shrinking by a non-integer factor (resizeArea_): weighted sums of source cells
template <class T>
void resize_area(const Img<const T>& s, const Img<T>& d, double sx, double sy) {
  using WT = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const index_t cn = s.cn, w = d.width();
  const auto xt = area_tab(s.cols, d.cols, cn, sx), yt = area_tab(s.rows, d.rows, 1, sy);
  std::vector<WT> buf(static_cast<size_t>(w)), sum(static_cast<size_t>(w), WT(0));
  index_t prev = -1;
  for (const AreaTab& ye : yt) {
    const index_t dy = ye.di;
    const WT beta = WT(ye.alpha);
    std::fill(buf.begin(), buf.end(), WT(0));
    const T* S = s.row(ye.si);
    for (const AreaTab& xe : xt)
      for (index_t c = 0; c < cn; ++c) buf[xe.di + c] += WT(S[xe.si + c]) * WT(xe.alpha);
    if (dy != prev) {
      if (prev >= 0)
        for (index_t i = 0; i < w; ++i) d.row(prev)[i] = sat<T>(sum[i]);
      for (index_t i = 0; i < w; ++i) sum[i] = beta * buf[i];
      prev = dy;
    } else {
      for (index_t i = 0; i < w; ++i) sum[i] += beta * buf[i];
    }
  }
  if (prev >= 0)
    for (index_t i = 0; i < w; ++i) d.row(prev)[i] = sat<T>(sum[i]);
}

}  // namespace cvk

template <class T, int N>
Array<T, N> cv_resize(const Array<T, N>& src, cvk::Size2 dsize, double fx, double fy, int interp) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "resize");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!ssize.empty()", "resize");
  index_t dw = dsize.width, dh = dsize.height;
  double inv_x = fx, inv_y = fy;
  if (dw <= 0 || dh <= 0) {
    cvk::cv_assert(inv_x > 0, "inv_scale_x > 0", "resize");
    cvk::cv_assert(inv_y > 0, "inv_scale_y > 0", "resize");
    dw = cvk::sat<int>(s.cols * inv_x), dh = cvk::sat<int>(s.rows * inv_y);
    cvk::cv_assert(dw > 0 && dh > 0, "!dsize.empty()", "resize");
  } else {
    inv_x = double(dw) / s.cols, inv_y = double(dh) / s.rows;
  }
  auto out = cvk::new_image<T, N>(dh, dw, s.cn);
  auto d = cvk::image_of(out);
  if (dw == s.cols && dh == s.rows) {
    for (index_t y = 0; y < s.rows; ++y) std::copy(s.row(y), s.row(y) + s.width(), d.row(y));
    return out;
  }
  if (interp == cvk::INTER_NEAREST) {
    cvk::resize_nn(s, d, inv_x, inv_y);
    return out;
  }
  const double sx = 1. / inv_x, sy = 1. / inv_y;
  const int isx = cvk::sat<int>(sx), isy = cvk::sat<int>(sy);
  const bool area_fast = std::abs(sx - isx) < DBL_EPSILON && std::abs(sy - isy) < DBL_EPSILON;
  if (interp == cvk::INTER_LINEAR && area_fast && isx == 2 && isy == 2) interp = cvk::INTER_AREA;
  if (interp == cvk::INTER_AREA && sx >= 1 && sy >= 1) {
    if (area_fast) cvk::resize_area_fast(s, d, isx, isy);
    else cvk::resize_area(s, d, sx, sy);
    return out;
  }
  cvk::resize_generic(s, d, inv_x, inv_y, interp);
  return out;
}

}  // namespace ep
