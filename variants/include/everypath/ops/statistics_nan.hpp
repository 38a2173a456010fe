// NaN-ignoring reductions and scans: np.nanvar, np.nanstd, np.nanprod,
// np.nancumsum, np.nancumprod. Each follows the
// NumPy implementation (numpy/lib/_nanfunctions_impl.py): NaNs act as the
// operation's neutral value (0 for sums, 1 for products), sums keep NumPy's
// pairwise order (reduce.hpp), and divisions by the
// element counts happen in float64 as NumPy's intp counts force them to.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "../array.hpp"
#include "../scalar.hpp"
#include "creation.hpp"
#include "reduce.hpp"

namespace ep {
namespace nanr {

template <class T>
inline constexpr bool inexact_v = std::is_floating_point_v<T> || is_complex_v<T>;

template <class T>
inline bool isnan(const T& x) {
  if constexpr (inexact_v<T>) return sc::isnan(x);
  else return false;
}

// 1 for every non-NaN element (np.sum(~isnan(a), dtype=intp))
struct NotNan {
  template <class X>
  int64_t operator()(const X& x) const { return isnan(x) ? 0 : 1; }
};

template <class R>
struct NanProd {
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
    if (isnan(x)) return acc;  // a NaN is a factor 1
    return sc::mul<R>(acc, elem_cast<R>(x));
  }
};

// ---- nanvar / nanstd (float and complex inputs; others use np.var) ------------------------
// R: result dtype, A: the mean's dtype (dtype= or the input's), S: the squares' sum dtype.
template <class R, class A, class S, uint32_t Mask, class T, int N>
Array<R, N> nanvar_keep(const Array<T, N>& a, double ddof) {
  auto avg = red::reduce_keep<red::Sum<A, red::NanToZero<A>>, Mask>(a);
  auto cnt = red::reduce_keep<red::Sum<int64_t, NotNan>, Mask>(a);
  for (index_t i = 0; i < avg.size(); ++i) avg.data[i] = red::div_count<A>(avg.data[i], static_cast<double>(cnt.data[i]));
  // squared deviations: (a - avg) in the input dtype (NumPy subtracts in place), 0 at NaNs
  using P = std::conditional_t<(sizeof(A) > sizeof(T)) || (is_complex_v<A> && !is_complex_v<T>), A, T>;
  using Q = decltype(red::abs2<T>(T{}));
  // in a's memory order, as NumPy's copy of `a` (order='K') that it subtracts from in place:
  // the sum below then adds the squares in NumPy's order, along memory
  Array<Q, N> sq = red::empty_in_order<Q>(a);
  std::array<index_t, N> mst{};
  for (int k = 0; k < N; ++k) mst[k] = ((Mask >> k) & 1u) ? 0 : avg.strides[k];
  red::walk_in_order<N, 3>(a.shape, {a.strides, mst, sq.strides}, [&](const std::array<index_t, 3>& o) {
    const T x = a.data[o[0]];
    sq.data[o[2]] = isnan(x) ? Q(0) : red::abs2<T>(elem_cast<T>(sc::sub<P>(elem_cast<P>(x), elem_cast<P>(avg.data[o[1]]))));
  });
  auto var = red::reduce_keep<red::Sum<S>, Mask>(sq);
  Array<R, N> out = empty<R, N>(var.shape);
  for (index_t i = 0; i < var.size(); ++i) {
    const double dof = static_cast<double>(cnt.data[i]) - ddof;
    out.data[i] = dof <= 0 ? std::numeric_limits<R>::quiet_NaN()
                           : elem_cast<R>(red::div_count<S>(var.data[i], dof));
  }
  return out;
}

template <class R, class A, class S, bool Sqrt, class T, int N>
R nanvar_all(const Array<T, N>& a, double ddof) {
  R v = nanvar_keep<R, A, S, red::all_axes<N>()>(a, ddof).data[0];
  return Sqrt ? static_cast<R>(std::sqrt(v)) : v;
}
template <class R, class A, class S, bool Sqrt, uint32_t Mask, bool Keep, class T, int N>
auto nanvar_axes(const Array<T, N>& a, double ddof) {
  auto v = nanvar_keep<R, A, S, Mask>(a, ddof);
  if constexpr (Sqrt)
    for (index_t i = 0; i < v.size(); ++i) v.data[i] = static_cast<R>(std::sqrt(v.data[i]));
  return red::drop_axes<red::kept_rank<N>(Mask, Keep)>(v, Keep ? 0u : Mask);
}

// ---- nancumsum / nancumprod ----------------------------------------------------------------
template <class R, bool IsSum, class T>
inline R fill_cum(const T& x) {
  if (isnan(x)) return elem_cast<R>(IsSum ? 0 : 1);
  return elem_cast<R>(x);
}
template <class R, bool IsSum>
inline R cum_step(R acc, R x) {
  if constexpr (std::is_same_v<R, bool>) return IsSum ? (acc || x) : (acc && x);
  else if constexpr (IsSum) return static_cast<R>(acc + x);
  else return sc::mul<R>(acc, x);
}

template <class R, bool IsSum, class T, int N>
Array<R, 1> nancum_flat(const Array<T, N>& a) {
  Array<R, 1> out = empty<R, 1>({a.size()});
  index_t j = 0;
  R acc{};
  for_each_offset(a, [&](index_t off) {
    const R x = fill_cum<R, IsSum>(a.data[off]);
    acc = j == 0 ? x : cum_step<R, IsSum>(acc, x);
    out.data[j++] = acc;
  });
  return out;
}

template <class R, bool IsSum, int Axis, class T, int N>
Array<R, N> nancum_axis(const Array<T, N>& a) {
  Array<R, N> out = empty<R, N>(a.shape);
  index_t j = 0;
  for_each_offset(a, [&](index_t off) { out.data[j++] = fill_cum<R, IsSum>(a.data[off]); });
  index_t outer = 1, inner = 1;
  for (int k = 0; k < Axis; ++k) outer *= a.shape[k];
  for (int k = Axis + 1; k < N; ++k) inner *= a.shape[k];
  const index_t n = a.shape[Axis];
  R* d = out.data;
  for (index_t o = 0; o < outer; ++o) {
    R* base = d + o * n * inner;
    for (index_t i = 1; i < n; ++i) {
      R* cur = base + i * inner;
      const R* prev = cur - inner;
      for (index_t k = 0; k < inner; ++k) cur[k] = cum_step<R, IsSum>(prev[k], cur[k]);
    }
  }
  return out;
}

}  // namespace nanr

template <class R, class T, int N>
R nanprod_all(const Array<T, N>& a) { return red::reduce_all<nanr::NanProd<R>>(a); }
template <class R, uint32_t Mask, bool Keep, class T, int N>
auto nanprod_axes(const Array<T, N>& a) { return red::reduce<nanr::NanProd<R>, Mask, Keep>(a); }

}  // namespace ep
