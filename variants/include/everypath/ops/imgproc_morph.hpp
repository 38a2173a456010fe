// cv2.medianBlur, erode / dilate / morphologyEx and Canny, loops path. Order
// statistics and min / max are exact; morphology follows cv::morphOp (a full
// rectangle with iterations becomes one bigger rectangle, the default border value
// leaves the border out); Canny is OpenCV's integer pipeline (int16 Sobel, L1 or
// squared-L2 magnitude, the tan(22.5) test in 15-bit fixed point, 8-connected hysteresis).
#pragma once

#include <algorithm>
#include <cfloat>
#include <limits>
#include <vector>

#include "imgproc_box.hpp"
#include "imgproc_core.hpp"
#include "imgproc_deriv.hpp"

namespace ep {
namespace cvk {

template <class T>
void check_median(const Img<const T>& s, int64_t ksize) {
  cv_assert(ksize % 2 == 1, "(ksize % 2 == 1) && (_src0.dims() <= 2 )", "medianBlur");
  cv_assert(s.rows > 0 && s.cols > 0, "!_src0.empty()", "medianBlur");
  if (ksize > 5)
    cv_assert(std::is_same_v<T, uint8_t> && (s.cn == 1 || s.cn == 3 || s.cn == 4),
              "src.depth() == CV_8U && (cn == 1 || cn == 3 || cn == 4)", "medianBlur");
}

// The structuring element as cv::morphOp ends up using it: offsets of its non-zero taps.
struct MorphPlan {
  std::vector<index_t> dy, dx;
  index_t kw = 3, kh = 3, ax = 1, ay = 1;
  int64_t iterations = 1;
  bool copy = false;
};

template <class K>
MorphPlan morph_plan(const Img<const K>* kern, Size2 anchor, int64_t iterations) {
  MorphPlan p;
  if (kern) p.kw = kern->cols, p.kh = kern->rows;
  const Size2 a = normalize_anchor(anchor, p.kw, p.kh);
  p.ax = a.width, p.ay = a.height;
  if (iterations == 0 || p.kw * p.kh == 1) {
    p.copy = true;
    return p;
  }
  std::vector<bool> on(static_cast<size_t>(p.kw * p.kh), true);
  bool full = true;
  if (kern)
    for (index_t y = 0; y < p.kh; ++y)
      for (index_t x = 0; x < p.kw; ++x) {
        on[y * p.kw + x] = kern->row(y)[x] != K(0);
        full = full && on[y * p.kw + x];
      }
  if (!kern || (iterations > 1 && full)) {
    const int64_t it = kern ? iterations : std::max<int64_t>(iterations, 1);
    if (!kern) p.kw = p.kh = 1 + 2 * it, p.ax = p.ay = it;
    else p.ax *= it, p.ay *= it, p.kw += (it - 1) * (p.kw - 1), p.kh += (it - 1) * (p.kh - 1);
    on.assign(static_cast<size_t>(p.kw * p.kh), true);
    iterations = 1;
  }
  for (index_t y = 0; y < p.kh; ++y)
    for (index_t x = 0; x < p.kw; ++x)
      if (on[y * p.kw + x]) p.dy.push_back(y), p.dx.push_back(x);
  if (p.dy.empty()) raise("ValueError", "cv2 morphology: the kernel has no non-zero element (not supported)");
  p.iterations = std::max<int64_t>(iterations, 1);
  return p;
}

// one erosion (max_op false) or dilation over s into d
template <class T>
void morph_once(const Img<const T>& s, const Img<T>& d, const MorphPlan& p, bool dilate, int border,
                const std::array<double, 4>& value, bool default_value) {
  const auto xt = border_table(s.cols, p.ax, p.kw - 1 - p.ax, border);
  const auto yt = border_table(s.rows, p.ay, p.kh - 1 - p.ay, border);
  T fill[4];
  for (int c = 0; c < 4; ++c) {
    if (default_value) fill[c] = dilate ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    else fill[c] = sat<T>(value[c]);
    if (default_value && std::is_floating_point_v<T>)
      fill[c] = dilate ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  }
  for (index_t y = 0; y < s.rows; ++y)
    for (index_t x = 0; x < s.cols; ++x)
      for (index_t c = 0; c < s.cn; ++c) {
        T best = s.row(y)[x * s.cn + c];
        bool first = true;
        for (size_t t = 0; t < p.dy.size(); ++t) {
          const index_t sy = yt[y + p.dy[t]], sx = xt[x + p.dx[t]];
          const T v = (sy < 0 || sx < 0) ? fill[c < 4 ? c : 0] : s.row(sy)[sx * s.cn + c];
          if (first) best = v, first = false;
          else best = dilate ? std::max(best, v) : std::min(best, v);
        }
        d.row(y)[x * s.cn + c] = best;
      }
}

// erode / dilate `iterations` times (ping-pong buffers); returns a new image
template <class T, int N>
Array<T, N> morph_apply(const Img<const T>& s, const MorphPlan& p, bool dilate, int border,
                        const std::array<double, 4>& value, bool default_value) {
  auto out = new_image<T, N>(s.rows, s.cols, s.cn);
  auto d = image_of(out);
  if (p.copy) {
    for (index_t y = 0; y < s.rows; ++y) std::copy(s.row(y), s.row(y) + s.width(), d.row(y));
    return out;
  }
  morph_once(s, d, p, dilate, border, value, default_value);
  for (int64_t i = 1; i < p.iterations; ++i) {
    auto next = new_image<T, N>(s.rows, s.cols, s.cn);
    morph_once(Img<const T>{d.data, d.rows, d.cols, d.cn, d.step}, image_of(next), p, dilate, border, value,
               default_value);
    out = next;
    d = image_of(out);
  }
  return out;
}

template <class T, int N>
Img<const T> cimg(const Array<T, N>& a) {
  auto m = image_of(a);
  return Img<const T>{m.data, m.rows, m.cols, m.cn, m.step};
}

}  // namespace cvk

template <class T, int N>
Array<T, N> cv_median_blur(const Array<T, N>& src, int64_t ksize) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "medianBlur");
  cvk::check_median(s, ksize);
  auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
  auto d = cvk::image_of(out);
  const index_t r = ksize / 2;
  std::vector<T> win(static_cast<size_t>(ksize * ksize));
  for (index_t y = 0; y < s.rows; ++y)
    for (index_t x = 0; x < s.cols; ++x)
      for (index_t c = 0; c < s.cn; ++c) {
        size_t n = 0;
        for (index_t j = -r; j <= r; ++j)
          for (index_t i = -r; i <= r; ++i) {
            const index_t sy = std::clamp<index_t>(y + j, 0, s.rows - 1), sx = std::clamp<index_t>(x + i, 0, s.cols - 1);
            win[n++] = s.row(sy)[sx * s.cn + c];
          }
        std::nth_element(win.begin(), win.begin() + n / 2, win.begin() + n);
        d.row(y)[x * s.cn + c] = win[n / 2];
      }
  return out;
}

