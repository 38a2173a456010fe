// F.interpolate on CPU tensors (variants/ops/torch_interp.py): mode='nearest' (1-d and 2-d spatial)
// and 'bilinear' (2-d), align_corners both ways, with ATen's index arithmetic (UpSample.h):
//   nearest   src = min(floor(dst * s), in - 1) in float, s = 1/scale_factor when given, else in/out
//             (dst itself when out == in, dst >> 1 when out == 2 in)
//   bilinear  s = (in - 1)/(out - 1) with align_corners, else as nearest's; src = s * dst, or
//             max(s * (dst + 0.5) - 0.5, 0); weights in the tensor's own float type (opmath), blended
//             along W first, then H, as ATen's Interpolate<2> does
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

#include "torch_nn.hpp"

namespace ep {
namespace tch {

template <size_t K, class Tup>
std::array<double, K> doubles_of(const Tup& t) {
  return std::apply([](auto... v) { return std::array<double, K>{static_cast<double>(v)...}; }, t);
}
template <size_t K, class Tup>
std::array<index_t, K> sizes_of(const Tup& t) {
  return std::apply([](auto... v) { return std::array<index_t, K>{static_cast<index_t>(v)...}; }, t);
}

inline int64_t nearest_src(int64_t dst, int64_t in, int64_t out, double scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const float s = scale > 0 ? static_cast<float>(1.0 / scale) : static_cast<float>(in) / static_cast<float>(out);
  const int64_t i = static_cast<int64_t>(std::floor(static_cast<float>(dst) * s));
  return i < in - 1 ? i : in - 1;
}

// one axis of a linear resampling: (index, next-index offset, weight of index, weight of next)
template <class W>
struct Tap {
  int64_t i, off;
  W w0, w1;
};

template <class W>
std::vector<Tap<W>> linear_taps(int64_t in, int64_t out, bool align, double scale) {
  W s;
  if (align) s = out > 1 ? static_cast<W>(in - 1) / static_cast<W>(out - 1) : W(0);
  else s = scale > 0 ? static_cast<W>(1.0 / scale) : static_cast<W>(in) / static_cast<W>(out);
  std::vector<Tap<W>> taps(static_cast<size_t>(out));
  for (int64_t d = 0; d < out; ++d) {
    W src = align ? s * static_cast<W>(d) : s * (static_cast<W>(d) + W(0.5)) - W(0.5);
    if (!align && src < 0) src = 0;
    int64_t i = static_cast<int64_t>(std::floor(src));
    if (i > in - 1) i = in - 1;
    W l = src - static_cast<W>(i);
    l = l < W(0) ? W(0) : (l > W(1) ? W(1) : l);
    taps[d] = {i, i < in - 1 ? 1 : 0, W(1) - l, l};
  }
  return taps;
}

template <int K>
[[noreturn]] void bad_sizes(const index_t* in, const index_t* out) {
  if constexpr (K == 1)
    raise("RuntimeError", "Input and output sizes should be greater than 0, but got input (W: " +
                              std::to_string(in[0]) + ") and output (W: " + std::to_string(out[0]) + ")");
  else
    raise("RuntimeError", "Input and output sizes should be greater than 0, but got input (H: " +
                              std::to_string(in[0]) + ", W: " + std::to_string(in[1]) + ") output (H: " +
                              std::to_string(out[0]) + ", W: " + std::to_string(out[1]) + ")");
}

// size[k] < 0: from scale[k] (floor(in * scale), as ATen's compute_output_size); scale[k] <= 0: none
template <bool Linear, bool Align, class T, int N>
Array<T, N> interpolate(const Array<T, N>& x, std::array<index_t, N - 2> size, std::array<double, N - 2> scale) {
  constexpr int K = N - 2;
  static_assert(K == 1 || K == 2, "F.interpolate: 3-d or 4-d input");
  std::array<index_t, K> in{}, out{};
  for (int k = 0; k < K; ++k) {
    in[k] = x.shape[2 + k];
    out[k] = size[k] >= 0 ? size[k] : static_cast<index_t>(static_cast<double>(in[k]) * scale[k]);
  }
  for (int k = 0; k < K; ++k)
    if (in[k] <= 0 || out[k] <= 0) bad_sizes<K>(in.data(), out.data());
  std::array<index_t, N> shape = x.shape;
  for (int k = 0; k < K; ++k) shape[2 + k] = out[k];
  const Array<T, N> xc = la::contiguous_as<T>(x);
  Array<T, N> y = ep::empty<T, N>(shape);
  const index_t planes = x.shape[0] * x.shape[1];
  const index_t ih = K == 2 ? in[0] : 1, iw = in[K - 1], oh = K == 2 ? out[0] : 1, ow = out[K - 1];
  const double sh = K == 2 ? scale[0] : 0, sw = scale[K - 1];
  if constexpr (!Linear) {
    std::vector<int64_t> cols(static_cast<size_t>(ow)), rows(static_cast<size_t>(oh));
    for (index_t j = 0; j < ow; ++j) cols[j] = nearest_src(j, iw, ow, sw);
    for (index_t i = 0; i < oh; ++i) rows[i] = K == 2 ? nearest_src(i, ih, oh, sh) : 0;
    for (index_t p = 0; p < planes; ++p)
      for (index_t i = 0; i < oh; ++i) {
        const T* src = xc.data + (p * ih + rows[i]) * iw;
        T* dst = y.data + (p * oh + i) * ow;
        for (index_t j = 0; j < ow; ++j) dst[j] = src[cols[j]];
      }
  } else {
    static_assert(std::is_floating_point_v<T>, "bilinear needs a floating tensor");
    const auto hs = linear_taps<T>(ih, oh, Align, sh), ws = linear_taps<T>(iw, ow, Align, sw);
    for (index_t p = 0; p < planes; ++p)
      for (index_t i = 0; i < oh; ++i) {
        const Tap<T>& h = hs[i];
        const T* r0 = xc.data + (p * ih + h.i) * iw;
        const T* r1 = r0 + h.off * iw;
        T* dst = y.data + (p * oh + i) * ow;
        for (index_t j = 0; j < ow; ++j) {
          const Tap<T>& w = ws[j];
          const T t0 = r0[w.i] * w.w0 + r0[w.i + w.off] * w.w1;
          const T t1 = r1[w.i] * w.w0 + r1[w.i + w.off] * w.w1;
          dst[j] = t0 * h.w0 + t1 * h.w1;
        }
      }
  }
  return y;
}

}  // namespace tch
}  // namespace ep
