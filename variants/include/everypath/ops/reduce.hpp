// Reductions: sum, prod, mean, max, min, argmax, argmin, any, all, var, std
// and the nan* variants, over all axes or a compile-time set of axes (a bit
// mask). The walk follows NumPy's: when the innermost (coalesced) axis is
// reduced, each row is folded into its output element with NumPy's pairwise
// summation (blocks of 8 partial sums, recursion above 128 elements); when
// it is kept, whole rows are combined element-wise into the output. Axes are
// walked in the input's memory order, as NumPy's iterator does (reduce_order.hpp),
// so this reproduces NumPy's rounding exactly for C-contiguous inputs and for
// views (transposed, strided, reversed) alike.
#pragma once

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../scalar.hpp"
#include "argreduce.hpp"
#include "creation.hpp"
#include "reduce_order.hpp"

namespace ep {
namespace red {

template <class T>
inline constexpr bool is_inexact_v = std::is_floating_point_v<T> || is_complex_v<T>;

// NumPy's pairwise summation of n elements at p[0], p[s], ... (converted to R).
// Unit: s is 1 (known at compile time, so the 8 partial sums become one SIMD vector).
template <class R, bool Unit, class T, class Cv>
R pairwise_impl(const T* p, index_t n, index_t s, Cv cv) {
  if constexpr (Unit) s = 1;
  if (n < 8) {
    R res = R(0);
    for (index_t i = 0; i < n; ++i) res += cv(p[i * s]);
    return res;
  }
  if (n <= 128) {
    R r[8];
    for (int k = 0; k < 8; ++k) r[k] = cv(p[k * s]);
    index_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int k = 0; k < 8; ++k) r[k] += cv(p[(i + k) * s]);
    R res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += cv(p[i * s]);
    return res;
  }
  index_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_impl<R, Unit>(p, n2, s, cv) + pairwise_impl<R, Unit>(p + n2 * s, n - n2, s, cv);
}

template <class R, class T, class Cv>
R pairwise(const T* p, index_t n, index_t s, Cv cv) {
  return s == 1 ? pairwise_impl<R, true>(p, n, 1, cv) : pairwise_impl<R, false>(p, n, s, cv);
}

// Complex pairwise summation as NumPy does it: over 2n reals, 4 complex lanes.
template <class R, class T, class Cv>
R pairwise_complex(const T* p, index_t n, index_t s, Cv cv) {
  using V = typename R::value_type;
  if (n < 4) {
    V rr = V(-0.0), ri = V(-0.0);
    for (index_t i = 0; i < n; ++i) {
      R x = cv(p[i * s]);
      rr += x.real();
      ri += x.imag();
    }
    return R(rr, ri);
  }
  if (n <= 64) {
    V r[8];
    for (int k = 0; k < 4; ++k) {
      R x = cv(p[k * s]);
      r[2 * k] = x.real();
      r[2 * k + 1] = x.imag();
    }
    index_t i = 4;
    for (; i < n - (n % 4); i += 4)
      for (int k = 0; k < 4; ++k) {
        R x = cv(p[(i + k) * s]);
        r[2 * k] += x.real();
        r[2 * k + 1] += x.imag();
      }
    V rr = (r[0] + r[2]) + (r[4] + r[6]);
    V ri = (r[1] + r[3]) + (r[5] + r[7]);
    for (; i < n; ++i) {
      R x = cv(p[i * s]);
      rr += x.real();
      ri += x.imag();
    }
    return R(rr, ri);
  }
  index_t n2 = n;  // NumPy: n2 = (2n)/2, minus (2n/2) % 8 reals
  n2 -= n2 % 8;
  n2 /= 2;
  return pairwise_complex<R>(p, n2, s, cv) + pairwise_complex<R>(p + n2 * s, n - n2, s, cv);
}

struct Identity {
  template <class X>
  X operator()(const X& x) const { return x; }
};

template <class R>
struct Conv {
  template <class X>
  R operator()(const X& x) const { return elem_cast<R>(x); }
};

template <class R>
struct NanToZero {
  template <class X>
  R operator()(const X& x) const {
    if constexpr (std::is_floating_point_v<X>) return std::isnan(x) ? R(0) : elem_cast<R>(x);
    else if constexpr (is_complex_v<X>) return sc::isnan(x) ? R(0) : elem_cast<R>(x);
    else return elem_cast<R>(x);
  }
};

// --- ops: identity (or none), a row fold and an element-wise combine ----------
template <class R, class Cv = Conv<R>>
struct Sum {
  using result = R;
  static constexpr bool has_identity = true;
  static constexpr const char* name = "add";
  static R identity() { return R(0); }
  template <class T>
  static R row(R acc, const T* p, index_t n, index_t s) {
    if constexpr (is_half_v<R>) {  // HALF_add: float32 pairwise over the row, rounded into the float16 output
      auto cv = [](const auto& x) { return static_cast<float>(Cv{}(x)); };
      return R(static_cast<float>(acc) + pairwise<float>(p, n, s, cv));
    }
    else if constexpr (std::is_floating_point_v<R>) return acc + pairwise<R>(p, n, s, Cv{});
    else if constexpr (is_complex_v<R>) return acc + pairwise_complex<R>(p, n, s, Cv{});
    else if constexpr (std::is_same_v<R, bool>) {
      for (index_t i = 0; i < n; ++i) acc = acc || Cv{}(p[i * s]);
      return acc;
    } else {
      if (s == 1) {  // a unit-stride copy of the loop, which the compiler vectorises
        for (index_t i = 0; i < n; ++i) acc = static_cast<R>(acc + Cv{}(p[i]));
        return acc;
      }
      for (index_t i = 0; i < n; ++i) acc = static_cast<R>(acc + Cv{}(p[i * s]));
      return acc;
    }
  }
  template <class T>
  static R combine(R acc, const T& x) {
    if constexpr (std::is_same_v<R, bool>) return acc || Cv{}(x);
    else return static_cast<R>(acc + Cv{}(x));
  }
};

template <class R>
using NanSum = Sum<R, NanToZero<R>>;

// Full float sums of a view that does not coalesce into one stride: NumPy's buffered iterator
// copies whole rows into a buffer (as many as fit in 8192 elements) and sums each buffer
// pairwise, the buffer sums added in order; np.nansum / nanmean first copy the array (NaNs
// replaced by 0) and sum the copy, one pairwise sum over everything. Gather: elements per
// buffer, 0 for everything; void: not buffered (exact results, or no pairwise sum).
template <class Op>
struct Gather {
  static constexpr bool on = false;
  static constexpr index_t size = 0;
};
template <class R, class Cv>
struct Gather<Sum<R, Cv>> {
  static constexpr bool on = is_inexact_v<R>;
  static constexpr index_t size = std::is_same_v<Cv, Conv<R>> ? 8192 : 0;
};

template <class R>
struct Prod {
  using result = R;
  static constexpr bool has_identity = true;
  static constexpr const char* name = "multiply";
  static R identity() { return elem_cast<R>(1); }
  template <class T>
  static R row(R acc, const T* p, index_t n, index_t s) {
    for (index_t i = 0; i < n; ++i) acc = combine(acc, p[i * s]);
    return acc;
  }
  template <class T>
  static R combine(R acc, const T& x) {
    if constexpr (std::is_same_v<R, bool>) return acc && elem_cast<R>(x);
    else return static_cast<R>(acc * elem_cast<R>(x));
  }
};

// max/min of a contiguous real row with GCC/Clang vector types (the result is
// order-independent). NaN: x - x is NaN for NaN (and inf) inputs, so a NaN in
// the side sums sends the caller to the exact sequential loop.
template <bool IsMax, class R>
R minmax_lanes(const R* p, index_t n, bool& maybe_nan) {
  constexpr int L = 32 / sizeof(R);
  typedef R V __attribute__((vector_size(32)));
  V m, z = V{} * R(0);
  std::memcpy(&m, p, sizeof(V));
  index_t i = L;
  for (; i + L <= n; i += L) {
    V x;
    std::memcpy(&x, p + i, sizeof(V));
    m = IsMax ? (x > m ? x : m) : (x < m ? x : m);
    if constexpr (std::is_floating_point_v<R>) z += x - x;
  }
  R r = m[0];
  bool bad = false;
  for (int k = 0; k < L; ++k) {
    r = IsMax ? (m[k] > r ? m[k] : r) : (m[k] < r ? m[k] : r);
    if constexpr (std::is_floating_point_v<R>) bad = bad || z[k] != z[k] || m[k] != m[k];
  }
  for (; i < n; ++i) {
    const R x = p[i];
    r = IsMax ? (x > r ? x : r) : (x < r ? x : r);
    if constexpr (std::is_floating_point_v<R>) bad = bad || x != x;
  }
  maybe_nan = bad;
  return r;
}

template <bool IsMax, class R, class T>
inline bool use_lanes(index_t n, index_t s) {
  return std::is_same_v<R, T> && std::is_arithmetic_v<R> && !std::is_same_v<R, bool> && s == 1 && n >= 64;
}

// max / min: one fold, the direction chosen by IsMax (NaN-propagating like np.maximum)
template <bool IsMax, class R>
struct MinMax {
  using result = R;
  static constexpr bool has_identity = false;
  static constexpr const char* name = IsMax ? "maximum" : "minimum";
  template <class T>
  static R row(R acc, const T* p, index_t n, index_t s) {
    if constexpr (std::is_same_v<R, T> && std::is_arithmetic_v<R> && !std::is_same_v<R, bool>) {
      if (use_lanes<IsMax, R, T>(n, s)) {
        bool nan;
        R m = minmax_lanes<IsMax, R>(p, n, nan);
        if (!nan) return combine(acc, m);
      } else if (s != 1 && n >= 64) {  // strided (x[:, ::2]): blocks copied together, then the lanes
        constexpr index_t kBlock = 512;
        R buf[kBlock];
        for (index_t lo = 0; lo < n; lo += kBlock) {
          const index_t len = std::min(kBlock, n - lo);
          for (index_t i = 0; i < len; ++i) buf[i] = p[(lo + i) * s];
          bool nan = true;
          if (len >= 64) {
            const R m = minmax_lanes<IsMax, R>(buf, len, nan);
            if (!nan) acc = combine(acc, m);
          }
          if (nan)
            for (index_t i = 0; i < len; ++i) acc = combine(acc, buf[i]);
        }
        return acc;
      }
    }
    for (index_t i = 0; i < n; ++i) acc = combine(acc, p[i * s]);
    return acc;
  }
  template <class T>
  static R combine(R acc, const T& x) {
    if constexpr (IsMax) return sc::maximum<R>(acc, elem_cast<R>(x));
    else return sc::minimum<R>(acc, elem_cast<R>(x));
  }
};

template <class R>
using Max = MinMax<true, R>;
template <class R>
using Min = MinMax<false, R>;

// max with initial=0 (np.linalg.norm's ord=inf: empty inputs give 0)
template <class R>
struct Max0 : MinMax<true, R> {
  static constexpr bool has_identity = true;
  static R identity() { return R(0); }
};

// np.nanmax / np.nanmin reduce with np.fmax / np.fmin (NaN only when all are NaN)
template <bool IsMax, class R>
struct FMinMax {
  using result = R;
  static constexpr bool has_identity = false;
  static constexpr const char* name = IsMax ? "fmax" : "fmin";
  template <class T>
  static R row(R acc, const T* p, index_t n, index_t s) {
    for (index_t i = 0; i < n; ++i) acc = combine(acc, p[i * s]);
    return acc;
  }
  template <class T>
  static R combine(R acc, const T& x) {
    R y = elem_cast<R>(x);
    if constexpr (is_inexact_v<R>) {
      if (sc::isnan(y)) return acc;
      if (sc::isnan(acc)) return y;
    }
    if constexpr (IsMax) return sc::maximum<R>(acc, y);
    else return sc::minimum<R>(acc, y);
  }
};

template <class R>
using FMax = FMinMax<true, R>;
template <class R>
using FMin = FMinMax<false, R>;

struct Any {
  using result = bool;
  static constexpr bool has_identity = true;
  static constexpr const char* name = "logical_or";
  static bool identity() { return false; }
  template <class T>
  static bool row(bool acc, const T* p, index_t n, index_t s) {
    return acc || truth_row<false>(p, n, s);
  }
  // `|`, not `||`: no branch per element, so rows of outputs combine in vector lanes
  template <class T>
  static bool combine(bool acc, const T& x) { return acc | sc::truthy(x); }
};

struct All {
  using result = bool;
  static constexpr bool has_identity = true;
  static constexpr const char* name = "logical_and";
  static bool identity() { return true; }
  template <class T>
  static bool row(bool acc, const T* p, index_t n, index_t s) {
    return acc && truth_row<true>(p, n, s);
  }
  template <class T>
  static bool combine(bool acc, const T& x) { return acc & sc::truthy(x); }
};

// --- the walk ------------------------------------------------------------------
template <int N>
struct Walk {
  int m = 0;  // live dimensions after dropping size-1 axes and coalescing
  std::array<index_t, (N > 0 ? N : 1)> shape{}, istr{}, ostr{};
  std::array<bool, (N > 0 ? N : 1)> red{};
};

// shape/strides of `a`, the output strides (0 on reduced axes), in a's memory order as
// NumPy walks it (reduce_order.hpp), coalesced
template <int N>
Walk<N> plan(const std::array<index_t, N>& shape, const std::array<index_t, N>& istr,
             const std::array<index_t, N>& ostr, uint32_t mask) {
  Walk<N> w;
  const std::array<int, N> order = memory_order<N>(shape, istr);
  for (int q = 0; q < N; ++q) {
    const int k = order[q];
    if (shape[k] == 1) continue;
    const bool r = (mask >> k) & 1u;
    if (w.m > 0) {
      int j = w.m - 1;
      if (w.red[j] == r && w.istr[j] == shape[k] * istr[k] && w.ostr[j] == shape[k] * ostr[k]) {
        w.shape[j] *= shape[k];
        w.istr[j] = istr[k];
        w.ostr[j] = ostr[k];
        continue;
      }
    }
    w.shape[w.m] = shape[k];
    w.istr[w.m] = istr[k];
    w.ostr[w.m] = ostr[k];
    w.red[w.m] = r;
    ++w.m;
  }
  return w;
}

template <int N>
constexpr int kept_rank(uint32_t mask, bool keep) {
  return keep ? N : N - std::popcount(mask & ((N >= 32) ? ~0u : ((1u << N) - 1u)));
}

template <int N>
constexpr uint32_t all_axes() {
  return N >= 32 ? ~0u : ((1u << N) - 1u);
}

template <int N>
inline index_t reduced_count(const std::array<index_t, N>& shape, uint32_t mask) {
  index_t c = 1;
  for (int k = 0; k < N; ++k)
    if ((mask >> k) & 1u) c *= shape[k];
  return c;
}

// Fold a into out (keepdims layout: out has a's rank with 1 on reduced axes).
template <class Op, class T, int N>
void fold_into(typename Op::result* out, const std::type_identity_t<std::array<index_t, N>>& ostrides, const Array<T, N>& a, uint32_t mask,
               bool skip_first) {
  using R = typename Op::result;
  if constexpr (N == 0) {
    if (!skip_first) out[0] = Op::combine(out[0], a.data[0]);
  } else {
    if (a.size() == 0) return;
    std::array<index_t, N> ost{};
    for (int k = 0; k < N; ++k) ost[k] = ((mask >> k) & 1u) ? 0 : ostrides[k];
    // for ops without identity the output already holds the first element;
    // folding it in again is harmless (max(x, x) == x) except for cost.
    (void)skip_first;
    Walk<N> w = plan<N>(a.shape, a.strides, ost, mask);
    if (w.m == 0) {
      out[0] = Op::combine(out[0], a.data[0]);
      return;
    }
    const int L = w.m - 1;
    const index_t n = w.shape[L], is = w.istr[L], os = w.ostr[L];
    index_t per_buf = 1;  // rows gathered into one buffer (Gather)
    if constexpr (Gather<Op>::on) {
      if (w.red[L] && w.m >= 2 && (mask & all_axes<N>()) == all_axes<N>())
        per_buf = Gather<Op>::size == 0 ? a.size() / n : std::max<index_t>(1, Gather<Op>::size / n);
    }
    const Array<T, 1> buf = per_buf > 1 ? empty<T, 1>({per_buf * n}) : Array<T, 1>{};
    index_t filled = 0;
    std::array<index_t, N> idx{};
    while (true) {
      index_t ib = 0, ob = 0;
      for (int k = 0; k < L; ++k) {
        ib += idx[k] * w.istr[k];
        ob += idx[k] * w.ostr[k];
      }
      const T* p = a.data + ib;
      if (per_buf > 1) {  // a full reduction: ob is 0
        T* b = buf.data + filled * n;
        for (index_t i = 0; i < n; ++i) b[i] = p[i * is];
        if (++filled == per_buf) {
          out[0] = Op::row(out[0], buf.data, filled * n, 1);
          filled = 0;
        }
      } else if (w.red[L]) {
        out[ob] = Op::row(out[ob], p, n, is);
      } else {
        R* o = out + ob;
        constexpr bool truth = std::is_same_v<Op, All> || std::is_same_v<Op, Any>;
        if (truth && os == 1 && is == 1) {
          if constexpr (truth) truth_combine<std::is_same_v<Op, All>>(o, p, n);
        } else if (os == 1 && is == 1) {
          for (index_t i = 0; i < n; ++i) o[i] = Op::combine(o[i], p[i]);
        } else {
          for (index_t i = 0; i < n; ++i) o[i * os] = Op::combine(o[i * os], p[i * is]);
        }
      }
      int k = L - 1;
      for (; k >= 0; --k) {
        if (++idx[k] < w.shape[k]) break;
        idx[k] = 0;
      }
      if (k < 0) {
        if (filled > 0) out[0] = Op::row(out[0], buf.data, filled * n, 1);
        return;
      }
    }
  }
}

[[noreturn]] inline void no_identity(const char* name) {
  raise("ValueError", std::string("zero-size array to reduction operation ") + name + " which has no identity");
}

// The reduction of a over the axes in Mask, keepdims layout (rank N).
template <class Op, uint32_t Mask, class T, int N>
Array<typename Op::result, N> reduce_keep(const Array<T, N>& a) {
  using R = typename Op::result;
  std::array<index_t, N> oshape{};
  for (int k = 0; k < N; ++k) oshape[k] = ((Mask >> k) & 1u) ? 1 : a.shape[k];
  Array<R, N> out = empty<R, N>(oshape);
  const index_t osize = out.size();
  if constexpr (Op::has_identity) {
    std::fill(out.data, out.data + osize, Op::identity());
    fold_into<Op>(out.data, out.strides, a, Mask, false);
  } else {
    if (reduced_count<N>(a.shape, Mask) == 0) no_identity(Op::name);
    if (osize == 0) return out;
    // the first element along the reduced axes seeds each output
    Array<T, N> first = a;
    for (int k = 0; k < N; ++k)
      if ((Mask >> k) & 1u) first.shape[k] = 1;
    index_t j = 0;
    for_each_offset(first, [&](index_t off) { out.data[j++] = elem_cast<R>(first.data[off]); });
    fold_into<Op>(out.data, out.strides, a, Mask, true);
  }
  return out;
}

template <int M, class R, int N>
Array<R, M> drop_axes(const Array<R, N>& k, uint32_t mask) {
  if constexpr (M == N) {
    return k;
  } else {
    Array<R, M> out;
    out.data = k.data;
    out.owner = k.owner;
    int j = 0;
    for (int q = 0; q < N; ++q) {
      if ((mask >> q) & 1u) continue;
      out.shape[j] = k.shape[q];
      out.strides[j] = k.strides[q];
      ++j;
    }
    return out;
  }
}

template <class Op, uint32_t Mask, bool Keep, class T, int N>
auto reduce(const Array<T, N>& a) {
  constexpr int M = kept_rank<N>(Mask, Keep);
  auto k = reduce_keep<Op, Mask>(a);
  return drop_axes<M>(k, Keep ? 0u : Mask);
}

// Full reduction to a scalar.
template <class Op, class T, int N>
typename Op::result reduce_all(const Array<T, N>& a) {
  using R = typename Op::result;
  if constexpr (std::is_same_v<Op, Sum<R>> && std::is_same_v<T, bool> && std::is_integral_v<R> &&
                !std::is_same_v<R, bool>) {
    if (a.contiguous()) {  // counting true bytes: a vectorised byte sum in 255-byte chunks
      const index_t n = a.size();
      const uint8_t* p = reinterpret_cast<const uint8_t*>(a.data);
      R total = 0;
      for (index_t lo = 0; lo < n; lo += 255) {
        const index_t hi = std::min(n, lo + 255);
        uint8_t c = 0;
        for (index_t i = lo; i < hi; ++i) c = static_cast<uint8_t>(c + p[i]);
        total += c;
      }
      return total;
    }
  }
  if constexpr (Op::has_identity) {
    R acc = Op::identity();
    fold_into<Op>(&acc, std::array<index_t, N>{}, a, all_axes<N>(), false);
    return acc;
  } else {
    if (a.size() == 0) no_identity(Op::name);
    R acc;
    if constexpr (N == 0) acc = elem_cast<R>(a.data[0]);
    else {
      index_t off = 0;  // the first element in C order is at offset 0
      acc = elem_cast<R>(a.data[off]);
    }
    fold_into<Op>(&acc, std::array<index_t, N>{}, a, all_axes<N>(), true);
    return acc;
  }
}

// x / count as NumPy's mean and var divide: by an np.intp, so in float64 (or
// complex128) and cast back.
template <class R>
inline R div_count(R x, double count) {
  if constexpr (std::is_floating_point_v<R>) return static_cast<R>(static_cast<double>(x) / count);
  else if constexpr (is_complex_v<R>) return elem_cast<R>(std::complex<double>(x) / count);
  else return static_cast<R>(static_cast<double>(x) / count);
}

template <class R>
inline auto abs2(R x) {
  if constexpr (is_complex_v<R>) return x.real() * x.real() + x.imag() * x.imag();
  else return x * x;
}

}  // namespace red

