// cv2 operators, opencv path: the same signatures as the loops path (ep::cv_* in
// ops/imgproc*.hpp) in ep::opencv, calling OpenCV's C++ API. Inputs are wrapped as
// cv::Mat without copying when a row's pixels are dense; outputs are ep::Arrays we
// allocate and hand to OpenCV as the destination, so it writes into our buffer.
// Argument checks that must happen before we allocate are shared with the loops path
// (imgproc_core.hpp); anything else OpenCV rejects becomes a ValueError with its message.
#pragma once

#include <cstdlib>

#include "../../ops/imgproc_color.hpp"
#include "../../ops/imgproc_core.hpp"
#include "../../ops/imgproc_morph.hpp"

#if defined(EP_HAVE_OPENCV)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-enum-enum-conversion"
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#pragma GCC diagnostic pop

namespace ep::opencv {

template <class T>
constexpr int depth() {
  if constexpr (std::is_same_v<T, uint8_t>) return CV_8U;
  else if constexpr (std::is_same_v<T, int8_t>) return CV_8S;
  else if constexpr (std::is_same_v<T, uint16_t>) return CV_16U;
  else if constexpr (std::is_same_v<T, int16_t>) return CV_16S;
  else if constexpr (std::is_same_v<T, int32_t>) return CV_32S;
  else if constexpr (std::is_same_v<T, float>) return CV_32F;
  else {
    static_assert(std::is_same_v<T, double>, "no OpenCV depth for this dtype");
    return CV_64F;
  }
}

// A cv::Mat header over an image's memory (no copy).
template <class T>
cv::Mat mat(const cvk::Img<T>& im) {
  using U = std::remove_const_t<T>;
  return cv::Mat(int(im.rows), int(im.cols), CV_MAKETYPE(depth<U>(), int(im.cn)), const_cast<U*>(im.data),
                 size_t(im.step) * sizeof(U));
}

// OpenCV's thread count: the one everypath's threads path uses (EVERYPATH_THREADS, else
// OMP_NUM_THREADS), set once per process. OpenCV's own pool (TBB in Debian's build) reads
// neither variable, and cv2.setNumThreads in Python sets the cv2 wheel's separate copy of
// OpenCV, not the library we link; left alone, every call here used every core, which on a
// loaded 2-core host made cv2.medianBlur(x, 5) 4x slower than one thread (measured), and it
// made comparisons with a one-thread cv2 unfair. Neither variable set: OpenCV's default.
inline void use_thread_count() {
  static const bool applied = [] {
    for (const char* var : {"EVERYPATH_THREADS", "OMP_NUM_THREADS"}) {
      const char* s = std::getenv(var);
      if (s == nullptr) continue;
      char* end = nullptr;
      const long v = std::strtol(s, &end, 10);
      if (end != s && *end == 0 && v > 0) {
        cv::setNumThreads(static_cast<int>(v > 4096 ? 4096 : v));
        return true;
      }
    }
    return false;
  }();
  (void)applied;
}

// Runs an OpenCV call; cv::Exception becomes a ValueError carrying OpenCV's own text.
template <class F>
auto guarded(F&& f) -> decltype(f()) {
  use_thread_count();
  try {
    return f();
  } catch (const cv::Exception& e) {
    std::string m = e.what();
    const auto at = m.find("error: ");
    if (at != std::string::npos) m = m.substr(at + 7);
    while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
    raise("ValueError", m);
  }
}

// The destination OpenCV wrote must still be our buffer (same size and type: no reallocation).
template <class T, int N>
void check_written(const cv::Mat& d, const Array<T, N>& out) {
  if (d.data != reinterpret_cast<const uchar*>(out.data) && out.size() != 0)
    raise("RuntimeError", "internal error: OpenCV reallocated the destination image");
}

// out = new image of (rows, cols, cn); f(src Mat, dst Mat) fills it
template <class D, int N, class F>
Array<D, N> produce(index_t rows, index_t cols, index_t cn, F&& f) {
  auto out = cvk::new_image<D, N>(rows, cols, cn);
  cv::Mat d = mat(cvk::image_of(out));
  guarded([&] { f(d); });
  check_written(d, out);
  return out;
}

template <class T, int N>
Array<T, N> cv_flip(const Array<T, N>& src, int64_t code) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "flip");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("flip");
  return produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) { cv::flip(mat(s), d, int(code)); });
}

template <class T, int N>
Array<T, N> cv_transpose(const Array<T, N>& src) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "transpose");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("transpose");
  return produce<T, N>(s.cols, s.rows, s.cn, [&](cv::Mat& d) { cv::transpose(mat(s), d); });
}