// op: 0 erode, 1 dilate, 2 open, 3 close, 4 gradient, 5 tophat, 6 blackhat; kernel: None or a 2-d array
template <class T, int N, class Kernel>
Array<T, N> cv_morphology(const Array<T, N>& src, int op, const Kernel& kernel, cvk::Size2 anchor, int64_t iterations,
                          int border, const std::array<double, 4>& value, bool default_value) {
  static const char* names[] = {"erode", "dilate", "morphologyEx"};
  const char* fn = names[op < 2 ? op : 2];
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, fn);
  cvk::cv_assert(s.rows > 0 && s.cols > 0, op < 2 ? "!src.empty()" : "!_src.empty()", fn);
  cvk::MorphPlan plan;
  if constexpr (std::is_same_v<Kernel, None>) {
    plan = cvk::morph_plan<uint8_t>(nullptr, anchor, iterations);
  } else {
    Kernel kkeep;
    auto k = cvk::in_image(kernel, kkeep, fn);
    plan = cvk::morph_plan(&k, anchor, iterations);
  }
  auto run = [&](const cvk::Img<const T>& in, bool dil) {
    return cvk::morph_apply<T, N>(in, plan, dil, border, value, default_value);
  };
  auto diff = [&](const Array<T, N>& a, const Array<T, N>& b) {  // saturating a - b
    auto o = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
    for (index_t i = 0; i < o.size(); ++i)
      o.data[i] = std::is_integral_v<T> ? cvk::sat_int<T>(int64_t(a.data[i]) - int64_t(b.data[i])) : T(a.data[i] - b.data[i]);
    return o;
  };
  switch (op) {
    case 0: return run(s, false);
    case 1: return run(s, true);
    case 2: return run(cvk::cimg(run(s, false)), true);
    case 3: return run(cvk::cimg(run(s, true)), false);
    case 4: return diff(run(s, true), run(s, false));
    case 5: {
      auto base = cvk::morph_apply<T, N>(s, cvk::MorphPlan{{}, {}, 1, 1, 0, 0, 1, true}, false, border, value, true);
      return diff(base, run(cvk::cimg(run(s, false)), true));
    }
    default: {
      auto base = cvk::morph_apply<T, N>(s, cvk::MorphPlan{{}, {}, 1, 1, 0, 0, 1, true}, false, border, value, true);
      return diff(run(cvk::cimg(run(s, true)), false), base);
    }
  }
}

}  // namespace ep

#include "imgproc_canny.hpp"