// ---- public entry points (R: result element type, Mask: reduced axes) -------
#define EP_REDUCTION(fname, OP)                                                    \
  template <class R, class T, int N>                                               \
  R fname##_all(const Array<T, N>& a) { return red::reduce_all<OP>(a); }           \
  template <class R, uint32_t Mask, bool Keep, class T, int N>                     \
  auto fname##_axes(const Array<T, N>& a) { return red::reduce<OP, Mask, Keep>(a); }

EP_REDUCTION(sum, red::Sum<R>)
EP_REDUCTION(nansum, red::NanSum<R>)
EP_REDUCTION(prod, red::Prod<R>)
EP_REDUCTION(max, red::Max<R>)
EP_REDUCTION(min, red::Min<R>)
EP_REDUCTION(max0, red::Max0<R>)
EP_REDUCTION(nanmax, red::FMax<R>)
EP_REDUCTION(nanmin, red::FMin<R>)
EP_REDUCTION(any, red::Any)
EP_REDUCTION(all, red::All)
#undef EP_REDUCTION

namespace red {
// np.mean of a float16 array: np.add.reduce(a, dtype=float32) casts through NumPy's 8192-element
// buffers (each summed pairwise, the buffer sums added in order), then float16(sum / np.intp(count)),
// the division in float64 and one rounding to float16
template <int N>
half mean_half(const Array<half, N>& a) {
  constexpr index_t kBuffer = 8192;
  const index_t n = a.size();
  std::vector<half> copy;
  const half* p = a.data;
  if (!a.contiguous()) {
    copy.reserve(static_cast<size_t>(n));
    for_each_offset(a, [&](index_t off) { copy.push_back(a.data[off]); });
    p = copy.data();
  }
  float acc = 0.0f;
  for (index_t lo = 0; lo < n; lo += kBuffer)
    acc += pairwise<float>(p + lo, std::min(kBuffer, n - lo), 1, Conv<float>{});
  return half(static_cast<double>(acc) / static_cast<double>(n));
}
}  // namespace red

