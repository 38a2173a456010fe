// torch.nn.functional kernels (variants/ops/torch_nn.py, torch_conv.py): linear, softmax and
// log_softmax, layer_norm, normalize, dropout at inference, with torch's shape checks and messages.
// Floating results are accumulated in double and rounded once (torch accumulates float32 in float32,
// so results agree to rounding); integer kernels wrap as torch's do.
#pragma once

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>

#include "torch_ops.hpp"

namespace ep {
namespace tch {

// accumulation type: double for floating results, the type itself for integers
template <class R>
using acc_t = std::conditional_t<std::is_floating_point_v<R>, double, R>;

// Python's repr of a float (for messages that echo a float argument)
inline std::string py_float(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}

// (outer, len, inner) of the rows along dim D
template <int D, int N>
inline void split_dims(const std::array<index_t, N>& shape, index_t& outer, index_t& len, index_t& inner) {
  outer = 1, len = 1, inner = 1;
  if constexpr (N > 0) {
    for (int k = 0; k < D; ++k) outer *= shape[k];
    len = shape[D];
    for (int k = D + 1; k < N; ++k) inner *= shape[k];
  }
}

// ---- linear: x @ w.T + b (w's rows are contiguous dot operands) --------------------------------
template <class R, class P = path::loops, class TX, int NX, class TW, int NW, class B>
auto linear(const Array<TX, NX>& x, const Array<TW, NW>& w, const B& bias) {
  auto out = [&] {
    if constexpr (NW == 1) {
      return tch::matmul<R, P>(x, w);
    } else {
      const index_t k = x.shape[NX - 1], o = w.shape[0];
      index_t rows = 1;
      for (int d = 0; d < NX - 1; ++d) rows *= x.shape[d];
      if (k != w.shape[1])
        raise("RuntimeError", "mat1 and mat2 shapes cannot be multiplied (" + mat(rows, k) + " and " +
                                  mat(w.shape[1], o) + ")");
      Array<R, NX> xc = la::contiguous_as<R>(x);
      Array<R, 2> wc = la::contiguous_as<R>(w);
      std::array<index_t, NX> shape = x.shape;
      shape[NX - 1] = o;
      if constexpr (!std::is_same_v<P, path::loops>) {  // one GEMM: (rows, k) @ w.T, folded back to shape
        Array<R, 2> x2{xc.data, {rows, k}, {k, 1}, xc.owner};
        Array<R, 2> wt{wc.data, {k, o}, {1, k}, wc.owner};
        Array<R, 2> y2 = ep::matmul<R, P>(x2, wt);
        Array<R, NX> y{y2.data, shape, c_strides<NX>(shape), y2.owner};
        return y;
      }
      Array<R, NX> y = ep::empty<R, NX>(shape);
      for (index_t i = 0; i < rows; ++i)
        for (index_t j = 0; j < o; ++j) y.data[i * o + j] = la::dot_contig<R>(xc.data + i * k, wc.data + j * k, k);
      return y;
    }
  }();
  if constexpr (!std::is_same_v<B, None>) {
    using O = decltype(out);
    constexpr int NO = O::ndim, NB = B::ndim;
    index_t rows = 1;
    for (int k = 0; k < NO - 1; ++k) rows *= out.shape[k];
    // addmm for matrices and contiguous 3-d inputs (flattened): the bias is expanded to [rows, out]
    if (NW == 2 && (NX == 2 || (NX == 3 && x.contiguous()))) {
      const std::array<index_t, 2> target{rows, out.shape[NO - 1]};
      for (int k = 0; k < NB && NB <= 2; ++k) {  // (a bias of more dims is refused when compiling)
        const index_t want = target[2 - NB + k], have = bias.shape[k];
        if (have != want && have != 1)
          raise("RuntimeError", "The expanded size of the tensor (" + std::to_string(want) +
                                    ") must match the existing size (" + std::to_string(have) +
                                    ") at non-singleton dimension " + std::to_string(2 - NB + k) +
                                    ".  Target sizes: " + sizes(target, 2) + ".  Tensor sizes: " + sizes(bias));
      }
    } else {  // out.add_(bias)
      check_broadcast<(NO > NB ? NO : NB)>(out, bias);
      for (int k = 0; k < NB; ++k)
        if (bias.shape[k] != 1 && out.shape[NO - NB + k] == 1)
          raise("RuntimeError", "output with shape " + sizes(out) + " doesn't match the broadcast shape");
    }
    map_into(out, [](auto y, auto b) { return static_cast<R>(y + static_cast<R>(b)); }, out, bias);
  }
  return out;
}

// ---- softmax / log_softmax along D ----------------------------------------------------------------
template <class R, int D, bool Log, class T, int N>
Array<R, N> softmax(const Array<T, N>& x) {
  Array<R, N> xc = la::contiguous_as<R>(x);
  Array<R, N> out = ep::empty<R, N>(x.shape);
  index_t outer, len, inner;
  split_dims<D, N>(x.shape, outer, len, inner);
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      const R* p = xc.data + o * len * inner + i;
      R* q = out.data + o * len * inner + i;
      R m = -std::numeric_limits<R>::infinity();
      for (index_t j = 0; j < len; ++j) m = sc::torch_max(m, p[j * inner]);
      acc_t<R> s = 0;
      for (index_t j = 0; j < len; ++j) {
        const R e = std::exp(p[j * inner] - m);
        s += e;
        if constexpr (!Log) q[j * inner] = e;
      }
      if constexpr (Log) {
        const R ls = static_cast<R>(std::log(s));
        for (index_t j = 0; j < len; ++j) q[j * inner] = (p[j * inner] - m) - ls;
      } else {
        for (index_t j = 0; j < len; ++j) q[j * inner] = static_cast<R>(q[j * inner] / s);
      }
    }
  return out;
}

// ---- layer_norm over the last K dims ----------------------------------------------------------------
template <int K, class A>
void check_affine(const A& p, const std::array<index_t, K>& ns, const char* what) {
  if constexpr (!std::is_same_v<A, None>) {
    bool same = A::ndim == K;
    if constexpr (A::ndim == K) same = p.shape == ns;
    if (!same)
      raise("RuntimeError", std::string("Expected ") + what + " to be of same shape as normalized_shape, but got " +
                                what + " of shape " + sizes(p) + " and normalized_shape = " + sizes(ns, K));
  }
}

template <class R, int K, class T, int N, class W, class B>
Array<R, N> layer_norm(const Array<T, N>& x, const std::array<index_t, K>& ns, const W& w, const B& b, double eps) {
  bool ok = N >= K;
  if constexpr (N >= K)
    for (int k = 0; k < K; ++k) ok = ok && x.shape[N - K + k] == ns[k];
  if (!ok) {
    std::string star = "[*";
    for (int k = 0; k < K; ++k) star += ", " + std::to_string(ns[k]);
    raise("RuntimeError", "Given normalized_shape=" + sizes(ns, K) + ", expected input with shape " + star +
                              "], but got input of size" + sizes(x));
  }
  check_affine<K>(w, ns, "weight");
  check_affine<K>(b, ns, "bias");
  if constexpr (N >= K) {
    index_t cols = 1;
    for (int k = 0; k < K; ++k) cols *= ns[k];
    const index_t rows = cols ? x.size() / cols : 0;
    Array<R, N> xc = la::contiguous_as<R>(x);
    Array<R, N> out = ep::empty<R, N>(x.shape);
    auto flat = [](const auto& p) {
      if constexpr (std::is_same_v<std::decay_t<decltype(p)>, None>) return Array<R, K>{};
      else return la::contiguous_as<R>(p);
    };
    const auto wc = flat(w), bc = flat(b);
    for (index_t r = 0; r < rows; ++r) {
      const R* p = xc.data + r * cols;
      R* q = out.data + r * cols;
      double mean = 0, var = 0;
      for (index_t j = 0; j < cols; ++j) mean += p[j];
      mean /= static_cast<double>(cols);
      for (index_t j = 0; j < cols; ++j) var += (p[j] - mean) * (p[j] - mean);
      const double rstd = 1.0 / std::sqrt(var / static_cast<double>(cols) + eps);
      for (index_t j = 0; j < cols; ++j) {
        double y = (p[j] - mean) * rstd;
        if constexpr (!std::is_same_v<W, None>) y *= wc.data[j];
        if constexpr (!std::is_same_v<B, None>) y += bc.data[j];
        q[j] = static_cast<R>(y);
      }
    }
    return out;
  } else {
    return Array<R, N>{};  // unreachable: the shape check raised
  }
}

// ---- normalize: x / max(||x||_p along D, eps) --------------------------------------------------------
template <class R, int D, class T, int N>
Array<R, N> normalize(const Array<T, N>& x, double p, double eps) {
  Array<R, N> xc = la::contiguous_as<R>(x);
  Array<R, N> out = ep::empty<R, N>(x.shape);
  index_t outer, len, inner;
  split_dims<D, N>(x.shape, outer, len, inner);
  const double inf = std::numeric_limits<double>::infinity();
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      const R* a = xc.data + o * len * inner + i;
      R* q = out.data + o * len * inner + i;
      double n = p == -inf ? inf : 0;
      for (index_t j = 0; j < len; ++j) {
        const double v = std::fabs(static_cast<double>(a[j * inner]));
        if (p == inf) n = std::isnan(v) || v > n ? v : n;
        else if (p == -inf) n = std::isnan(v) || v < n ? v : n;
        else if (p == 0) n += v != 0;
        else if (p == 1) n += v;
        else if (p == 2) n += v * v;
        else n += std::pow(v, p);
      }
      if (p == 2) n = std::sqrt(n);
      else if (p != 1 && p != 0 && std::isfinite(p)) n = std::pow(n, 1.0 / p);
      const R denom = static_cast<R>(std::isnan(n) ? n : std::max(n, eps));
      for (index_t j = 0; j < len; ++j) q[j * inner] = a[j * inner] / denom;
    }
  return out;
}

// F.dropout(x, p, training=False) with p known only at run time: the check, then x itself
template <class T, int N, class P>
Array<T, N> dropout_eval(const Array<T, N>& x, P p) {
  if (p < 0 || p > 1)
    raise("ValueError", "dropout probability has to be between 0 and 1, but got " +
                            (std::is_floating_point_v<P> ? py_float(static_cast<double>(p)) : std::to_string(p)));
  return x;
}

}  // namespace tch
}  // namespace ep

#include "torch_conv.hpp"
