// cv2 filters, opencv path (included by paths/opencv/imgproc.hpp inside EP_HAVE_OPENCV):
// GaussianBlur, blur / boxFilter, medianBlur, filter2D, Sobel, Scharr, Laplacian,
// erode / dilate / morphologyEx and Canny through OpenCV's C++ API.
#pragma once

namespace ep::opencv {

// a kernel as OpenCV takes it: wrapped when OpenCV has its dtype, else converted to double
template <class K>
cv::Mat kernel_mat(const Array<K, 2>& k, Array<K, 2>& keep) {
  auto im = cvk::in_image(k, keep, "filter2D");
  if constexpr (std::is_same_v<K, int64_t> || std::is_same_v<K, uint32_t> || std::is_same_v<K, uint64_t> ||
                std::is_same_v<K, bool>) {
    cv::Mat m(int(im.rows), int(im.cols), CV_64F);
    for (index_t y = 0; y < im.rows; ++y)
      for (index_t x = 0; x < im.cols; ++x) m.at<double>(int(y), int(x)) = double(im.row(y)[x]);
    return m;
  } else {
    return mat(im);
  }
}

template <class T, int N>
Array<T, N> cv_gaussian_blur(const Array<T, N>& src, cvk::Size2 ksize, double sigma1, double sigma2, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "GaussianBlur");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "GaussianBlur");
  return produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    cv::GaussianBlur(mat(s), d, cv::Size(int(ksize.width), int(ksize.height)), sigma1, sigma2, border);
  });
}

template <class T, int N>
Array<T, N> cv_box_filter(const Array<T, N>& src, cvk::Size2 ksize, cvk::Size2 anchor, bool normalize, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "boxFilter");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "boxFilter");
  cvk::cv_assert(ksize.width > 0 && ksize.height > 0, "ksize.width > 0 && ksize.height > 0", "boxFilter");
  return produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    cv::boxFilter(mat(s), d, -1, cv::Size(int(ksize.width), int(ksize.height)),
                  cv::Point(int(anchor.width), int(anchor.height)), normalize, border);
  });
}

template <class T, int N>
Array<T, N> cv_median_blur(const Array<T, N>& src, int64_t ksize) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "medianBlur");
  cvk::check_median(s, ksize);
  return produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) { cv::medianBlur(mat(s), d, int(ksize)); });
}

template <class D, class T, int N, class K>
Array<D, N> cv_filter2d(const Array<T, N>& src, const Array<K, 2>& kernel, cvk::Size2 anchor, double delta, int border) {
  Array<T, N> keep;
  Array<K, 2> kkeep;
  auto s = cvk::in_image(src, keep, "filter2D");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "filter2D");
  cv::Mat k = kernel_mat(kernel, kkeep);
  return produce<D, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    cv::filter2D(mat(s), d, depth<D>(), k, cv::Point(int(anchor.width), int(anchor.height)), delta, border);
  });
}

template <class D, class T, int N>
Array<D, N> cv_sobel(const Array<T, N>& src, int64_t dx, int64_t dy, int64_t ksize, double scale, double delta,
                     int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "Sobel");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "Sobel");
  return produce<D, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    cv::Sobel(mat(s), d, depth<D>(), int(dx), int(dy), int(ksize), scale, delta, border);
  });
}

template <class D, class T, int N>
Array<D, N> cv_scharr(const Array<T, N>& src, int64_t dx, int64_t dy, double scale, double delta, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "Scharr");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "Scharr");
  return produce<D, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    cv::Scharr(mat(s), d, depth<D>(), int(dx), int(dy), scale, delta, border);
  });
}

template <class D, class T, int N>
Array<D, N> cv_laplacian(const Array<T, N>& src, int64_t ksize, double scale, double delta, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "Laplacian");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "Laplacian");
  return produce<D, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    cv::Laplacian(mat(s), d, depth<D>(), int(ksize), scale, delta, border);
  });
}

template <class T, int N, class Kernel>
Array<T, N> cv_morphology(const Array<T, N>& src, int op, const Kernel& kernel, cvk::Size2 anchor, int64_t iterations,
                          int border, const std::array<double, 4>& value, bool default_value) {
  static const char* names[] = {"erode", "dilate", "morphologyEx"};
  const char* fn = names[op < 2 ? op : 2];
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, fn);
  cvk::cv_assert(s.rows > 0 && s.cols > 0, op < 2 ? "!src.empty()" : "!_src.empty()", fn);
  cv::Mat k;
  if constexpr (!std::is_same_v<Kernel, None>) {
    Kernel kkeep;
    auto ki = cvk::in_image(kernel, kkeep, fn);
    k.create(int(ki.rows), int(ki.cols), CV_8U);  // OpenCV only asks which taps are non-zero
    for (index_t y = 0; y < ki.rows; ++y)
      for (index_t x = 0; x < ki.cols; ++x) k.at<uchar>(int(y), int(x)) = ki.row(y)[x] != 0;
    bool any = false;
    for (index_t y = 0; y < ki.rows; ++y)
      for (index_t x = 0; x < ki.cols; ++x) any = any || ki.row(y)[x] != 0;
    if (!any && ki.rows * ki.cols > 1)
      raise("ValueError", "cv2 morphology: the kernel has no non-zero element (not supported)");
  }
  const cv::Scalar bv = default_value ? cv::morphologyDefaultBorderValue() : scalar(value);
  const cv::Point a(int(anchor.width), int(anchor.height));
  return produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    cv::morphologyEx(mat(s), d, op, k, a, int(iterations), border, bv);
  });
}

template <class T, int N>
Array<uint8_t, 2> cv_canny(const Array<T, N>& src, double t1, double t2, int64_t aperture, bool l2) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "Canny");
  if ((aperture & 1) == 0 || (aperture != -1 && (aperture < 3 || aperture > 7)))
    cvk::cv_fail("Aperture size should be odd between 3 and 7", "Canny", "-206:Bad flag (parameter or structure field)");
  if (s.rows == 0) cvk::none_result("Canny");
  cvk::cv_assert(s.cols > 0, "!_src.empty()", "Sobel");  // what cv2 says for (rows, 0)
  return produce<uint8_t, 2>(s.rows, s.cols, 1, [&](cv::Mat& d) { cv::Canny(mat(s), d, t1, t2, int(aperture), l2); });
}

}  // namespace ep::opencv