// mean: the sum in the accumulation type A, divided by the count
template <class R, class A, class T, int N>
R mean_all(const Array<T, N>& a) {
  if constexpr (is_half_v<R> && is_half_v<T>) return red::mean_half(a);
  A s = red::reduce_all<red::Sum<A>>(a);
  return elem_cast<R>(red::div_count<A>(s, static_cast<double>(a.size())));
}
template <class R, class A, uint32_t Mask, bool Keep, class T, int N>
auto mean_axes(const Array<T, N>& a) {
  auto s = red::reduce<red::Sum<A>, Mask, Keep>(a);
  const double c = static_cast<double>(red::reduced_count<N>(a.shape, Mask));
  using S = decltype(s);
  Array<R, S::ndim> out = empty<R, S::ndim>(s.shape);
  index_t j = 0;
  for_each_offset(s, [&](index_t off) { out.data[j++] = elem_cast<R>(red::div_count<A>(s.data[off], c)); });
  return out;
}

// np.nanmean: sum of non-NaN values / their count
template <class R, class T, int N>
R nanmean_all(const Array<T, N>& a) {
  R s = red::reduce_all<red::Sum<R, red::NanToZero<R>>>(a);
  index_t c = 0;
  for_each_offset(a, [&](index_t off) { c += sc::isnan(a.data[off]) ? 0 : 1; });
  return red::div_count<R>(s, static_cast<double>(c));
}
template <class R, uint32_t Mask, bool Keep, class T, int N>
auto nanmean_axes(const Array<T, N>& a) {
  auto s = red::reduce<red::Sum<R, red::NanToZero<R>>, Mask, Keep>(a);
  Array<bool, N> notnan = empty<bool, N>(a.shape);
  index_t j = 0;
  for_each_offset(a, [&](index_t off) { notnan.data[j++] = !sc::isnan(a.data[off]); });
  auto c = red::reduce<red::Sum<int64_t>, Mask, Keep>(notnan);
  for (index_t i = 0; i < s.size(); ++i) s.data[i] = red::div_count<R>(s.data[i], static_cast<double>(c.data[i]));
  return s;
}

