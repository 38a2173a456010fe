// F.conv2d, F.max_pool2d and F.avg_pool2d on NCHW tensors (an unbatched CHW input is one batch),
// with torch's checks and messages (included by torch_nn.hpp). Geometry is fixed when compiling
// (variants/ops/torch_conv.py): Geo holds stride, padding (before and after, as padding='same' may
// be asymmetric) and dilation per spatial dim.
#pragma once

#include <cmath>
#include <limits>
#include <string>

namespace ep {
namespace tch {

struct Geo {
  index_t sh, sw, ph0, ph1, pw0, pw1, dh, dw;
  bool same = false;  // padding='same': from the kernel size, the odd one out after (ATen's _convolution_mode)
};

// the input as a contiguous 4-d batch of R (a CHW tensor gets a batch of one)
template <class R, class T, int N>
Array<R, 4> batch4(const Array<T, N>& x) {
  static_assert(N == 3 || N == 4, "conv/pool inputs are 3-d or 4-d");
  Array<R, N> c = la::contiguous_as<R>(x);
  Array<R, 4> out;
  out.data = c.data;
  out.owner = c.owner;
  if constexpr (N == 3) out.shape = {1, x.shape[0], x.shape[1], x.shape[2]};
  else out.shape = x.shape;
  out.strides = c_strides<4>(out.shape);
  return out;
}

// the (N, C, H, W) result back in the input's rank
template <int N, class R>
Array<R, N> unbatch(const Array<R, 4>& y) {
  if constexpr (N == 4) {
    return y;
  } else {
    Array<R, 3> out;
    out.data = y.data;
    out.owner = y.owner;
    out.shape = {y.shape[1], y.shape[2], y.shape[3]};
    out.strides = c_strides<3>(out.shape);
    return out;
  }
}

// ---- conv2d ---------------------------------------------------------------------------------
// The geometry of one call, checked and resolved (padding='same' applied)
struct ConvShape {
  index_t n, c, h, wd, oc, icg, kh, kw, oh, ow, groups;
  Geo g;
};

// y[n, oc, oh, ow] = conv(x, w) + bias (bias may be null); x and w contiguous in R. loops: the direct
// sum of each output accumulated in double; paths/simd (and paths/threads in a unit with simd) run the
// blocked direct kernel of paths/simd/torch_conv.hpp, paths/threads alone the scalar conv_plane below,
// paths/blas im2col and one GEMM per group.
template <class R, class P>
struct ConvKernel {
  static void run(const R* x, const R* w, const R* bias, R* y, const ConvShape& s) {
    const Geo& g = s.g;
    const index_t ocg = s.oc / s.groups;
    for (index_t b = 0; b < s.n; ++b)
      for (index_t o = 0; o < s.oc; ++o) {
        const index_t gi = o / ocg;
        const acc_t<R> b0 = bias ? static_cast<acc_t<R>>(bias[o]) : acc_t<R>(0);
        R* out = y + (b * s.oc + o) * s.oh * s.ow;
        for (index_t i = 0; i < s.oh; ++i)
          for (index_t j = 0; j < s.ow; ++j) {
            acc_t<R> acc = b0;
            for (index_t ci = 0; ci < s.icg; ++ci) {
              const R* plane = x + (b * s.c + gi * s.icg + ci) * s.h * s.wd;
              const R* kern = w + (o * s.icg + ci) * s.kh * s.kw;
              for (index_t p = 0; p < s.kh; ++p) {
                const index_t r = i * g.sh + p * g.dh - g.ph0;
                if (r < 0 || r >= s.h) continue;
                for (index_t q = 0; q < s.kw; ++q) {
                  const index_t col = j * g.sw + q * g.dw - g.pw0;
                  if (col >= 0 && col < s.wd) acc += static_cast<acc_t<R>>(plane[r * s.wd + col]) * kern[p * s.kw + q];
                }
              }
            }
            out[i * s.ow + j] = static_cast<R>(acc);
          }
      }
  }
};

// the output columns j whose tap q falls inside the input row: [lo, hi)
inline void tap_columns(const ConvShape& s, index_t q, index_t& lo, index_t& hi) {
  const index_t off = q * s.g.dw - s.g.pw0;  // input column of output column 0
  lo = off >= 0 ? 0 : (-off + s.g.sw - 1) / s.g.sw;
  const index_t last = s.wd - 1 - off;  // j * sw <= last
  hi = last < 0 ? 0 : std::min(s.ow, last / s.g.sw + 1);
  lo = std::min(lo, hi);
}

// The direct kernel for one output plane (batch b, output channel o): the output row stays in cache
// while every input row under it adds its taps (Axpy: out[j] += k * in[j * sw], the path's vector form).
template <class R, class Axpy>
void conv_plane(const R* x, const R* w, const R* bias, R* y, const ConvShape& s, index_t b, index_t o, Axpy axpy) {
  const Geo& g = s.g;
  const index_t gi = o / (s.oc / s.groups);
  R* out = y + (b * s.oc + o) * s.oh * s.ow;
  const R b0 = bias ? bias[o] : R(0);
  for (index_t i = 0; i < s.oh; ++i) {
    R* row = out + i * s.ow;
    std::fill(row, row + s.ow, b0);
    for (index_t ci = 0; ci < s.icg; ++ci) {
      const R* plane = x + (b * s.c + gi * s.icg + ci) * s.h * s.wd;
      const R* kern = w + (o * s.icg + ci) * s.kh * s.kw;
      for (index_t p = 0; p < s.kh; ++p) {
        const index_t r = i * g.sh + p * g.dh - g.ph0;
        if (r < 0 || r >= s.h) continue;
        for (index_t q = 0; q < s.kw; ++q) {
          index_t lo, hi;
          tap_columns(s, q, lo, hi);
          if (lo < hi) axpy(row + lo, plane + r * s.wd + lo * g.sw + q * g.dw - g.pw0, kern[p * s.kw + q], hi - lo, g.sw);
        }
      }
    }
  }
}

// the scalar axpy (the threads path's inner loop when the unit has no simd path)
struct ScalarAxpy {
  template <class R>
  void operator()(R* __restrict out, const R* __restrict in, R k, index_t n, index_t stride) const {
    if (stride == 1)
      for (index_t j = 0; j < n; ++j) out[j] += k * in[j];
    else
      for (index_t j = 0; j < n; ++j) out[j] += k * in[j * stride];
  }
};

template <class R, class P = path::loops, class T, int N, class TW, class B>
Array<R, N> conv2d(const Array<T, N>& x_, const Array<TW, 4>& w_, const B& bias, Geo g, index_t groups) {
  Array<R, 4> x = batch4<R>(x_);
  const index_t n = x.shape[0], c = x.shape[1], h = x.shape[2], wd = x.shape[3];
  const index_t oc = w_.shape[0], icg = w_.shape[1], kh = w_.shape[2], kw = w_.shape[3];
  if (oc < 1)
    raise("RuntimeError", "Given groups=" + std::to_string(groups) + ", expected weight to be at least 1 at dimension 0, "
                          "but got weight of size " + sizes(w_) + " instead");
  if (oc % groups != 0)
    raise("RuntimeError", "Given groups=" + std::to_string(groups) + ", expected weight to be divisible by " +
                              std::to_string(groups) + " at dimension 0, but got weight of size [" + sizes(w_) +
                              "] instead");
  if (c != icg * groups)
    raise("RuntimeError", "Given groups=" + std::to_string(groups) + ", weight of size " + sizes(w_) +
                              ", expected input" + sizes(x) + " to have " + std::to_string(icg * groups) +
                              " channels, but got " + std::to_string(c) + " channels instead");
  if constexpr (!std::is_same_v<B, None>) {
    if (B::ndim != 1 || bias.shape[0] != oc)
      raise("RuntimeError", "Given weight of size " + sizes(w_) + ", expected bias to be 1-dimensional with " +
                                std::to_string(oc) + " elements, but got bias of size " + sizes(bias) + " instead");
  }
  const index_t ekh = g.dh * (kh - 1) + 1, ekw = g.dw * (kw - 1) + 1;
  if (g.same) {
    g.ph0 = (ekh - 1) / 2, g.ph1 = ekh - 1 - g.ph0;
    g.pw0 = (ekw - 1) / 2, g.pw1 = ekw - 1 - g.pw0;
  }
  const index_t hp = h + g.ph0 + g.ph1, wp = wd + g.pw0 + g.pw1;
  if (hp < ekh || wp < ekw)
    raise("RuntimeError", "Calculated padded input size per channel: (" + std::to_string(hp) + " x " +
                              std::to_string(wp) + "). Kernel size: (" + std::to_string(ekh) + " x " +
                              std::to_string(ekw) + "). Kernel size can't be greater than actual input size");
  const index_t oh = (hp - ekh) / g.sh + 1, ow = (wp - ekw) / g.sw + 1;
  Array<R, 4> w = la::contiguous_as<R>(w_);
  Array<R, 4> y = ep::empty<R, 4>({n, oc, oh, ow});
  Array<R, 1> bc;
  if constexpr (!std::is_same_v<B, None>) {
    if constexpr (B::ndim == 1) bc = la::contiguous_as<R>(bias);  // (another rank raised above)
  }
  const ConvShape s{n, c, h, wd, oc, icg, kh, kw, oh, ow, groups, g};
  if (n * oc * oh * ow) ConvKernel<R, P>::run(x.data, w.data, std::is_same_v<B, None> ? nullptr : bc.data, y.data, s);
  return unbatch<N>(y);
}

// ---- pooling: ATen's pooling_output_shape and pool2d_shape_check -----------------------------------
inline index_t pool_out(index_t in, index_t k, index_t pad, index_t stride, index_t dil, bool ceil) {
  const index_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  index_t o = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;  // floor division
  if (ceil && (o - 1) * stride >= in + pad) --o;
  return o;
}

template <class R, class T, int N>
Array<R, 4> pool_input(const Array<T, N>& x_, index_t& oh, index_t& ow, index_t kh, index_t kw, Geo g, bool ceil) {
  bool empty_dim = false;
  for (int k = (N == 4 ? 1 : 0); k < N; ++k) empty_dim = empty_dim || x_.shape[k] == 0;
  if (empty_dim)
    raise("RuntimeError", "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:" +
                              sizes(x_));
  Array<R, 4> x = batch4<R>(x_);
  const index_t c = x.shape[1], h = x.shape[2], w = x.shape[3];
  oh = pool_out(h, kh, g.ph0, g.sh, g.dh, ceil);
  ow = pool_out(w, kw, g.pw0, g.sw, g.dw, ceil);
  if (oh < 1 || ow < 1)
    raise("RuntimeError", "Given input size: (" + std::to_string(c) + "x" + std::to_string(h) + "x" + std::to_string(w) +
                              "). Calculated output size: (" + std::to_string(c) + "x" + std::to_string(oh) + "x" +
                              std::to_string(ow) + "). Output size is too small");
  return x;
}

// max_pool2d: padding counts as -inf; a NaN in the window wins, as in ATen
template <class R, class T, int N>
Array<R, N> max_pool2d(const Array<T, N>& x_, index_t kh, index_t kw, Geo g, bool ceil) {
  index_t oh, ow;
  Array<R, 4> x = pool_input<R>(x_, oh, ow, kh, kw, g, ceil);
  const index_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  Array<R, 4> y = ep::empty<R, 4>({n, c, oh, ow});
  for (index_t pl = 0; pl < n * c; ++pl) {
    const R* in = x.data + pl * h * w;
    R* out = y.data + pl * oh * ow;
    for (index_t i = 0; i < oh; ++i)
      for (index_t j = 0; j < ow; ++j) {
        R m = std::numeric_limits<R>::has_infinity ? -std::numeric_limits<R>::infinity()
                                                   : std::numeric_limits<R>::lowest();
        for (index_t p = 0; p < kh; ++p) {
          const index_t r = i * g.sh - g.ph0 + p * g.dh;
          if (r < 0 || r >= h) continue;
          for (index_t q = 0; q < kw; ++q) {
            const index_t col = j * g.sw - g.pw0 + q * g.dw;
            if (col < 0 || col >= w) continue;
            const R v = in[r * w + col];
            if (v > m || sc::isnan(v)) m = v;
          }
        }
        out[i * ow + j] = m;
      }
  }
  return unbatch<N>(y);
}

// avg_pool2d: ATen's divisor (the window clipped to the padded input, or to the input itself)
template <class R, class T, int N>
Array<R, N> avg_pool2d(const Array<T, N>& x_, index_t kh, index_t kw, Geo g, bool ceil, bool count_pad,
                       index_t divisor) {
  if (divisor == 0) raise("RuntimeError", "divisor must be not zero");
  index_t oh, ow;
  Array<R, 4> x = pool_input<R>(x_, oh, ow, kh, kw, g, ceil);
  const index_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  Array<R, 4> y = ep::empty<R, 4>({n, c, oh, ow});
  for (index_t pl = 0; pl < n * c; ++pl) {
    const R* in = x.data + pl * h * w;
    R* out = y.data + pl * oh * ow;
    for (index_t i = 0; i < oh; ++i)
      for (index_t j = 0; j < ow; ++j) {
        index_t h0 = i * g.sh - g.ph0, w0 = j * g.sw - g.pw0;
        index_t h1 = std::min(h0 + kh, h + g.ph0), w1 = std::min(w0 + kw, w + g.pw0);
        const index_t pool = (h1 - h0) * (w1 - w0);
        h0 = std::max<index_t>(h0, 0), w0 = std::max<index_t>(w0, 0);
        h1 = std::min(h1, h), w1 = std::min(w1, w);
        if (h0 >= h1 || w0 >= w1) {
          out[i * ow + j] = R(0);
          continue;
        }
        acc_t<R> s = 0;
        for (index_t r = h0; r < h1; ++r)
          for (index_t col = w0; col < w1; ++col) s += in[r * w + col];
        const index_t div = divisor > 0 ? divisor : (count_pad ? pool : (h1 - h0) * (w1 - w0));
        out[i * ow + j] = static_cast<R>(s / static_cast<acc_t<R>>(div));
      }
  }
  return unbatch<N>(y);
}

}  // namespace tch
}  // namespace ep
