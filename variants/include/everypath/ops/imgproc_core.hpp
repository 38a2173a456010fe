// Image plumbing shared by both cv2 paths (loops and opencv): ep::Array <-> image
// views, OpenCV's argument checks with its messages, rounding and saturation as
// OpenCV does them (cvRound is round-half-even), and border interpolation.
// An image is (rows, cols) or (rows, cols, cn) with interleaved channels, as cv2 sees
// a NumPy array; a 3-d array with one channel would come back 2-d from cv2, which a
// rank fixed at compile time cannot express, so it is refused (docs/semantics.md).
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <limits>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "../array.hpp"

namespace ep::cvk {

// OpenCV's constants (cv2.BORDER_*, cv2.INTER_*, cv2.THRESH_*, ...)
enum : int {
  BORDER_CONSTANT = 0, BORDER_REPLICATE = 1, BORDER_REFLECT = 2, BORDER_WRAP = 3, BORDER_REFLECT_101 = 4,
  BORDER_TRANSPARENT = 5, BORDER_ISOLATED = 16,
};
enum : int { CV_8U = 0, CV_8S = 1, CV_16U = 2, CV_16S = 3, CV_32S = 4, CV_32F = 5, CV_64F = 6 };

// Rows x cols pixels of cn interleaved channels; row y starts at data + y * step (elements).
template <class T>
struct Img {
  T* data = nullptr;
  index_t rows = 0, cols = 0, cn = 1, step = 0;
  T* row(index_t y) const { return data + y * step; }
  index_t width() const { return cols * cn; }  // elements per row
};

// cv::error with OpenCV's "(-code:Kind) text in function 'name'" (raised as ValueError: cv2.error
// is not a builtin exception; docs/semantics.md)
[[noreturn]] inline void cv_fail(const std::string& what, const char* fn, const char* kind = "-215:Assertion failed") {
  raise("ValueError", std::string("(") + kind + ") " + what + " in function '" + fn + "'");
}
inline void cv_assert(bool ok, const char* expr, const char* fn) {
  if (!ok) cv_fail(expr, fn);
}

template <class T, int N>
index_t channels(const Array<T, N>& a, const char* fn) {
  static_assert(N == 2 || N == 3, "cv2 images are 2-d or 3-d arrays");
  if constexpr (N == 2) {
    return 1;
  } else {
    const index_t cn = a.shape[2];
    if (cn == 1)
      raise("ValueError", std::string("cv2.") + fn + "(): a 3-d image with 1 channel gives a 2-d result in cv2, "
                          "whose rank everypath must know at compile time; pass img[:, :, 0]");
    if (cn < 1 || cn > 128) raise("ValueError", std::string("cv2.") + fn + "(): images have 1 to 128 channels, got " +
                                                  std::to_string(cn));
    return cn;
  }
}

// The pixels of a as an image, copied to a dense buffer only when a row's pixels are not
// (views with row steps, like img[::2, 1:], are used in place).
template <class T, int N>
Img<const T> in_image(const Array<T, N>& a, Array<T, N>& keep, const char* fn) {
  Img<const T> im;
  im.rows = a.shape[0];
  im.cols = a.shape[1];
  im.cn = channels(a, fn);
  bool dense = im.cols <= 1 || a.strides[1] == im.cn;
  if constexpr (N == 3) dense = dense && (im.cn == 1 || a.strides[2] == 1);
  dense = dense && (im.rows <= 1 || a.strides[0] >= im.cols * im.cn);
  const Array<T, N>* src = &a;
  if (!dense) {
    keep = copy(a);
    src = &keep;
  }
  im.data = src->data;
  im.step = im.rows > 1 ? src->strides[0] : im.cols * im.cn;
  return im;
}

template <class T, int N>
Array<T, N> new_image(index_t rows, index_t cols, index_t cn) {
  if constexpr (N == 2) return empty<T, 2>({rows, cols});
  else return empty<T, 3>({rows, cols, cn});
}

template <class T, int N>
Img<T> image_of(const Array<T, N>& a) {
  Img<T> im;
  im.data = a.data;
  im.rows = a.shape[0];
  im.cols = a.shape[1];
  im.cn = N == 3 ? a.shape[N - 1] : 1;
  im.step = im.cols * im.cn;
  return im;
}

// ---- rounding and saturation (cvRound / saturate_cast) ------------------------------------

// cvRound: nearest, ties to even (the SSE conversion); NaN and overflow give INT_MIN like it.
inline int cv_round(double v) {
  if (!(v >= -2147483648.5 && v < 2147483647.5)) return INT_MIN;
  return static_cast<int>(std::rint(v));
}
inline int cv_floor(double v) {
  const int i = cv_round(v);
  return i - (static_cast<double>(i) > v);
}
inline int cv_ceil(double v) {
  const int i = cv_round(v);
  return i + (static_cast<double>(i) < v);
}

template <class D>
D sat_int(int64_t v) {
  if constexpr (std::is_floating_point_v<D>) {
    return static_cast<D>(v);
  } else {
    constexpr int64_t lo = std::numeric_limits<D>::min(), hi = std::numeric_limits<D>::max();
    return static_cast<D>(v < lo ? lo : (v > hi ? hi : v));
  }
}

// saturate_cast<D>(v) for a floating-point v
template <class D, class F>
D sat(F v) {
  if constexpr (std::is_floating_point_v<D>) return static_cast<D>(v);
  else if constexpr (sizeof(D) == 4) return static_cast<D>(cv_round(static_cast<double>(v)));
  else return sat_int<D>(cv_round(static_cast<double>(v)));
}

// saturate_cast<D>(v) for any v
template <class D, class S>
D sat_any(S v) {
  if constexpr (std::is_floating_point_v<S>) return sat<D>(v);
  else return sat_int<D>(static_cast<int64_t>(v));
}

// ---- borders ---------------------------------------------------------------------------------

// cv::borderInterpolate: the source index standing for p outside [0, len); -1 for BORDER_CONSTANT
inline index_t border_index(index_t p, index_t len, int type) {
  if (static_cast<uint64_t>(p) < static_cast<uint64_t>(len)) return p;
  if (type == BORDER_REPLICATE) return p < 0 ? 0 : len - 1;
  if (type == BORDER_REFLECT || type == BORDER_REFLECT_101) {
    const index_t delta = type == BORDER_REFLECT_101;
    if (len == 1) return 0;
    do {
      if (p < 0) p = -p - 1 + delta;
      else p = len - 1 - (p - len) - delta;
    } while (static_cast<uint64_t>(p) >= static_cast<uint64_t>(len));
    return p;
  }
  if (type == BORDER_WRAP) {
    if (p < 0) p -= ((p - len + 1) / len) * len;
    if (p >= len) p %= len;
    return p;
  }
  return -1;  // BORDER_CONSTANT
}

// Source index of every position p in [-lo, n + hi) (a filter's reach around the image):
// -1 is the constant border
inline std::vector<index_t> border_table(index_t n, index_t lo, index_t hi, int border) {
  std::vector<index_t> t(static_cast<size_t>(n + lo + hi));
  for (index_t p = -lo; p < n + hi; ++p) t[p + lo] = border_index(p, n, border);
  return t;
}

// cv2 returns None for some empty inputs; a typed result cannot be None, so we raise.
[[noreturn]] inline void none_result(const char* fn) {
  raise("ValueError", std::string("cv2.") + fn + "() returns None for an empty image (everypath raises instead)");
}

template <class T>
void check_border_args(const Img<const T>& s, index_t top, index_t bottom, index_t left, index_t right, int border,
                       const std::array<double, 4>& value) {
  cv_assert(top >= 0 && bottom >= 0 && left >= 0 && right >= 0,
            "top >= 0 && bottom >= 0 && left >= 0 && right >= 0 && _src.dims() <= 2", "copyMakeBorder");
  if (border != BORDER_CONSTANT && (s.rows == 0 || s.cols == 0))  // cv2 loops forever here
    raise("ValueError", "cv2.copyMakeBorder(): an empty image can only get a BORDER_CONSTANT border");
  if (border == BORDER_CONSTANT && s.cn > 4)  // one value for all channels then
    cv_assert(value[0] == value[1] && value[0] == value[2] && value[0] == value[3],
              "value[0] == value[1] && value[0] == value[2] && value[0] == value[3]", "copyMakeBorder");
}

// ---- argument values -------------------------------------------------------------------------

// cv::Scalar from a Python number or a tuple of up to 4 numbers (missing items are 0)
template <class X>
std::array<double, 4> scalar4(const X& v) {
  std::array<double, 4> s{0, 0, 0, 0};
  if constexpr (std::is_arithmetic_v<X>) {
    s[0] = static_cast<double>(v);
  } else {
    static_assert(std::tuple_size_v<X> <= 4, "a cv::Scalar has at most 4 items");
    int k = 0;
    std::apply([&](const auto&... x) { ((s[k++] = static_cast<double>(x)), ...); }, v);
  }
  return s;
}

struct Size2 {
  index_t width, height;
};
template <class X>
Size2 size2(const X& t) {
  return Size2{static_cast<index_t>(std::get<0>(t)), static_cast<index_t>(std::get<1>(t))};
}
inline Size2 size2(None) { return Size2{0, 0}; }

struct Point2d {
  double x, y;
};
template <class X>
Point2d point2(const X& t) {
  return Point2d{static_cast<double>(std::get<0>(t)), static_cast<double>(std::get<1>(t))};
}

}  // namespace ep::cvk