// var / std as NumPy's _var: mean with keepdims (A: accumulation type),
// squared deviations (R: real result type), their sum / max(count - ddof, 0)
template <class R, class A, uint32_t Mask, class T, int N>
Array<R, N> var_keep(const Array<T, N>& a, double ddof) {
  auto m = red::reduce_keep<red::Sum<A>, Mask>(a);
  const index_t cnt = red::reduced_count<N>(a.shape, Mask);
  for (index_t i = 0; i < m.size(); ++i) m.data[i] = red::div_count<A>(m.data[i], static_cast<double>(cnt));
  // x = |a - mean|^2 in a's memory order, like NumPy's temporary (a ufunc output, order='K'),
  // so that the sum below adds the squares in NumPy's order, along memory
  Array<R, N> x = red::empty_in_order<R>(a);
  {
    std::array<index_t, N> mst{};
    for (int k = 0; k < N; ++k) mst[k] = ((Mask >> k) & 1u) ? 0 : m.strides[k];
    red::walk_in_order<N, 3>(a.shape, {a.strides, mst, x.strides}, [&](const std::array<index_t, 3>& o) {
      x.data[o[2]] = static_cast<R>(red::abs2<A>(elem_cast<A>(a.data[o[0]]) - m.data[o[1]]));
    });
  }
  auto s = red::reduce_keep<red::Sum<R>, Mask>(x);
  double dof = static_cast<double>(cnt) - ddof;
  if (dof < 0) dof = 0;
  for (index_t i = 0; i < s.size(); ++i) s.data[i] = red::div_count<R>(s.data[i], dof);
  return s;
}

