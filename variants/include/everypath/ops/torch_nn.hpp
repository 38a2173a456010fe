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

// ---- linear: x @ w.T + b ------------------------------------------------------------------------
// C[n, m] = X[n, k] @ W[m, k]^T into C (contiguous, not initialised). torch stores a weight as
// [out, in], so W is used as stored: the loops path takes dot products of W's rows, the threads and
// blas paths specialise LinearGemm (paths/threads/torch_nn.hpp, paths/blas/torch_nn.hpp: BLAS reads
// W through its transpose flag, no copy). Other product paths (accelerate) get W^T as one contiguous
// copy and their own la::Gemm.
template <class R, class P>
struct LinearGemm {
  static void run(const Array<R, 2>& x_, const Array<R, 2>& w_, R* C) {
    const index_t n = x_.shape[0], k = x_.shape[1], m = w_.shape[0];
    Array<R, 2> x = la::contiguous_as<R>(x_), w = la::contiguous_as<R>(w_);
    if constexpr (std::is_same_v<P, path::loops>) {
      for (index_t i = 0; i < n; ++i)
        for (index_t j = 0; j < m; ++j) C[i * m + j] = la::dot_contig<R>(x.data + i * k, w.data + j * k, k);
    } else {
      Array<R, 2> wt = copy(Array<R, 2>{w.data, {k, m}, {1, k}, w.owner});
      std::fill(C, C + n * m, R(0));
      la::Gemm<R, P>::run(x.data, wt.data, C, n, k, m);
    }
  }
};

// torch's bias checks for addmm (matrices, contiguous 3-d inputs: the bias expands to [rows, out])
// and for out.add_(bias) (everything else)
template <int NX, int NW, class TX, class O, class B>
void check_linear_bias(const Array<TX, NX>& x, const O& out, const B& bias, index_t rows) {
  constexpr int NO = O::ndim, NB = B::ndim;
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
  } else {
    check_broadcast<(NO > NB ? NO : NB)>(out, bias);
    for (int k = 0; k < NB; ++k)
      if (bias.shape[k] != 1 && out.shape[NO - NB + k] == 1)
        raise("RuntimeError", "output with shape " + sizes(out) + " doesn't match the broadcast shape");
  }
}

// the epilogue: one pass over the product adding a bias of one value per output column
template <class R, class TB>
void add_bias_rows(R* __restrict C, index_t rows, index_t m, const TB* b, index_t bs) {
  if (bs == 1 && std::is_same_v<R, TB>) {
    for (index_t i = 0; i < rows; ++i) {
      R* __restrict c = C + i * m;
      for (index_t j = 0; j < m; ++j) c[j] = static_cast<R>(c[j] + static_cast<R>(b[j]));
    }
    return;
  }
  for (index_t i = 0; i < rows; ++i)
    for (index_t j = 0; j < m; ++j) C[i * m + j] = static_cast<R>(C[i * m + j] + static_cast<R>(b[j * bs]));
}

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
      std::array<index_t, NX> shape = x.shape;
      shape[NX - 1] = o;
      Array<R, NX> y = ep::empty<R, NX>(shape);
      Array<R, 2> w2 = la::contiguous_as<R>(w);
      if (rows == 0 || o == 0) return y;
      if constexpr (NX == 2 && std::is_same_v<R, TX>) {
        if (k == 0) std::fill(y.data, y.data + rows * o, R(0));
        else LinearGemm<R, P>::run(x, w2, y.data);  // x as it is laid out (a transposed view: no copy on BLAS)
      } else {
        Array<R, NX> xc = la::contiguous_as<R>(x);
        Array<R, 2> x2{xc.data, {rows, k}, {k, 1}, xc.owner};
        if (k == 0) std::fill(y.data, y.data + rows * o, R(0));
        else LinearGemm<R, P>::run(x2, w2, y.data);
      }
      return y;
    }
  }();
  if constexpr (!std::is_same_v<B, None>) {
    using O = decltype(out);
    constexpr int NO = O::ndim, NB = B::ndim;
    index_t rows = 1;
    for (int k = 0; k < NO - 1; ++k) rows *= out.shape[k];
    check_linear_bias<NX, NW>(x, out, bias, rows);
    if constexpr (NB == 1 && NO >= 1) {
      if (out.contiguous()) {  // one value per output column: the epilogue pass
        const index_t m = out.shape[NO - 1];
        add_bias_rows<R>(out.data, rows, m, bias.data, bias.shape[0] == 1 && m != 1 ? 0 : bias.strides[0]);
        return out;
      }
    }
    map_into(out, [](auto y, auto b) { return static_cast<R>(y + static_cast<R>(b)); }, out, bias);
  }
  return out;
}

// ---- softmax / log_softmax along D ----------------------------------------------------------------
// The kernel runs rows [o0, o1) and lanes [i0, i1) of the (outer, len, inner) block; loops: a scalar
// row at a time, accumulated in double. paths/simd and paths/threads specialise it.
template <class R, bool Log, class P>
struct SoftmaxKernel {
  static void run(const R* x, R* y, index_t o0, index_t o1, index_t i0, index_t i1, index_t len, index_t inner) {
    for (index_t o = o0; o < o1; ++o)
      for (index_t i = i0; i < i1; ++i) {
        const R* p = x + o * len * inner + i;
        R* q = y + o * len * inner + i;
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
  }
};

template <class R, int D, bool Log, class P = path::loops, class T, int N>
Array<R, N> softmax(const Array<T, N>& x) {
  Array<R, N> xc = la::contiguous_as<R>(x);
  Array<R, N> out = ep::empty<R, N>(x.shape);
  index_t outer, len, inner;
  split_dims<D, N>(x.shape, outer, len, inner);
  if (outer && len && inner) SoftmaxKernel<R, Log, P>::run(xc.data, out.data, 0, outer, 0, inner, len, inner);
  return out;
}

// ---- layer_norm over the last K dims ----------------------------------------------------------------
// Rows [r0, r1) of cols values each; w and b may be null. loops: mean and variance in double (two
// passes); paths/simd and paths/threads specialise it.
template <class R, class P>
struct LayerNormKernel {
  static void run(const R* x, R* y, index_t r0, index_t r1, index_t cols, const R* w, const R* b, double eps) {
    for (index_t r = r0; r < r1; ++r) {
      const R* p = x + r * cols;
      R* q = y + r * cols;
      double mean = 0, var = 0;
      for (index_t j = 0; j < cols; ++j) mean += p[j];
      mean /= static_cast<double>(cols);
      for (index_t j = 0; j < cols; ++j) var += (p[j] - mean) * (p[j] - mean);
      const double rstd = 1.0 / std::sqrt(var / static_cast<double>(cols) + eps);
      for (index_t j = 0; j < cols; ++j) {
        double v = (p[j] - mean) * rstd;
        if (w) v *= w[j];
        if (b) v += b[j];
        q[j] = static_cast<R>(v);
      }
    }
  }
};

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

template <class R, int K, class P = path::loops, class T, int N, class W, class B>
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
    if (rows && cols) {
      const R* wp = nullptr;
      const R* bp = nullptr;
      if constexpr (!std::is_same_v<W, None>) wp = wc.data;
      if constexpr (!std::is_same_v<B, None>) bp = bc.data;
      LayerNormKernel<R, P>::run(xc.data, out.data, 0, rows, cols, wp, bp, eps);
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
