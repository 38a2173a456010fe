// cv2.pyrDown and pyrUp, loops path: OpenCV's [1 4 6 4 1] filters (integer sums rounded
// half up for integer images) with its border handling (pyrUp's last row / column weigh
// 1 and 7), and cv2.warpAffine (imgproc_warp.hpp).
#pragma once

#include <cmath>
#include <vector>

#include "imgproc_core.hpp"
#include "imgproc_resize.hpp"
#include "imgproc_warp.hpp"

namespace ep {
namespace cvk {

template <class T>
using pyr_wt = std::conditional_t<std::is_floating_point_v<T>, T, int>;

// out = sum / 2^bits: integers round half up (FixPtCast), floats multiply
template <class T>
T pyr_cast(pyr_wt<T> v, int bits) {
  if constexpr (std::is_floating_point_v<T>) return T(v * (T(1) / T(1 << bits)));
  else return sat_int<T>((v + (1 << (bits - 1))) >> bits);
}

}  // namespace cvk

template <class T, int N>
Array<T, N> cv_pyr_down(const Array<T, N>& src, cvk::Size2 dsize, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "pyrDown");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "pyrDown_");
  const index_t dw = dsize.width > 0 ? dsize.width : (s.cols + 1) / 2, dh = dsize.width > 0 ? dsize.height : (s.rows + 1) / 2;
  cvk::cv_assert(std::abs(dw * 2 - s.cols) <= 2 && std::abs(dh * 2 - s.rows) <= 2,
                 "ssize.width > 0 && ssize.height > 0 && std::abs(dsize.width*2 - ssize.width) <= 2 && "
                 "std::abs(dsize.height*2 - ssize.height) <= 2", "pyrDown_");
  using WT = cvk::pyr_wt<T>;
  auto out = cvk::new_image<T, N>(dh, dw, s.cn);
  auto d = cvk::image_of(out);
  const index_t cn = s.cn, width = dw * cn;
  const auto xt = cvk::border_table(s.cols, 2, 2 * dw - s.cols + 2, border);
  std::vector<WT> rows(static_cast<size_t>(5 * width));
  for (index_t y = 0; y < dh; ++y) {
    for (int k = 0; k < 5; ++k) {
      const T* S = s.row(cvk::border_index(2 * y - 2 + k, s.rows, border));
      WT* R = rows.data() + k * width;
      for (index_t x = 0; x < width; ++x) {
        const index_t c = x % cn, sx = 2 * (x / cn) + 2;  // index into xt of the centre tap
        auto px = [&](index_t j) { return WT(S[xt[sx + j] * cn + c]); };
        R[x] = px(0) * 6 + (px(-1) + px(1)) * 4 + px(-2) + px(2);
      }
    }
    const WT *r0 = rows.data(), *r1 = r0 + width, *r2 = r1 + width, *r3 = r2 + width, *r4 = r3 + width;
    for (index_t x = 0; x < width; ++x) d.row(y)[x] = cvk::pyr_cast<T>(r2[x] * 6 + (r1[x] + r3[x]) * 4 + r0[x] + r4[x], 8);
  }
  return out;
}

template <class T, int N>
Array<T, N> cv_pyr_up(const Array<T, N>& src, cvk::Size2 dsize, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "pyrUp");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("pyrUp");
  cvk::cv_assert(border == cvk::BORDER_REFLECT_101, "borderType == BORDER_DEFAULT", "pyrUp");
  const index_t dw = dsize.width > 0 ? dsize.width : s.cols * 2, dh = dsize.width > 0 ? dsize.height : s.rows * 2;
  cvk::cv_assert(std::abs(dw - s.cols * 2) == dw % 2 && std::abs(dh - s.rows * 2) == dh % 2,
                 "std::abs(dsize.width - ssize.width*2) == dsize.width % 2 && "
                 "std::abs(dsize.height - ssize.height*2) == dsize.height % 2", "pyrUp_");
  using WT = cvk::pyr_wt<T>;
  auto out = cvk::new_image<T, N>(dh, dw, s.cn);
  auto d = cvk::image_of(out);
  const index_t cn = s.cn, sw = s.cols * cn, width = dw * cn;
  // one source row up-sampled horizontally: even outputs 1 6 1, odd 4 4; the last pixel 1 7 / 8
  auto hrow = [&](index_t sy, WT* R) {
    const T* S = s.row(sy);
    if (s.cols == 1) {
      for (index_t c = 0; c < cn; ++c) R[c] = R[c + cn] = WT(S[c]) * 8;
    } else {
      for (index_t c = 0; c < cn; ++c) {
        R[c] = WT(S[c]) * 6 + WT(S[c + cn]) * 2;
        R[c + cn] = (WT(S[c]) + WT(S[c + cn])) * 4;
        const index_t sx = sw - cn + c, dx = 2 * (s.cols - 1) * cn + c;
        R[dx] = WT(S[sx - cn]) + WT(S[sx]) * 7;
        R[dx + cn] = WT(S[sx]) * 8;
      }
      for (index_t x = cn; x < sw - cn; ++x) {
        const index_t dx = (x / cn) * 2 * cn + x % cn;
        R[dx] = WT(S[x - cn]) + WT(S[x]) * 6 + WT(S[x + cn]);
        R[dx + cn] = (WT(S[x]) + WT(S[x + cn])) * 4;
      }
    }
    if (dw > s.cols * 2)
      for (index_t c = 0; c < cn; ++c) R[(dw - 1) * cn + c] = R[(2 * s.cols - 1) * cn + c];
  };
  const size_t rw = static_cast<size_t>(std::max(dw, 2 * s.cols) * cn);  // dw may be 2 * cols - 1
  std::vector<WT> r0(rw), r1(rw), r2(rw);
  for (index_t y = 0; y < s.rows; ++y) {
    auto srow = [&](index_t sy) { return cvk::border_index(sy * 2, s.rows * 2, cvk::BORDER_REFLECT_101) / 2; };
    hrow(srow(y - 1), r0.data());
    hrow(srow(y), r1.data());
    hrow(srow(y + 1), r2.data());
    T* d0 = d.row(2 * y);
    T* d1 = d.row(std::min(2 * y + 1, dh - 1));
    for (index_t x = 0; x < width; ++x) {
      const T t1 = cvk::pyr_cast<T>((r1[x] + r2[x]) * 4, 6), t0 = cvk::pyr_cast<T>(r0[x] + r1[x] * 6 + r2[x], 6);
      if (d0 != d1) d1[x] = t1;
      d0[x] = t0;
    }
  }
  if (dh > s.rows * 2) std::copy(d.row(s.rows * 2 - 2), d.row(s.rows * 2 - 2) + width, d.row(s.rows * 2));
  return out;
}

}  // namespace ep
