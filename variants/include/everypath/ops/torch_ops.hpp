// torch semantics on everypath arrays (variants/ops/torch_ops.py, torch_shape.py).
//   ep::sc::torch_*  element-wise scalar functions the fused loops call (all operands already in the
//                    result dtype, which is how torch computes them)
//   ep::tch::        reductions, views, joins, products and factories with torch's checks and
//                    messages (RuntimeError / IndexError), delegating to the NumPy kernels where the
//                    arithmetic is the same
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../map.hpp"
#include "../scalar.hpp"
#include "creation.hpp"
#include "linalg.hpp"
#include "reduce.hpp"
#include "shape.hpp"

namespace ep {
namespace sc {

// NaN-propagating max/min (torch's clamp and relu keep NaN, from the value or from a bound)
template <class T>
inline T torch_max(T a, T b) {
  if constexpr (is_real_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  }
  return a < b ? b : a;
}
template <class T>
inline T torch_min(T a, T b) {
  if constexpr (is_real_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  }
  return b < a ? b : a;
}

template <class T> inline T torch_relu(T a) { return torch_max(a, T(0)); }
template <class T> inline T torch_sigmoid(T a) { return T(1) / (T(1) + std::exp(-a)); }
template <class T> inline T torch_silu(T a) { return a / (T(1) + std::exp(-a)); }
template <class T> inline T torch_clamp(T a, T lo, T hi) { return torch_min(torch_max(a, lo), hi); }
template <class T> inline T torch_clamp_min(T a, T lo) { return torch_max(a, lo); }
template <class T> inline T torch_clamp_max(T a, T hi) { return torch_min(a, hi); }

// gelu: exact (erf) and approximate='tanh' (ATen's kBeta, kKappa)
template <class T> inline T torch_gelu(T a) { return a * T(0.5) * (T(1) + std::erf(a * T(M_SQRT1_2))); }
template <class T>
inline T torch_gelu_tanh(T a) {
  const T beta = T(M_SQRT2 * M_2_SQRTPI * 0.5), kappa = T(0.044715);
  return T(0.5) * a * (T(1) + std::tanh(beta * (a + kappa * a * a * a)));
}
template <class T> inline T torch_leaky_relu(T a, T slope) { return a > T(0) ? a : a * slope; }
template <class T> inline T torch_elu(T a, T alpha) { return a <= T(0) ? std::expm1(a) * alpha : a; }
// ATen's softplus (past the threshold the input itself) and hardswish (x * relu6(x + 3) / 6)
template <class T>
inline T torch_softplus(T a, T beta, T threshold) {
  return a * beta > threshold ? a : static_cast<T>(std::log1p(std::exp(a * beta))) / beta;
}
template <class T>
inline T torch_hardswish(T a) {
  const T r = std::min(std::max(a + T(3), T(0)), T(6));
  return a * r / T(6);
}

// integer // and % by zero raise, as torch does; floats follow Python's floor rules (NumPy's too)
template <class T>
inline T torch_floordiv(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == 0) raise("RuntimeError", "ZeroDivisionError");
  }
  return floordiv<T>(a, b);
}
template <class T>
inline T torch_mod(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == 0) raise("RuntimeError", "ZeroDivisionError");
  }
  return mod<T>(a, b);
}
// integer powers as ATen's powi: negative exponents give 1, -1 or 0 (a constant negative exponent is
// refused at compile time, as torch refuses it); everything else is std::pow
template <class T>
inline T torch_pow(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b < 0) return a == 1 ? T(1) : (a == -1 ? ((b & 1) ? T(-1) : T(1)) : T(0));
    T r = 1;
    while (b) {
      if (b & 1) r = static_cast<T>(r * a);
      b = static_cast<T>(b >> 1);
      a = static_cast<T>(a * a);
    }
    return r;
  } else if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else {
    return std::pow(a, b);
  }
}

}  // namespace sc

namespace tch {

// torch's "[2, 3]" spelling of a shape
template <class S>
std::string sizes(const S& shape, int n) {
  std::string s = "[";
  for (int k = 0; k < n; ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}
template <class T, int N>
std::string sizes(const Array<T, N>& a) {
  return sizes(a.shape, N);
}

// c10 infer_size over the operands in order: torch's broadcast error
template <int N, class A>
inline void infer_into(std::array<index_t, N>& acc, int& nacc, const A& a) {
  if constexpr (is_array_v<A>) {
    constexpr int M = std::decay_t<A>::ndim;
    const int n = nacc > M ? nacc : M;
    std::array<index_t, N> out{};
    for (int i = n - 1; i >= 0; --i) {
      const int k = n - 1 - i;
      const index_t x = k < nacc ? acc[N - 1 - k] : 1, y = k < M ? a.shape[M - 1 - k] : 1;
      if (x != y && x != 1 && y != 1)
        raise("RuntimeError", "The size of tensor a (" + std::to_string(x) + ") must match the size of tensor b (" +
                                  std::to_string(y) + ") at non-singleton dimension " + std::to_string(i));
      out[N - 1 - k] = x == 1 ? y : x;
    }
    acc = out;
    nacc = n;
  }
}
template <int N, class... Ops>
inline void check_broadcast(const Ops&... ops) {
  std::array<index_t, N> acc{};
  int nacc = 0;
  (infer_into<N>(acc, nacc, ops), ...);
}

// ep::map with torch's broadcast error
template <class Out, int N, class F, class... Ops>
Array<Out, N> map(F f, const Ops&... ops) {
  check_broadcast<N>(ops...);
  return ep::map<Out, N>(f, ops...);
}

}  // namespace tch
}  // namespace ep

#include "torch_half.hpp"  // torch.float16: the composites in float, rounded once

#include "torch_tensor.hpp"

// The simd path's batch forms of the torch scalar functions (lowering/simd_body.py VSC_OPS): the same
// selects as the scalar code above, lane by lane, so NaN and signed zeros come out as on the loops path.
#if defined(EP_HAVE_SIMD)
#include "../paths/simd/map.hpp"

namespace ep::vsc {

template <class V>
inline V torch_max(V a, V b) {
  if constexpr (is_batch_v<V>) return xsimd::select(xsimd::isnan(a), a, xsimd::select(xsimd::isnan(b), b, xsimd::select(a < b, b, a)));
  else return sc::torch_max<V>(a, b);
}
template <class V>
inline V torch_min(V a, V b) {
  if constexpr (is_batch_v<V>) return xsimd::select(xsimd::isnan(a), a, xsimd::select(xsimd::isnan(b), b, xsimd::select(b < a, b, a)));
  else return sc::torch_min<V>(a, b);
}
template <class V> inline V torch_relu(V a) { return torch_max(a, V(0)); }
template <class V>
inline V torch_sigmoid(V a) {
  if constexpr (is_batch_v<V>) return V(1) / (V(1) + xsimd::exp(-a));
  else return sc::torch_sigmoid<V>(a);
}
template <class V>
inline V torch_silu(V a) {
  if constexpr (is_batch_v<V>) return a / (V(1) + xsimd::exp(-a));
  else return sc::torch_silu<V>(a);
}
template <class V>
inline V torch_hardswish(V a) {
  if constexpr (is_batch_v<V>) {
    const V t = a + V(3), lo = xsimd::select(t < V(0), V(0), t);  // std::max, std::min: NaN passes through
    return a * xsimd::select(V(6) < lo, V(6), lo) / V(6);
  } else {
    return sc::torch_hardswish<V>(a);
  }
}

}  // namespace ep::vsc
#endif
