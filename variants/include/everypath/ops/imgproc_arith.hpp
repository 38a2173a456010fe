// cv2 per-pixel arithmetic, loops path (variants/ops/opencv_core.py): bitwise_not/and/or/xor (on the
// bytes of any depth, with an optional 8-bit mask), convertScaleAbs, rotate and merge.
// The opencv path is paths/opencv/imgproc_arith.hpp; both check what OpenCV checks, in its words.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <tuple>
#include <utility>

#include "imgproc_core.hpp"

namespace ep {

namespace cvk {

enum class Bit { And, Or, Xor, Not };

// OpenCV's binary_op checks, then an all-zero destination where a mask leaves a pixel out
// (cv2 passes dst=None, which OpenCV creates zeroed before masking)
template <class T, int N, class M, int K>
void check_mask(const Img<const T>& s, const Array<M, K>* mask) {
  if (mask == nullptr) return;
  bool ok = std::is_same_v<M, uint8_t> || std::is_same_v<M, int8_t> || std::is_same_v<M, bool>;
  if constexpr (K == 3) ok = ok && mask->shape[2] == 1;
  ok = ok && mask->shape[0] == s.rows && mask->shape[1] == s.cols;
  cv_assert(ok, "(mtype == CV_8U || mtype == CV_8S || mtype == CV_Bool) && _mask.sameSize(*psrc1)", "binary_op");
}

// the unsigned integer of T's size: bitwise ops on T's bytes, whatever T is
template <class T>
using bits_t = std::conditional_t<sizeof(T) == 1, uint8_t, std::conditional_t<sizeof(T) == 2, uint16_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>>;

template <Bit Op, class T>
inline T bytes_op(T a, T b) {
  using U = bits_t<T>;
  const U x = std::bit_cast<U>(a), y = std::bit_cast<U>(b);
  const U r = Op == Bit::And ? U(x & y) : Op == Bit::Or ? U(x | y) : Op == Bit::Xor ? U(x ^ y) : U(~x);
  return std::bit_cast<T>(r);
}

// one row of width w: a branch-free loop the compiler vectorises when no mask is given
template <Bit Op, class T>
inline void bytes_row(const T* p, const T* q, T* o, index_t w) {
  for (index_t i = 0; i < w; ++i) o[i] = bytes_op<Op>(p[i], q[i]);
}

template <class T, int N, class M, int K>
Array<T, N> bitwise(Bit op, const Array<T, N>& a, const Array<T, N>* b, const Array<M, K>* mask, const char* fn) {
  Array<T, N> ka, kb, km_keep;
  auto s = in_image(a, ka, fn);
  Img<const T> t = s;
  if (b != nullptr) {
    const bool same = b->shape == a.shape;
    if (!same)
      cv_fail("The operation is neither 'array op array' (where arrays have the same size and type), nor 'array op "
              "scalar', nor 'scalar op array'", "binary_op", "-209:Sizes of input arguments do not match");
    t = in_image(*b, kb, fn);
  }
  check_mask<T, N>(s, mask);
  if (s.rows == 0 || s.cols == 0) none_result(fn);
  auto out = new_image<T, N>(s.rows, s.cols, s.cn);
  auto d = image_of(out);
  for (index_t y = 0; y < s.rows; ++y) {
    const T* p = s.row(y);
    const T* q = t.row(y);
    T* o = d.row(y);
    switch (op) {
      case Bit::And: bytes_row<Bit::And>(p, q, o, s.width()); break;
      case Bit::Or: bytes_row<Bit::Or>(p, q, o, s.width()); break;
      case Bit::Xor: bytes_row<Bit::Xor>(p, q, o, s.width()); break;
      case Bit::Not: bytes_row<Bit::Not>(p, q, o, s.width()); break;
    }
    if (mask != nullptr)  // then zero what the mask leaves out (cv2's dst=None starts zeroed)
      for (index_t x = 0; x < s.cols; ++x)
        if (mask->data[y * mask->strides[0] + x * mask->strides[1]] == 0)
          for (index_t c = 0; c < s.cn; ++c) o[x * s.cn + c] = T(0);
  }
  return out;
}

}  // namespace cvk

// mask: a pointer to the mask array, or nullptr (no mask); MaskT names its type either way
template <class T, int N, class MaskT = Array<uint8_t, 2>>
Array<T, N> cv_bitwise_not(const Array<T, N>& a, const MaskT* mask = nullptr) {
  return cvk::bitwise<T, N>(cvk::Bit::Not, a, nullptr, mask, "bitwise_not");
}
template <int Op, class T, int N, class MaskT = Array<uint8_t, 2>>
Array<T, N> cv_bitwise(const Array<T, N>& a, const Array<T, N>& b, const MaskT* mask = nullptr) {
  constexpr const char* names[] = {"bitwise_and", "bitwise_or", "bitwise_xor"};
  return cvk::bitwise<T, N>(static_cast<cvk::Bit>(Op), a, &b, mask, names[Op]);
}

// saturate_cast<uchar>(|src * alpha + beta|), computed in float as OpenCV's cvtScaleAbs does
template <class T, int N>
Array<uint8_t, N> cv_convert_scale_abs(const Array<T, N>& src, double alpha, double beta) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "convertScaleAbs");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("convertScaleAbs");
  auto out = cvk::new_image<uint8_t, N>(s.rows, s.cols, s.cn);
  auto d = cvk::image_of(out);
  const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
  for (index_t y = 0; y < s.rows; ++y) {
    const T* p = s.row(y);
    uint8_t* o = d.row(y);
    for (index_t i = 0; i < s.width(); ++i) o[i] = cvk::sat<uint8_t>(std::abs(static_cast<float>(p[i]) * a + b));
  }
  return out;
}

