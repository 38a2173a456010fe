// cv2 geometric transforms, opencv path (included by paths/opencv/imgproc.hpp inside
// EP_HAVE_OPENCV): resize, warpAffine, pyrDown and pyrUp through OpenCV's C++ API.
#pragma once

namespace ep::opencv {

template <class T, int N>
Array<T, N> cv_resize(const Array<T, N>& src, cvk::Size2 dsize, double fx, double fy, int interp) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "resize");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!ssize.empty()", "resize");
  index_t dw = dsize.width, dh = dsize.height;
  const bool given = dw > 0 && dh > 0;  // else OpenCV scales by fx, fy (not by the rounded size)
  if (!given) {  // the result's size, needed before OpenCV runs
    cvk::cv_assert(fx > 0, "inv_scale_x > 0", "resize");
    cvk::cv_assert(fy > 0, "inv_scale_y > 0", "resize");
    dw = cvk::sat<int>(s.cols * fx), dh = cvk::sat<int>(s.rows * fy);
    cvk::cv_assert(dw > 0 && dh > 0, "!dsize.empty()", "resize");
  }
  if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, int8_t>) {
    cvk::cv_assert(interp == 0, "func != 0", "resize");
  }
  return produce<T, N>(dh, dw, s.cn, [&](cv::Mat& d) {
    cv::resize(mat(s), d, given ? cv::Size(int(dw), int(dh)) : cv::Size(), fx, fy, interp);
  });
}

template <class M>
cv::Mat matrix23(const Array<M, 2>& m) {
  cvk::cv_assert(m.shape[0] == 2 && m.shape[1] == 3,
                 "(M0.type() == CV_32F || M0.type() == CV_64F) && M0.rows == 2 && M0.cols == 3", "warpAffine");
  cv::Mat r(2, 3, CV_64F);
  for (int i = 0; i < 6; ++i) r.at<double>(i / 3, i % 3) = double(m(i / 3, i % 3));
  return r;
}

template <class T, int N, class M>
Array<T, N> cv_warp_affine(const Array<T, N>& src, const Array<M, 2>& m, cvk::Size2 dsize, int flags, int border,
                           const std::array<double, 4>& value) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "warpAffine");
  cvk::cv_assert(s.cols > 0 && s.rows > 0, "src.cols > 0 && src.rows > 0", "warpAffine");
  const cv::Mat mm = matrix23(m);
  const index_t w = dsize.width > 0 && dsize.height > 0 ? dsize.width : s.cols;
  const index_t h = dsize.width > 0 && dsize.height > 0 ? dsize.height : s.rows;
  return produce<T, N>(h, w, s.cn, [&](cv::Mat& d) {
    cv::warpAffine(mat(s), d, mm, cv::Size(int(w), int(h)), flags, border, scalar(value));
  });
}

template <class T, int N>
Array<T, N> cv_pyr_down(const Array<T, N>& src, cvk::Size2 dsize, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "pyrDown");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "pyrDown_");
  const index_t dw = dsize.width > 0 ? dsize.width : (s.cols + 1) / 2, dh = dsize.width > 0 ? dsize.height : (s.rows + 1) / 2;
  cvk::cv_assert(std::abs(dw * 2 - s.cols) <= 2 && std::abs(dh * 2 - s.rows) <= 2,
                 "ssize.width > 0 && ssize.height > 0 && std::abs(dsize.width*2 - ssize.width) <= 2 && "
                 "std::abs(dsize.height*2 - ssize.height) <= 2", "pyrDown_");
  return produce<T, N>(dh, dw, s.cn, [&](cv::Mat& d) {
    cv::pyrDown(mat(s), d, cv::Size(int(dw), int(dh)), border);
  });
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
  return produce<T, N>(dh, dw, s.cn, [&](cv::Mat& d) {
    cv::pyrUp(mat(s), d, cv::Size(int(dw), int(dh)), border);
  });
}

}  // namespace ep::opencv