template <class R, class A, class T, int N>
R var_all(const Array<T, N>& a, double ddof) {
  return var_keep<R, A, red::all_axes<N>()>(a, ddof).data[0];
}
template <class R, class A, uint32_t Mask, bool Keep, class T, int N>
auto var_axes(const Array<T, N>& a, double ddof) {
  return red::drop_axes<red::kept_rank<N>(Mask, Keep)>(var_keep<R, A, Mask>(a, ddof), Keep ? 0u : Mask);
}
template <class R, class A, class T, int N>
R std_all(const Array<T, N>& a, double ddof) {
  return std::sqrt(var_all<R, A>(a, ddof));
}
template <class R, class A, uint32_t Mask, bool Keep, class T, int N>
auto std_axes(const Array<T, N>& a, double ddof) {
  auto v = var_axes<R, A, Mask, Keep>(a, ddof);
  for (index_t i = 0; i < v.size(); ++i) v.data[i] = std::sqrt(v.data[i]);
  return v;
}

// ---- argmax / argmin ------------------------------------------------------------
namespace red {
template <bool IsMax, class T>
inline bool better(const T& x, const T& best) {
  if constexpr (is_real_float_v<T>) {
    if (std::isnan(best)) return false;
    if (std::isnan(x)) return true;
    return IsMax ? x > best : x < best;
  } else if constexpr (is_complex_v<T>) {
    if (sc::isnan(best)) return false;
    if (sc::isnan(x)) return true;
    return IsMax ? sc::gt(x, best) : sc::lt(x, best);
  } else {
    return IsMax ? x > best : x < best;
  }
}

template <bool IsMax, class T>
index_t arg_row(const T* p, index_t n, index_t s) {
  if constexpr (argreduce_lanes_v<T>) {
    if (n >= 16) return arg_row_lanes<IsMax>(p, n, s);  // one vectorised pass (argreduce.hpp)
  }
  index_t bi = 0;
  T best = p[0];
  for (index_t i = 1; i < n; ++i)
    if (better<IsMax>(p[i * s], best)) {
      best = p[i * s];
      bi = i;
    }
  return bi;
}

// C-order element strides of a shape (the flat index NumPy's argmax reports)
template <int N>
std::array<index_t, N> flat_strides(const std::array<index_t, N>& shape) {
  std::array<index_t, N> f{};
  index_t e = 1;
  for (int k = N - 1; k >= 0; --k) {
    f[k] = e;
    e *= shape[k];
  }
  return f;
}

// argmax / argmin of a view of real numbers, in its memory order: the extreme value first
// (order-independent, vectorised along memory; NaN when there is one, as NumPy's argmax
// stops at the first NaN), then the smallest C-order index that holds it.
template <bool IsMax, class T, int N>
int64_t arg_all_in_order(const Array<T, N>& a) {
  const T m = reduce_all<MinMax<IsMax, T>>(a);
  const bool nan = m != m;
  index_t best = a.size();
  walk_in_order<N, 2>(a.shape, {a.strides, flat_strides<N>(a.shape)}, [&](const std::array<index_t, 2>& o) {
    const T x = a.data[o[0]];
    if (o[1] < best && (nan ? x != x : x == m)) best = o[1];
  });
  return best;
}

template <bool IsMax, class T, int N>
int64_t arg_all(const Array<T, N>& a) {
  if (a.size() == 0)
    raise("ValueError", std::string("attempt to get ") + (IsMax ? "argmax" : "argmin") + " of an empty sequence");
  if (a.contiguous()) return arg_row<IsMax>(a.data, a.size(), 1);
  if constexpr (argreduce_lanes_v<T> && N >= 1) {
    // rows of the last axis in C order when that reads memory in order (x[::2], x[:, ::2]), else
    // the extreme in memory order, then its first C-order position (x.T)
    if (last_axis_fastest(a)) return arg_all_rows<IsMax>(a);
    if constexpr (N > 1) return arg_all_in_order<IsMax>(a);
  }
  index_t i = 0, bi = 0;
  T best = a.data[0];
  for_each_offset(a, [&](index_t off) {
    if (i > 0 && better<IsMax>(a.data[off], best)) {
      best = a.data[off];
      bi = i;
    }
    ++i;
  });
  return bi;
}

// argmax / argmin along Axis when a kept axis runs along memory faster than Axis (x.T with
// axis=1): that kept axis is the inner loop, a row of running extremes and their positions
// is updated one reduced position after the other (strictly better only: the first
// occurrence wins, NaN included, as in NumPy). out: the keepdims layout, C-contiguous.
template <bool IsMax, int Axis, class T, int N>
bool arg_axis_rows(const Array<T, N>& a, int64_t* out) {
  const index_t n = a.shape[Axis], s = a.strides[Axis];
  auto mag = [](index_t v) { return v < 0 ? -v : v; };
  int in = -1;
  for (int k = 0; k < N; ++k)
    if (k != Axis && a.shape[k] > 1 && (in < 0 || mag(a.strides[k]) < mag(a.strides[in]))) in = k;
  if (in < 0 || n < 2 || mag(a.strides[in]) >= mag(s)) return false;
  std::array<index_t, N> oshape = a.shape;
  oshape[Axis] = 1;
  const std::array<index_t, N> ost = flat_strides<N>(oshape);
  const index_t len = a.shape[in], is = a.strides[in], os = ost[in];
  std::array<index_t, N> rest = oshape;  // every other kept axis: one row of partials each
  rest[in] = 1;
  const Array<T, 1> hold = empty<T, 1>({len});  // not std::vector: vector<bool> has no T&
  T* best = hold.data;
  walk_in_order<N, 2>(rest, {a.strides, ost}, [&](const std::array<index_t, 2>& o) {
    const T* p = a.data + o[0];
    int64_t* r = out + o[1];
    for (index_t i = 0; i < len; ++i) {
      best[i] = p[i * is];
      r[i * os] = 0;
    }
    for (index_t j = 1; j < n; ++j) {
      const T* q = p + j * s;
      for (index_t i = 0; i < len; ++i)
        if (better<IsMax>(q[i * is], best[i])) {
          best[i] = q[i * is];
          r[i * os] = j;
        }
    }
  });
  return true;
}

template <bool IsMax, int Axis, bool Keep, class T, int N>
auto arg_axis(const Array<T, N>& a) {
  constexpr int M = Keep ? N : N - 1;
  const index_t n = a.shape[Axis];
  // the other axes, in order
  Array<T, N - 1> outer;
  outer.data = a.data;
  for (int k = 0, j = 0; k < N; ++k)
    if (k != Axis) {
      outer.shape[j] = a.shape[k];
      outer.strides[j] = a.strides[k];
      ++j;
    }
  std::array<index_t, M> oshape{};
  for (int k = 0, j = 0; k < N; ++k) {
    if (k == Axis) {
      if (Keep) oshape[j++] = 1;
    } else {
      oshape[j++] = a.shape[k];
    }
  }
  Array<int64_t, M> out = empty<int64_t, M>(oshape);
  if (out.size() == 0) return out;
  if (n == 0)
    raise("ValueError", std::string("attempt to get ") + (IsMax ? "argmax" : "argmin") + " of an empty sequence");
  if (arg_axis_rows<IsMax, Axis>(a, out.data)) return out;
  index_t j = 0;
  const index_t s = a.strides[Axis];
  for_each_offset(outer, [&](index_t off) { out.data[j++] = arg_row<IsMax>(a.data + off, n, s); });
  return out;
}
}  // namespace red

template <class T, int N>
int64_t argmax_all(const Array<T, N>& a) { return red::arg_all<true>(a); }
template <class T, int N>
int64_t argmin_all(const Array<T, N>& a) { return red::arg_all<false>(a); }
template <int Axis, bool Keep, class T, int N>
auto argmax_axis(const Array<T, N>& a) { return red::arg_axis<true, Axis, Keep>(a); }
template <int Axis, bool Keep, class T, int N>
auto argmin_axis(const Array<T, N>& a) { return red::arg_axis<false, Axis, Keep>(a); }

// argmax(axis=None, keepdims=True): the flat index in an all-ones shape
template <int N>
Array<int64_t, N> keep_all_dims(int64_t v) {
  std::array<index_t, N> s;
  s.fill(1);
  return full<int64_t, N>(s, v);
}

template <class R, int N>
Array<R, N> scalar_keepdims(R v) {
  std::array<index_t, N> s;
  s.fill(1);
  return full<R, N>(s, v);
}

}  // namespace ep