// cv2.ROTATE_90_CLOCKWISE (0), ROTATE_180 (1), ROTATE_90_COUNTERCLOCKWISE (2)
template <class T, int N>
Array<T, N> cv_rotate(const Array<T, N>& src, int code) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "rotate");
  if (s.rows == 0 || s.cols == 0) cvk::none_result("rotate");
  const bool quarter = code != 1;
  auto out = cvk::new_image<T, N>(quarter ? s.cols : s.rows, quarter ? s.rows : s.cols, s.cn);
  auto d = cvk::image_of(out);
  // 32 x 32 tiles: a quarter turn reads columns, which misses the cache on every pixel otherwise
  constexpr index_t B = 32;
  for (index_t y0 = 0; y0 < d.rows; y0 += B)
    for (index_t x0 = 0; x0 < d.cols; x0 += B)
      for (index_t y = y0; y < std::min(y0 + B, d.rows); ++y) {
        T* o = d.row(y);
        for (index_t x = x0; x < std::min(x0 + B, d.cols); ++x) {
          // the source pixel of destination (y, x)
          const index_t sy = code == 0 ? s.rows - 1 - x : code == 1 ? s.rows - 1 - y : x;
          const index_t sx = code == 0 ? y : code == 1 ? s.cols - 1 - x : s.cols - 1 - y;
          const T* p = s.row(sy) + sx * s.cn;
          for (index_t c = 0; c < s.cn; ++c) o[x * s.cn + c] = p[c];
        }
      }
  return out;
}

// cv2.merge of a tuple of K same-sized 2-d images: (rows, cols, K), or a 2-d copy when K == 1
template <class T, class Tup>
auto cv_merge(const Tup& mv) {
  constexpr size_t K = std::tuple_size_v<Tup>;
  const auto items = std::apply([](const auto&... a) { return std::array<const Array<T, 2>*, K>{&a...}; }, mv);
  const index_t rows = items[0]->shape[0], cols = items[0]->shape[1];
  cvk::cv_assert(rows > 0 && cols > 0, "!mv[0].empty()", "merge");
  for (size_t i = 1; i < K; ++i)
    cvk::cv_assert(items[i]->shape == items[0]->shape, "mv[i].size == mv[0].size && mv[i].depth() == depth", "merge");
  constexpr int N = K == 1 ? 2 : 3;
  auto out = cvk::new_image<T, N>(rows, cols, index_t(K));
  auto d = cvk::image_of(out);
  for (size_t c = 0; c < K; ++c) {
    const Array<T, 2>& a = *items[c];
    for (index_t y = 0; y < rows; ++y) {
      T* o = d.row(y) + c;
      const T* p = a.data + y * a.strides[0];
      for (index_t x = 0; x < cols; ++x) o[x * index_t(K)] = p[x * a.strides[1]];
    }
  }
  return out;
}

}  // namespace ep

namespace ep::cvk {
// The address of an operand (a temporary lives to the end of the call it is passed to)
template <class T>
const T* addr(const T& x) {
  return &x;
}
}  // namespace ep::cvk
