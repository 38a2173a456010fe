// cv2.erode / dilate / morphologyEx on the simd path (ep::simd, xsimd): a rectangular
// element (None, all ones, or any of them grown by iterations) as a row pass (min / max
// of kw shifted loads from the bordered row) and a column pass (of kh row results).
// Other elements and dtypes other than uint8 / float32 are the loops path's code.
// NaN (float32) comes out as the loops path gives it: ep::cvk::morph_once keeps its first
// tap if that is NaN and otherwise skips NaN taps; here both passes skip NaN and the first
// tap (top left of the window) is looked at once more at the end.
#pragma once

#include <limits>
#include <vector>

#include "../../ops/imgproc_morph.hpp"
#include "imgproc_core.hpp"

#if defined(EP_HAVE_SIMD)

namespace ep::simd {
namespace cvs {

// a op b skipping NaN in a (std::min / max semantics once a is a number)
template <bool Dilate, class V>
inline V ext(V a, V b) {
  if constexpr (xsimd::is_batch<V>::value) {
    V m = Dilate ? xsimd::select(a < b, b, a) : xsimd::select(b < a, b, a);
    if constexpr (std::is_floating_point_v<typename V::value_type>) m = xsimd::select(xsimd::isnan(a), b, m);
    return m;
  } else {
    if constexpr (std::is_floating_point_v<V>)
      if (a != a) return b;
    return Dilate ? (a < b ? b : a) : (b < a ? b : a);
  }
}

template <bool Dilate, class T>
void morph_rect(const Img<const T>& s, const Img<T>& d, const ep::cvk::MorphPlan& p, int border, const T* fill) {
  using B = xsimd::batch<T>;
  constexpr index_t L = index_t(B::size);
  const index_t cn = s.cn, w = s.cols * cn, kw = p.kw, kh = p.kh;
  const auto xt = ep::cvk::border_table(s.cols, p.ax, kw - 1 - p.ax, border);
  const auto yt = ep::cvk::border_table(s.rows, p.ay, kh - 1 - p.ay, border);
  auto fillc = [&](index_t c) { return fill[c < 4 ? c : 0]; };
  std::vector<T> pad(static_cast<size_t>((s.cols + kw - 1) * cn) + 1), rows(static_cast<size_t>(s.rows * w));
  std::vector<T> fillrow(static_cast<size_t>(w)), first(static_cast<size_t>(w));
  for (index_t i = 0; i < w; ++i) fillrow[i] = fillc(i % cn);
  std::vector<char> done(static_cast<size_t>(s.rows), 0);
  auto row = [&](index_t sy) -> const T* {
    if (sy < 0) return fillrow.data();
    T* r = rows.data() + sy * w;
    if (done[sy]) return r;
    pad_row<T>(s.row(sy), xt, p.ax, s.cols, cn, fillc, pad.data());
    index_t i = 0;
    for (; i + L <= w; i += L) {
      B m = B::load_unaligned(pad.data() + i);
      for (index_t j = 1; j < kw; ++j) m = ext<Dilate>(m, B::load_unaligned(pad.data() + i + j * cn));
      m.store_unaligned(r + i);
    }
    for (; i < w; ++i) {
      T m = pad[i];
      for (index_t j = 1; j < kw; ++j) m = ext<Dilate>(m, pad[i + j * cn]);
      r[i] = m;
    }
    done[sy] = 1;
    return r;
  };
  std::vector<const T*> src(static_cast<size_t>(kh));
  for (index_t y = 0; y < s.rows; ++y) {
    for (index_t j = 0; j < kh; ++j) src[j] = row(yt[y + j]);
    T* dp = d.row(y);
    index_t i = 0;
    for (; i + L <= w; i += L) {
      B m = B::load_unaligned(src[0] + i);
      for (index_t j = 1; j < kh; ++j) m = ext<Dilate>(m, B::load_unaligned(src[j] + i));
      m.store_unaligned(dp + i);
    }
    for (; i < w; ++i) {
      T m = src[0][i];
      for (index_t j = 1; j < kh; ++j) m = ext<Dilate>(m, src[j][i]);
      dp[i] = m;
    }
    if constexpr (std::is_floating_point_v<T>) {  // a NaN first tap wins, as in the loops path
      const index_t sy = yt[y];
      for (index_t x = 0; x < s.cols; ++x)
        for (index_t c = 0; c < cn; ++c) {
          const T t0 = (sy < 0 || xt[x] < 0) ? fillc(c) : s.row(sy)[xt[x] * cn + c];
          if (t0 != t0) dp[x * cn + c] = t0;
        }
    }
  }
}

}  // namespace cvs

template <class T, int N, class Kernel>
Array<T, N> cv_morphology(const Array<T, N>& src, int op, const Kernel& kernel, cvk::Size2 anchor, int64_t iterations,
                          int border, const std::array<double, 4>& value, bool default_value) {
  if constexpr (!std::is_same_v<T, uint8_t> && !std::is_same_v<T, float>) {
    return ep::cv_morphology(src, op, kernel, anchor, iterations, border, value, default_value);
  } else {
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
    const bool rect = !plan.copy && plan.iterations == 1 && index_t(plan.dy.size()) == plan.kw * plan.kh;
    if (!rect || op > 1) return ep::cv_morphology(src, op, kernel, anchor, iterations, border, value, default_value);
    const bool dil = op == 1;
    T fill[4];
    for (int c = 0; c < 4; ++c) {  // as ep::cvk::morph_once
      if (default_value) fill[c] = dil ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
      else fill[c] = cvk::sat<T>(value[c]);
      if (default_value && std::is_floating_point_v<T>)
        fill[c] = dil ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    }
    auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
    if (dil) cvs::morph_rect<true>(s, cvk::image_of(out), plan, border, fill);
    else cvs::morph_rect<false>(s, cvk::image_of(out), plan, border, fill);
    return out;
  }
}

}  // namespace ep::simd
#endif
