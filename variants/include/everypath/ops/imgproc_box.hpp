// cv2.blur / cv2.boxFilter, loops path: OpenCV's running row and column sums and its
// ways of dividing by the area: uint8 sums of at most 256 pixels use a 23-bit
// reciprocal, other integer sums a float scale for whole groups of 8 elements (its vector
// loop) and a double one for the rest of a row, float images double sums.
#pragma once

#include <cmath>
#include <vector>

#include "imgproc_core.hpp"

namespace ep {
namespace cvk {

// the anchor (-1: the centre) checked like normalizeAnchor, or like FilterEngine::init (box filters)
inline Size2 normalize_anchor(Size2 anchor, index_t kw, index_t kh, bool engine = false) {
  const index_t ax = anchor.width == -1 ? kw / 2 : anchor.width, ay = anchor.height == -1 ? kh / 2 : anchor.height;
  if (ax < 0 || ay < 0 || ax >= kw || ay >= kh) {
    if (engine)
      cv_fail("0 <= anchor.x && anchor.x < ksize.width && 0 <= anchor.y && anchor.y < ksize.height", "init");
    cv_fail("anchor.inside(Rect(0, 0, ksize.width, ksize.height))", "normalizeAnchor");
  }
  return Size2{ax, ay};
}

// Row sums of one bordered source row, in OpenCV's order (S is the sum type).
template <class S, class T>
void box_row(const T* sp, const std::vector<index_t>& xt, index_t cols, index_t cn, index_t k, S* out) {
  auto px = [&](index_t p, index_t c) -> S { return xt[p] < 0 ? S(0) : S(sp[xt[p] * cn + c]); };
  for (index_t c = 0; c < cn; ++c) {
    if (k == 3 || k == 5) {
      for (index_t x = 0; x < cols; ++x) {
        S v = px(x, c);
        for (index_t j = 1; j < k; ++j) v = v + px(x + j, c);
        out[x * cn + c] = v;
      }
      continue;
    }
    S s = 0;
    for (index_t j = 0; j < k; ++j) s += px(j, c);
    out[c] = s;
    for (index_t x = 1; x < cols; ++x) {
      s += px(x + k - 1, c) - px(x - 1, c);
      out[x * cn + c] = s;
    }
  }
}

}  // namespace cvk

namespace cvk {
// OpenCV's fixed-point mean of a uint8 box of 2..256 pixels: (sum + dd) * ds >> 23. Area 1
// is a copy (no rounding offset); {1, 0} also stands for "not in use".
struct BoxU8Scale {
  int ds = 1, dd = 0;
};

inline BoxU8Scale box_u8_scale(index_t area) {
  BoxU8Scale k;
  if (area <= 1 || area > 256) return k;
  const int dv = cv_round(double(area));
  double scalef = double(1 << 23) / dv;
  k.ds = cv_floor(scalef);
  scalef -= k.ds;
  k.dd = dv / 2;
  if (scalef < 0.5) k.dd++;
  else k.ds++;
  return k;
}
}  // namespace cvk

template <class T, int N>
Array<T, N> cv_box_filter(const Array<T, N>& src, cvk::Size2 ksize, cvk::Size2 anchor, bool normalize, int border) {
  Array<T, N> keep;
  auto s = cvk::in_image(src, keep, "boxFilter");
  cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "boxFilter");
  const index_t kw = ksize.width, kh = ksize.height;
  cvk::cv_assert(kw > 0 && kh > 0, "ksize.width > 0 && ksize.height > 0", "boxFilter");
  const cvk::Size2 a = cvk::normalize_anchor(anchor, kw, kh, true);
  auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
  auto d = cvk::image_of(out);
  const index_t w = s.width(), area = kw * kh;
  constexpr bool u8 = std::is_same_v<T, uint8_t>;
  constexpr bool small_int = std::is_same_v<T, uint16_t> || std::is_same_v<T, int16_t>;
  const bool int_sums = (u8 && area <= (1 << 23)) || (std::is_same_v<T, uint16_t> && area <= (1 << 15)) ||
                        (std::is_same_v<T, int16_t> && area <= (1 << 16));
  using S = std::conditional_t<std::is_floating_point_v<T>, double, int64_t>;
  const auto xt = cvk::border_table(s.cols, a.width, kw - 1 - a.width, border);
  const auto yt = cvk::border_table(s.rows, a.height, kh - 1 - a.height, border);
  // row sums of the bordered rows, in the order the column pass meets them
  std::vector<S> rows(static_cast<size_t>((s.rows + kh - 1) * w));
  for (index_t r = 0; r < s.rows + kh - 1; ++r) {
    S* rp = rows.data() + r * w;
    if (yt[r] < 0) std::fill(rp, rp + w, S(0));
    else cvk::box_row<S>(s.row(yt[r]), xt, s.cols, s.cn, kw, rp);
  }
  const double scale = normalize ? 1. / double(area) : 1.;
  const cvk::BoxU8Scale fixed = u8 && normalize ? cvk::box_u8_scale(area) : cvk::BoxU8Scale{};
  const int ds = fixed.ds, dd = fixed.dd;
  const index_t vec_end = w & ~index_t(7);
  std::vector<S> sum(static_cast<size_t>(w), S(0));
  for (index_t r = 0; r < kh - 1; ++r)
    for (index_t i = 0; i < w; ++i) sum[i] += rows[r * w + i];
  for (index_t y = 0; y < s.rows; ++y) {
    const S* add = rows.data() + (y + kh - 1) * w;
    const S* sub = rows.data() + y * w;
    T* dp = d.row(y);
    for (index_t i = 0; i < w; ++i) {
      const S v = sum[i] + add[i];
      sum[i] = v - sub[i];
      if (!normalize) dp[i] = cvk::sat_any<T>(v);
      else if (u8 && area > 1 && area <= 256) dp[i] = T(((int64_t(v) + dd) * ds) >> 23);
      else if ((u8 || small_int) && int_sums && i < vec_end) dp[i] = cvk::sat<T>(float(v) * float(scale));
      else dp[i] = cvk::sat<T>(double(v) * scale);
    }
  }
  return out;
}

}  // namespace ep
