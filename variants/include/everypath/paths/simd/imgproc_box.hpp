// cv2.blur / cv2.boxFilter on the simd path (ep::simd, xsimd): the loops path's running
// sums and divisions (ops/imgproc_box.hpp) with the row sums of small kernels and the
// column pass vectorised. uint8 sums are exact 32-bit integers (any order gives the same
// sum); float32 sums are doubles added in the loops path's order (3 and 5 wide rows as
// direct sums, wider ones as its running sums), so results are identical to it.
#pragma once

#include <cstdint>
#include <vector>

#include "../../ops/imgproc_box.hpp"
#include "imgproc_core.hpp"

#if defined(EP_HAVE_SIMD)

namespace ep::simd {
namespace cvs {

// row sums of one source row: direct sums of k shifted loads from the bordered row
template <class S, class T>
void box_row(const T* sp, const std::vector<index_t>& xt, index_t lo, index_t cols, index_t cn, index_t k,
             std::vector<S>& pad, S* out) {
  using B = xsimd::batch<S>;
  constexpr index_t L = index_t(B::size);
  constexpr bool exact = std::is_integral_v<S>;
  if (!exact && k != 3 && k != 5) {  // float rows wider than 5: the loops path's running sums
    ep::cvk::box_row<S>(sp, xt, cols, cn, k, out);
    return;
  }
  pad_row<S>(sp, xt, lo, cols, cn, [](index_t) { return S(0); }, pad.data());
  const index_t w = cols * cn;
  const S* p = pad.data();
  if (exact && k > 16) {  // integer running sums: exact in any order
    for (index_t c = 0; c < cn; ++c) {
      S s = 0;
      for (index_t j = 0; j < k; ++j) s += p[j * cn + c];
      out[c] = s;
    }
    for (index_t i = cn; i < w; ++i) out[i] = out[i - cn] + p[i + (k - 1) * cn] - p[i - cn];
    return;
  }
  index_t i = 0;
  for (; i + L <= w; i += L) {
    B v = B::load_unaligned(p + i);
    for (index_t j = 1; j < k; ++j) v = v + B::load_unaligned(p + i + j * cn);
    v.store_unaligned(out + i);
  }
  for (; i < w; ++i) {
    S v = p[i];
    for (index_t j = 1; j < k; ++j) v = v + p[i + j * cn];
    out[i] = v;
  }
}

}  // namespace cvs

template <class T, int N>
Array<T, N> cv_box_filter(const Array<T, N>& src, cvk::Size2 ksize, cvk::Size2 anchor, bool normalize, int border) {
  constexpr bool u8 = std::is_same_v<T, uint8_t>;
  if constexpr (!u8 && !std::is_same_v<T, float>) {
    return ep::cv_box_filter(src, ksize, anchor, normalize, border);
  } else {
    Array<T, N> keep;
    auto s = cvk::in_image(src, keep, "boxFilter");
    cvk::cv_assert(s.rows > 0 && s.cols > 0, "!_src.empty()", "boxFilter");
    const index_t kw = ksize.width, kh = ksize.height;
    cvk::cv_assert(kw > 0 && kh > 0, "ksize.width > 0 && ksize.height > 0", "boxFilter");
    const cvk::Size2 a = cvk::normalize_anchor(anchor, kw, kh, true);
    const index_t w = s.width(), area = kw * kh;
    if (u8 && area > (1 << 23)) return ep::cv_box_filter(src, ksize, anchor, normalize, border);  // 32-bit sums
    auto out = cvk::new_image<T, N>(s.rows, s.cols, s.cn);
    auto d = cvk::image_of(out);
    using S = std::conditional_t<u8, int32_t, double>;
    using B = xsimd::batch<S>;
    constexpr index_t L = index_t(B::size);
    const auto xt = cvk::border_table(s.cols, a.width, kw - 1 - a.width, border);
    const auto yt = cvk::border_table(s.rows, a.height, kh - 1 - a.height, border);
    // row sums of each source row once; the bordered rows point at them (or at zeros)
    std::vector<S> sums(static_cast<size_t>(s.rows * w)), zero(static_cast<size_t>(w), S(0));
    std::vector<S> pad(static_cast<size_t>((s.cols + kw - 1) * s.cn) + 1);
    std::vector<char> done(static_cast<size_t>(s.rows), 0);
    auto row = [&](index_t r) -> const S* {
      const index_t sy = yt[r];
      if (sy < 0) return zero.data();
      if (!done[sy]) cvs::box_row<S>(s.row(sy), xt, a.width, s.cols, s.cn, kw, pad, sums.data() + sy * w), done[sy] = 1;
      return sums.data() + sy * w;
    };
    const double scale = normalize ? 1. / double(area) : 1.;
    // uint8 boxes of 2..256 pixels: (s + dd) * ds >> 23, as the loops path
    const cvk::BoxU8Scale fixed = u8 && normalize ? cvk::box_u8_scale(area) : cvk::BoxU8Scale{};
    const int ds = fixed.ds, dd = fixed.dd;
    const index_t vec_end = w & ~index_t(7);
    std::vector<S> sum(static_cast<size_t>(w), S(0)), v(static_cast<size_t>(w));
    std::vector<float> f(static_cast<size_t>(vec_end));  // uint8 sums scaled in float (the loops path's vector part)
    for (index_t r = 0; r < kh - 1; ++r) {
      const S* rp = row(r);
      for (index_t i = 0; i < w; ++i) sum[i] += rp[i];
    }
    for (index_t y = 0; y < s.rows; ++y) {
      const S* add = row(y + kh - 1);
      const S* sub = row(y);
      index_t i = 0;
      for (; i + L <= w; i += L) {
        const B x = B::load_unaligned(sum.data() + i) + B::load_unaligned(add + i);
        (x - B::load_unaligned(sub + i)).store_unaligned(sum.data() + i);
        x.store_unaligned(v.data() + i);
      }
      for (; i < w; ++i) {
        v[i] = sum[i] + add[i];
        sum[i] = v[i] - sub[i];
      }
      T* dp = d.row(y);
      if constexpr (u8) {
        if (!normalize) {
          for (index_t j = 0; j < w; ++j) dp[j] = uint8_t(std::clamp(v[j], 0, 255));
        } else if (area > 1 && area <= 256) {
          const uint32_t udd = uint32_t(dd), uds = uint32_t(ds);
          for (index_t j = 0; j < w; ++j) dp[j] = uint8_t(((uint32_t(v[j]) + udd) * uds) >> 23);
        } else {
          const float fs = float(scale);
          for (index_t j = 0; j < vec_end; ++j) f[j] = float(v[j]) * fs;
          cvs::store_round(f.data(), dp, vec_end);
          for (index_t j = vec_end; j < w; ++j) dp[j] = cvk::sat<T>(double(v[j]) * scale);
        }
      } else {
        for (index_t j = 0; j < w; ++j) dp[j] = float(v[j] * scale);
      }
    }
    return out;
  }
}

}  // namespace ep::simd
#endif
