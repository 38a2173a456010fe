// cv2 linear filters, loops path: GaussianBlur (OpenCV's bit-exact fixed point for
// uint8 / uint16, float kernels otherwise), blur / boxFilter (OpenCV's running sums and
// its division by the area), Sobel, Scharr, Laplacian and filter2D.
// Borders are OpenCV's: BORDER_CONSTANT pads with 0, the others through border_index.
#pragma once

#include <cfloat>
#include <cmath>
#include <vector>

#include "imgproc_core.hpp"

namespace ep {
namespace cvk {

// Separable filtering: every source row through the row kernel (into W), then the column
// kernel over those rows; put(x, sum) stores one output element. Symmetric and
// antisymmetric kernels add their mirrored taps first, as OpenCV's filters do.
template <class W, class T, class Put>
void sep_filter(const Img<const T>& s, const std::vector<W>& kx, const std::vector<W>& ky, index_t ax, index_t ay,
                int border, W delta, Put&& put) {
  const index_t cn = s.cn, w = s.cols * cn, nx = index_t(kx.size()), ny = index_t(ky.size());
  const auto xt = border_table(s.cols, ax, nx - 1 - ax, border);
  const auto yt = border_table(s.rows, ay, ny - 1 - ay, border);
  std::vector<W> rows(static_cast<size_t>(s.rows * w));
  std::vector<W> zero(static_cast<size_t>(w), W(0));
  for (index_t y = 0; y < s.rows; ++y) {
    const T* sp = s.row(y);
    W* r = rows.data() + y * w;
    for (index_t x = 0; x < s.cols; ++x)
      for (index_t c = 0; c < cn; ++c) {
        auto px = [&](index_t k) -> W {
          const index_t sx = xt[x + k];
          return sx < 0 ? W(0) : W(sp[sx * cn + c]);
        };
        W acc = W(0);
        for (index_t k = 0; k < nx; ++k) acc += kx[k] * px(k);
        r[x * cn + c] = acc;
      }
  }
  std::vector<const W*> src(static_cast<size_t>(ny));
  for (index_t y = 0; y < s.rows; ++y) {
    for (index_t j = 0; j < ny; ++j) {
      const index_t sy = yt[y + j];
      src[j] = sy < 0 ? zero.data() : rows.data() + sy * w;
    }
    for (index_t i = 0; i < w; ++i) {
      W acc = delta;
      for (index_t j = 0; j < ny; ++j) acc += ky[j] * src[j][i];
      put(y, i, acc);
    }
  }
}

// ---- Gaussian kernels (getGaussianKernelBitExact, in double) --------------------------------

inline std::vector<double> gaussian_kernel(index_t n, double sigma) {
  static const double k3[] = {0.25, 0.5, 0.25}, k5[] = {0.0625, 0.25, 0.375, 0.25, 0.0625},
                      k7[] = {0.03125, 0.109375, 0.21875, 0.28125, 0.21875, 0.109375, 0.03125},
                      k9[] = {4. / 256, 13. / 256, 30. / 256, 51. / 256, 60. / 256, 51. / 256, 30. / 256, 13. / 256,
                              4. / 256};
  if (sigma <= 0 && n <= 9 && (n & 1)) {
    if (n == 1) return {1.0};
    const double* k = n == 3 ? k3 : n == 5 ? k5 : n == 7 ? k7 : k9;
    return std::vector<double>(k, k + n);
  }
  const double sx = sigma > 0 ? sigma : std::fma(double(n), 0.15, 0.35);
  const double scale2 = -0.125 / (sx * sx);
  const index_t h = (n - 1) / 2;
  std::vector<double> v(static_cast<size_t>(h));
  double sum = 0;
  for (index_t i = 0, x = 1 - n; i < h; ++i, x += 2) {
    v[i] = std::exp(double(x * x) * scale2);
    sum += v[i];
  }
  sum = sum * 2 + 1;
  if ((n & 1) == 0) sum += 1;
  const double mul = 1. / sum;
  std::vector<double> k(static_cast<size_t>(n));
  for (index_t i = 0; i < h; ++i) k[i] = k[n - 1 - i] = v[i] * mul;
  k[h] = mul;
  if ((n & 1) == 0) k[h + 1] = k[h];
  return k;
}

// getGaussianKernelFixedPoint_ED: rounded with error diffusion, the centre takes the rest
inline std::vector<int64_t> fixed_kernel(const std::vector<double>& k, int bits) {
  const index_t n = index_t(k.size()), h = n / 2;
  const int64_t one = int64_t(1) << bits;
  std::vector<int64_t> r(static_cast<size_t>(n));
  double err = 0;
  int64_t sum = 0;
  for (index_t i = 0; i < h; ++i) {
    const double adj = k[i] * double(one) + err;
    const int64_t v = int64_t(std::nearbyint(adj));
    err = adj - double(v);
    r[i] = r[n - 1 - i] = v;
    sum += v;
  }
  r[h] = one - 2 * sum;
  return r;
}

inline index_t gaussian_size(index_t ksize, double sigma, bool u8) {
  if (ksize <= 0 && sigma > 0) return cv_round(sigma * (u8 ? 3 : 4) * 2 + 1) | 1;
  return ksize;
}

// GaussianBlur's kernel sizes and weights for an image of rows x cols, with OpenCV's checks
// (every path computes them the same way; kx/ky stay empty when the blur is a copy)
struct GaussianPlan {
  index_t kw = 1, kh = 1;
  std::vector<double> kx, ky;
  bool copy() const { return kw == 1 && kh == 1; }
};

inline GaussianPlan gaussian_plan(index_t rows, index_t cols, Size2 ksize, double sigma1, double sigma2, int border,
                                  bool u8) {
  GaussianPlan p;
  index_t kw = ksize.width, kh = ksize.height;
  if (border != BORDER_CONSTANT) {
    if (rows == 1) kh = 1;
    if (cols == 1) kw = 1;
  }
  if (sigma2 <= 0) sigma2 = sigma1;
  p.kw = gaussian_size(kw, sigma1, u8);
  p.kh = gaussian_size(kh, sigma2, u8);
  cv_assert(p.kw > 0 && p.kw % 2 == 1 && p.kh > 0 && p.kh % 2 == 1,
            "ksize.width > 0 && ksize.width % 2 == 1 && ksize.height > 0 && ksize.height % 2 == 1",
            "createGaussianKernels");
  if (!p.copy()) {
    p.kx = gaussian_kernel(p.kw, std::max(sigma1, 0.));
    p.ky = gaussian_kernel(p.kh, std::max(sigma2, 0.));
  }
  return p;
}

}  // namespace cvk

template <class T, int N>
Array<T, N> cv_gaussian_blur(const Array<T, N>& src, cvk::Size2 ksize, double sigma1, double sigma2, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "GaussianBlur");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "GaussianBlur");
  auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
  auto d = cvk::image_of(out);
  constexpr bool fixed = std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>;
  const auto plan = cvk::gaussian_plan(s.rows, s.cols, ksize, sigma1, sigma2, border, std::is_same_v<T, uint8_t>);
  if (plan.copy()) {
    for (index_t y = 0; y < s.rows; ++y) std::copy(s.row(y), s.row(y) + s.width(), d.row(y));
    return out;
  }
  const index_t kw = plan.kw, kh = plan.kh;
  const auto& kx = plan.kx;
  const auto& ky = plan.ky;
  if constexpr (fixed) {  // 8 (uint8) or 16 (uint16) fractional bits per pass, rounded once at the end
    constexpr int bits = std::is_same_v<T, uint8_t> ? 8 : 16;
    const auto fx = cvk::fixed_kernel(kx, bits), fy = cvk::fixed_kernel(ky, bits);
    cvk::sep_filter<int64_t>(s, fx, fy, kw / 2, kh / 2, border, int64_t(0), [&](index_t y, index_t i, int64_t acc) {
      d.row(y)[i] = cvk::sat_int<T>((acc + (int64_t(1) << (2 * bits - 1))) >> (2 * bits));
    });
  } else {
    using W = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const std::vector<W> wx(kx.begin(), kx.end()), wy(ky.begin(), ky.end());
    cvk::sep_filter<W>(s, wx, wy, kw / 2, kh / 2, border, W(0),
                       [&](index_t y, index_t i, W acc) { d.row(y)[i] = cvk::sat<T>(acc); });
  }
  return out;
}

}  // namespace ep

#include "imgproc_box.hpp"
#include "imgproc_deriv.hpp"