inline cv::Scalar scalar(const std::array<double, 4>& v) { return cv::Scalar(v[0], v[1], v[2], v[3]); }

template <class T, int N>
Array<T, N> cv_copy_make_border(const Array<T, N>& src, int64_t top, int64_t bottom, int64_t left, int64_t right,
                                int border, const std::array<double, 4>& value) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "copyMakeBorder");
  cvk::check_border_args(s, top, bottom, left, right, border, value);
  return produce<T, N>(s.rows + top + bottom, s.cols + left + right, s.cn, [&](cv::Mat& d) {
    cv::copyMakeBorder(mat(s), d, int(top), int(bottom), int(left), int(right), border, scalar(value));
  });
}

template <class T, int N>
std::tuple<double, Array<T, N>> cv_threshold(const Array<T, N>& src, double thresh, double maxval, int type) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "threshold");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("threshold");
  double r = 0;
  auto out = produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) { r = cv::threshold(mat(s), d, thresh, maxval, type); });
  return {r, out};
}

template <class D, class T, int N>
Array<D, N> cv_add_weighted(const Array<T, N>& a, double alpha, const Array<T, N>& b, double beta, double gamma) {
  Array<T, N> ka, kb;
  auto s1 = cvk::in_image(a, ka, "addWeighted");
  auto s2 = cvk::in_image(b, kb, "addWeighted");
  if (s1.rows != s2.rows || s1.cols != s2.cols || s1.cn != s2.cn)
    cvk::cv_fail("The operation is neither 'array op array' (where arrays have the same size and the same number of "
                 "channels), nor 'array op scalar', nor 'scalar op array'", "arithm_op", "-209:Sizes of input arguments do not match");
  if (s1.rows == 0 || s1.cols == 0) cvk::none_result("addWeighted");
  return produce<D, N>(s1.rows, s1.cols, s1.cn,
                       [&](cv::Mat& d) { cv::addWeighted(mat(s1), alpha, mat(s2), beta, gamma, d, depth<D>()); });
}

template <class D, class T, int N>
Array<D, N> cv_normalize(const Array<T, N>& src, double a, double b, int norm_type) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "normalize");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("normalize");
  return produce<D, N>(s.rows, s.cols, s.cn,
                       [&](cv::Mat& d) { cv::normalize(mat(s), d, a, b, norm_type, depth<D>()); });
}

template <class D, class T, int N>
Array<D, N> cv_integral(const Array<T, N>& src) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "integral");
  return produce<D, N>(s.rows + 1, s.cols + 1, s.cn, [&](cv::Mat& d) { cv::integral(mat(s), d, depth<D>()); });
}

template <class T, int N>
Array<T, N> cv_equalize_hist(const Array<T, N>& src) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "equalizeHist");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("equalizeHist");
  return produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) { cv::equalizeHist(mat(s), d); });
}

// a small OpenCV result matrix copied into a fresh array
template <class T>
Array<T, 2> from_mat(const cv::Mat& m) {
  auto out = empty<T, 2>({m.rows, m.cols});
  for (int y = 0; y < m.rows; ++y)
    for (int x = 0; x < m.cols; ++x) out.data[y * m.cols + x] = m.at<T>(y, x);
  return out;
}

inline Array<double, 2> cv_rotation_matrix(cvk::Point2d center, double angle, double scale) {
  return guarded([&] {
    return from_mat<double>(cv::getRotationMatrix2D(cv::Point2f(float(center.x), float(center.y)), angle, scale));
  });
}

inline Array<uint8_t, 2> cv_structuring_element(int shape, cvk::Size2 ksize, cvk::Size2 anchor) {
  return guarded([&] {
    return from_mat<uint8_t>(cv::getStructuringElement(shape, cv::Size(int(ksize.width), int(ksize.height)),
                                                       cv::Point(int(anchor.width), int(anchor.height))));
  });
}

template <int Code, int NO, class T, int N>
Array<T, NO> cv_cvt_color(const Array<T, N>& src) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "cvtColor");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "cvtColor");
  cvk::check_cvt_channels(Code, s.cn);
  return produce<T, NO>(s.rows, s.cols, cvk::cvt_info(Code).dcn, [&](cv::Mat& d) { cv::cvtColor(mat(s), d, Code); });
}

}  // namespace ep::opencv

#include "imgproc_filter.hpp"
#include "imgproc_geom.hpp"
#include "imgproc_arith.hpp"

#endif  // EP_HAVE_OPENCV
