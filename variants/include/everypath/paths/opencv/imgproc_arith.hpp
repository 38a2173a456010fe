// cv2 per-pixel arithmetic, opencv path (included by paths/opencv/imgproc.hpp inside EP_HAVE_OPENCV):
// bitwise_not/and/or/xor, convertScaleAbs, rotate through OpenCV's C++ API. Same signatures as the
// loops in ops/imgproc_arith.hpp; OpenCV's own checks raise (guarded), empty images give None there.
#pragma once

#include "../../ops/imgproc_arith.hpp"

namespace ep::opencv {

template <class M>
cv::Mat mask_mat(const M* mask, Array<uint8_t, 2>& keep) {
  if (mask == nullptr) return cv::Mat();
  if constexpr (std::is_same_v<M, Array<uint8_t, 2>>) {
    auto im = cvk::in_image(*mask, keep, "binary_op");
    return mat(im);
  } else {
    static_assert(std::is_same_v<M, Array<uint8_t, 2>>, "masks are 2-d uint8 images");
    return cv::Mat();
  }
}

template <class T, int N, class MaskT = Array<uint8_t, 2>>
Array<T, N> bitwise_call(int op, const Array<T, N>& a, const Array<T, N>* b, const MaskT* mask, const char* fn) {
  Array<T, N> ka, kb;
  Array<uint8_t, 2> km;
  auto s = cvk::in_image(a, ka, fn);
  cv::Mat sm = mat(s), tm = sm;
  if (b != nullptr) tm = mat(cvk::in_image(*b, kb, fn));
  cv::Mat mm = mask_mat(mask, km);
  if (b != nullptr && b->shape != a.shape)  // OpenCV would reallocate dst before it checks: check first
    cvk::cv_fail("The operation is neither 'array op array' (where arrays have the same size and type), nor "
                 "'array op scalar', nor 'scalar op array'", "binary_op", "-209:Sizes of input arguments do not match");
  if (mask != nullptr) cvk::check_mask<T, N>(s, mask);
  if (s.rows == 0 || s.cols == 0) cvk::none_result(fn);
  return produce<T, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) {
    if (mask != nullptr) d.setTo(0);  // cv2's dst=None is created zeroed; masked-out pixels stay 0
    if (op == 0) cv::bitwise_and(sm, tm, d, mm);
    else if (op == 1) cv::bitwise_or(sm, tm, d, mm);
    else if (op == 2) cv::bitwise_xor(sm, tm, d, mm);
    else cv::bitwise_not(sm, d, mm);
  });
}

template <class T, int N, class MaskT = Array<uint8_t, 2>>
Array<T, N> cv_bitwise_not(const Array<T, N>& a, const MaskT* mask = nullptr) {
  return bitwise_call<T, N>(3, a, nullptr, mask, "bitwise_not");
}
template <int Op, class T, int N, class MaskT = Array<uint8_t, 2>>
Array<T, N> cv_bitwise(const Array<T, N>& a, const Array<T, N>& b, const MaskT* mask = nullptr) {
  constexpr const char* names[] = {"bitwise_and", "bitwise_or", "bitwise_xor"};
  return bitwise_call<T, N>(Op, a, &b, mask, names[Op]);
}

template <class T, int N>
Array<uint8_t, N> cv_convert_scale_abs(const Array<T, N>& src, double alpha, double beta) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "convertScaleAbs");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("convertScaleAbs");
  return produce<uint8_t, N>(s.rows, s.cols, s.cn, [&](cv::Mat& d) { cv::convertScaleAbs(mat(s), d, alpha, beta); });
}

template <class T, int N>
Array<T, N> cv_rotate(const Array<T, N>& src, int code) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "rotate");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("rotate");
  const bool quarter = code != 1;
  return produce<T, N>(quarter ? s.cols : s.rows, quarter ? s.rows : s.cols, s.cn,
                       [&](cv::Mat& d) { cv::rotate(mat(s), d, code); });
}

template <class T, class Tup>
auto cv_merge(const Tup& mv) {
  constexpr size_t K = std::tuple_size_v<Tup>;
  const auto items = std::apply([](const auto&... a) { return std::array<const Array<T, 2>*, K>{&a...}; }, mv);
  std::array<Array<T, 2>, K> keep;
  std::vector<cv::Mat> mats;
  for (size_t i = 0; i < K; ++i) mats.push_back(mat(cvk::in_image(*items[i], keep[i], "merge")));
  const index_t rows = items[0]->shape[0], cols = items[0]->shape[1];
  cvk::cv_assert(rows > 0 && cols > 0, "!mv[0].empty()", "merge");  // before OpenCV sizes a destination
  for (size_t i = 1; i < K; ++i)
    cvk::cv_assert(items[i]->shape == items[0]->shape, "mv[i].size == mv[0].size && mv[i].depth() == depth", "merge");
  return produce<T, K == 1 ? 2 : 3>(rows, cols, index_t(K), [&](cv::Mat& d) { cv::merge(mats, d); });
}

}  // namespace ep::opencv
