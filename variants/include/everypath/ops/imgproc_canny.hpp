// cv2.Canny, loops path: cv::Canny's integer pipeline. int16 Sobel derivatives with
// BORDER_REPLICATE, per pixel the channel of largest magnitude (L1, or squared L2 with
// squared thresholds), non-maximum suppression along the gradient sector
// (tan 22.5 in 15-bit fixed point, zero magnitude outside the image), then 8-connected
// hysteresis from the pixels above the high threshold.
#pragma once

#include <cmath>
#include <vector>

#include "imgproc_core.hpp"
#include "imgproc_deriv.hpp"

namespace ep {

template <class T, int N>
Array<uint8_t, 2> cv_canny(const Array<T, N>& src, double low_thresh, double high_thresh, int64_t aperture, bool l2) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "Canny");
  if ((aperture & 1) == 0 || (aperture != -1 && (aperture < 3 || aperture > 7)))
    cvk::cv_fail("Aperture size should be odd between 3 and 7", "Canny", "-206:Bad flag (parameter or structure field)");
  if (s.rows == 0) cvk::none_result("Canny");
  cvk::cv_assert(s.cols > 0, "!_src.empty()", "Sobel");  // what cv2 says for (rows, 0)
  if (low_thresh > high_thresh) std::swap(low_thresh, high_thresh);
  const index_t rows = s.rows, cols = s.cols, cn = s.cn;
  auto gx = cvk::new_image<int16_t, 3>(rows, cols, cn), gy = cvk::new_image<int16_t, 3>(rows, cols, cn);
  const auto k1 = cvk::deriv_kernel(1, int(aperture), "Canny"), k0 = cvk::deriv_kernel(0, int(aperture), "Canny");
  const std::vector<double> d1(k1.begin(), k1.end());
  std::vector<double> d0(k0.begin(), k0.end());
  if (aperture == 7) {  // OpenCV scales the 7x7 Sobel by 1/16 (its smoothing half, in float) and the thresholds
    for (double& v : d0) v = double(float(v) * float(1 / 16.0));
    low_thresh /= 16.0;
    high_thresh /= 16.0;
  }
  cvk::deriv_filter(s, cvk::image_of(gx), d1, d0, 0, cvk::BORDER_REPLICATE);
  cvk::deriv_filter(s, cvk::image_of(gy), d0, d1, 0, cvk::BORDER_REPLICATE);
  if (l2) {
    low_thresh = std::min(32767.0, low_thresh);
    high_thresh = std::min(32767.0, high_thresh);
    if (low_thresh > 0) low_thresh *= low_thresh;
    if (high_thresh > 0) high_thresh *= high_thresh;
  }
  const int low = cvk::cv_floor(low_thresh), high = cvk::cv_floor(high_thresh);
  // magnitude, dx, dy of the strongest channel, with a zero frame around the image
  const index_t W = cols + 2;
  std::vector<int> mag(static_cast<size_t>((rows + 2) * W), 0);
  std::vector<int16_t> dxs(static_cast<size_t>(rows * cols)), dys(static_cast<size_t>(rows * cols));
  for (index_t y = 0; y < rows; ++y)
    for (index_t x = 0; x < cols; ++x) {
      int best = -1;
      for (index_t c = 0; c < cn; ++c) {
        const int a = gx.data[(y * cols + x) * cn + c], b = gy.data[(y * cols + x) * cn + c];
        const int m = l2 ? a * a + b * b : std::abs(a) + std::abs(b);
        if (m > best) {
          best = m;
          dxs[y * cols + x] = int16_t(a), dys[y * cols + x] = int16_t(b);
        }
      }
      mag[(y + 1) * W + x + 1] = best;
    }
  // 0: maybe an edge, 1: not an edge, 2: an edge (the frame is 1)
  std::vector<uint8_t> map(static_cast<size_t>((rows + 2) * W), 1);
  std::vector<index_t> stack;
  constexpr int TG22 = 13573;
  for (index_t y = 0; y < rows; ++y)
    for (index_t x = 0; x < cols; ++x) {
      const index_t at = (y + 1) * W + x + 1;
      const int m = mag[at];
      if (m <= low) continue;
      const int xs = dxs[y * cols + x], ys = dys[y * cols + x];
      const int ax = std::abs(xs), ay = std::abs(ys) << 15, tg22x = ax * TG22;
      bool keep_px;
      if (ay < tg22x) {
        keep_px = m > mag[at - 1] && m >= mag[at + 1];
      } else if (ay > tg22x + (ax << 16)) {
        keep_px = m > mag[at - W] && m >= mag[at + W];
      } else {
        const index_t sg = (xs ^ ys) < 0 ? -1 : 1;
        keep_px = m > mag[at - W - sg] && m > mag[at + W + sg];
      }
      if (!keep_px) continue;
      if (m > high) {
        map[at] = 2;
        stack.push_back(at);
      } else {
        map[at] = 0;
      }
    }
  while (!stack.empty()) {
    const index_t at = stack.back();
    stack.pop_back();
    for (index_t nb : {at - 1, at + 1, at - W - 1, at - W, at - W + 1, at + W - 1, at + W, at + W + 1})
      if (map[nb] == 0) {
        map[nb] = 2;
        stack.push_back(nb);
      }
  }
  auto out = empty<uint8_t, 2>({rows, cols});
  for (index_t y = 0; y < rows; ++y)
    for (index_t x = 0; x < cols; ++x) out.data[y * cols + x] = map[(y + 1) * W + x + 1] == 2 ? 255 : 0;
  return out;
}

}  // namespace ep
