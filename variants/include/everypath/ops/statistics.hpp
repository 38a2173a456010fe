// Order statistics: np.median, np.percentile, np.quantile and their nan* forms.
// Each reduction lane (the elements along the reduced axes, a compile-time bit
// mask as in reduce.hpp) is gathered into one scratch buffer and partially
// ordered with std::nth_element at the few positions needed (never a full
// sort). Values, NaN handling and rounding follow NumPy's _median / _quantile:
// the mean of the two middle values is taken as np.mean takes it, the linear
// interpolation is NumPy's _lerp (the two-sided formula, in the result dtype).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "../array.hpp"
#include "../scalar.hpp"
#include "creation.hpp"
#include "reduce.hpp"

namespace ep {
namespace stat {

template <class T>
inline constexpr bool inexact_v = std::is_floating_point_v<T> || is_complex_v<T>;

template <class T>
inline bool less(const T& a, const T& b) {
  if constexpr (is_complex_v<T>) return sc::lt(a, b);
  else return a < b;
}
template <class T>
struct Less {
  bool operator()(const T& a, const T& b) const { return less(a, b); }
};

template <class R>
inline R nan_of() {
  if constexpr (is_complex_v<R>) {
    using V = typename R::value_type;
    return R(std::numeric_limits<V>::quiet_NaN(), std::numeric_limits<V>::quiet_NaN());
  } else {
    return std::numeric_limits<R>::quiet_NaN();
  }
}

// Rank of the result: the kept axes (or all, with 1s, for keepdims) after Q leading axes.
template <int N, uint32_t Mask, bool Keep>
inline constexpr int kept_rank_v = Keep ? N : N - std::popcount(Mask & red::all_axes<N>());

template <int Q, int M, uint32_t Mask, bool Keep, class A>
std::array<index_t, Q + M> out_shape(const A& a, index_t nq) {
  constexpr int N = A::ndim;
  const auto& s = a.shape;
  std::array<index_t, Q + M> out{};
  if constexpr (Q == 1) out[0] = nq;
  int j = Q;
  for (int k = 0; k < N; ++k) {
    if ((Mask >> k) & 1u) {
      if (Keep) out[j++] = 1;
    } else {
      out[j++] = s[k];
    }
  }
  return out;
}

// Calls f(lane, buf, n) for every lane in C order of the kept axes, with the lane's
// n elements (C order of the reduced axes) copied into buf as B.
template <uint32_t Mask, class B, class T, int N, class F>
void for_each_lane(const Array<T, N>& a, F&& f) {
  Array<T, N> kept = a, lane = a;
  for (int k = 0; k < N; ++k) {
    if ((Mask >> k) & 1u) kept.shape[k] = 1;
    else lane.shape[k] = 1;
  }
  const index_t n = lane.size();
  std::unique_ptr<B[]> buf(new B[static_cast<size_t>(std::max<index_t>(n, 1))]);
  index_t j = 0;
  const bool unit = lane.contiguous();
  for_each_offset(kept, [&](index_t ko) {
    const T* base = a.data + ko;
    if (unit) {
      for (index_t i = 0; i < n; ++i) buf[i] = elem_cast<B>(base[i]);
    } else {
      index_t i = 0;
      for_each_offset(lane, [&](index_t lo) { buf[i++] = elem_cast<B>(base[lo]); });
    }
    f(j++, buf.get(), n);
  });
}

// Index of the first NaN (n when there is none).
template <class T>
inline index_t find_nan(const T* p, index_t n) {
  if constexpr (inexact_v<T>) {
    for (index_t i = 0; i < n; ++i)
      if (sc::isnan(p[i])) return i;
  }
  return n;
}

// Drops the NaNs of p[0..n), keeping the order of the rest; returns the new count.
template <class T>
inline index_t drop_nans(T* p, index_t n) {
  if constexpr (inexact_v<T>) {
    index_t k = 0;
    for (index_t i = 0; i < n; ++i)
      if (!sc::isnan(p[i])) p[k++] = p[i];
    return k;
  }
  return n;
}

// ---- median -------------------------------------------------------------------------
// R: the result dtype (np.mean's); the middle values are summed as np.mean sums them.
template <class R, bool SkipNan, class T>
R median_lane(T* p, index_t n) {
  if constexpr (inexact_v<T>) {
    if constexpr (SkipNan) {
      n = drop_nans(p, n);
    } else {
      const index_t k = find_nan(p, n);
      if (k < n) return elem_cast<R>(p[k]);  // NaN sorts last: the median is NaN
    }
  }
  if (n == 0) return nan_of<R>();  // the mean of an empty slice
  const index_t h = n / 2;
  std::nth_element(p, p + h, p + n, Less<T>{});
  if (n % 2) return red::div_count<R>(R(0) + (R(0) + elem_cast<R>(p[h])), 1.0);
  const T lo = *std::max_element(p, p + h, Less<T>{});
  return red::div_count<R>(R(0) + ((R(0) + elem_cast<R>(lo)) + elem_cast<R>(p[h])), 2.0);
}

template <class R, bool SkipNan, uint32_t Mask, bool Keep, class T, int N>
auto median(const Array<T, N>& a) {
  constexpr int M = kept_rank_v<N, Mask, Keep>;
  Array<R, M> out = empty<R, M>(out_shape<0, M, Mask, Keep>(a, 1));
  for_each_lane<Mask, T>(a, [&](index_t j, T* p, index_t n) { out.data[j] = median_lane<R, SkipNan>(p, n); });
  return out;
}

// ---- quantiles ---------------------------------------------------------------------
enum Method { LINEAR = 0, LOWER = 1, HIGHER = 2, NEAREST = 3, MIDPOINT = 4 };

// One quantile of an n-element lane: the positions to read and NumPy's gamma (G: the
// dtype of q's virtual index, or double for a Python-scalar q).
template <class G>
struct Point {
  index_t lo = 0, hi = 0;
  bool lerp = false;
  G gamma = G(0);
};

template <int Method, class V, class G>
Point<G> plan_point(V q, index_t n) {
  Point<G> pt;
  const V w = static_cast<V>(static_cast<V>(n - 1) * q);
  if constexpr (Method == LOWER || Method == HIGHER || Method == NEAREST || (Method == LINEAR && !std::is_floating_point_v<V>)) {
    index_t i;
    if constexpr (!std::is_floating_point_v<V>) i = static_cast<index_t>(w);
    else if constexpr (Method == LOWER) i = static_cast<index_t>(std::floor(w));
    else if constexpr (Method == HIGHER) i = static_cast<index_t>(std::ceil(w));
    else if constexpr (Method == NEAREST) i = static_cast<index_t>(std::nearbyint(w));
    else i = static_cast<index_t>(w);
    if (i < 0) i += n;  // NumPy's take wraps negative indices
    pt.lo = pt.hi = i;
    return pt;
  } else {
    V v;
    if constexpr (Method == MIDPOINT) v = static_cast<V>(V(0.5) * (static_cast<V>(std::floor(w)) + static_cast<V>(std::ceil(w))));
    else v = w;
    // _get_indexes: floor and floor + 1, clamped (-1 reads the last element)
    index_t prev = static_cast<index_t>(std::floor(v)), next = prev + 1;
    if (v >= static_cast<V>(n - 1)) prev = next = -1;
    if (v < V(0)) prev = next = 0;
    V g;
    if constexpr (Method == MIDPOINT) g = std::fmod(v, V(1)) == V(0) ? V(0) : V(0.5);
    else g = static_cast<V>(static_cast<double>(v) - static_cast<double>(prev));
    pt.lerp = true;
    pt.gamma = static_cast<G>(g);
    pt.lo = prev < 0 ? prev + n : prev;
    pt.hi = next < 0 ? next + n : next;
    return pt;
  }
}

// NumPy's _lerp in the result dtype R: a + diff * t, or b - diff * (1 - t) when t >= 0.5.
template <class R, class T, class G>
inline R lerp(T a, T b, G t) {
  const R diff = elem_cast<R>(sc::sub<T>(b, a));
  if (t >= G(0.5)) return elem_cast<R>(b) - diff * static_cast<R>(G(1) - t);
  return elem_cast<R>(a) + diff * static_cast<R>(t);
}

template <class QD, bool Pct, class Q>
inline QD q_value(Q q) {
  const QD v = Pct ? sc::truediv<QD>(static_cast<QD>(q), QD(100)) : static_cast<QD>(q);
  if (!(static_cast<double>(v) >= 0.0 && static_cast<double>(v) <= 1.0))
    raise("ValueError", Pct ? "Percentiles must be in the range [0, 100]" : "Quantiles must be in the range [0, 1]");
  return v;
}

template <class QD, bool Pct, class Q>
std::vector<QD> q_values(const Q& q) {
  std::vector<QD> out;
  if constexpr (is_array_v<Q>) {
    for_each_offset(q, [&](index_t off) { out.push_back(q_value<QD, Pct>(q.data[off])); });
  } else {
    out.push_back(q_value<QD, Pct>(q));
  }
  return out;
}

// R result dtype; Method; V the virtual-index dtype; G the gamma type; Pct: q in percent
// (divided by 100 in QD first); SkipNan: nanquantile; QN: rank of q (0 or 1).
template <class R, int Method, class V, class G, class QD, bool Pct, bool SkipNan, uint32_t Mask, bool Keep, int QN,
          class T, int N, class Q>
auto quantile(const Array<T, N>& a, const Q& q) {
  constexpr int M = kept_rank_v<N, Mask, Keep>;
  const std::vector<QD> qs = q_values<QD, Pct>(q);
  const index_t nq = static_cast<index_t>(qs.size());
  if (SkipNan && QN == 1 && a.size() == 0)  // NumPy answers np.nanmean(a, axis): no q axis
    raise("ValueError", "np.nanquantile/np.nanpercentile of an empty array with an array of q returns np.nanmean's "
                        "result in NumPy (without the q axis); compiled code keeps the q axis: not supported");
  Array<R, QN + M> out = empty<R, QN + M>(out_shape<QN, M, Mask, Keep>(a, nq));
  index_t lanes = 1;
  for (int k = 0; k < N; ++k)
    if (!((Mask >> k) & 1u)) lanes *= a.shape[k];
  std::vector<Point<G>> pts(static_cast<size_t>(nq));
  std::vector<index_t> order;
  index_t planned = -1;
  for_each_lane<Mask, T>(a, [&](index_t j, T* p, index_t n) {
    if constexpr (inexact_v<T>) {
      if constexpr (SkipNan) {
        n = drop_nans(p, n);
        if (n == 0) {
          for (index_t i = 0; i < nq; ++i) out.data[i * lanes + j] = nan_of<R>();
          return;
        }
      } else {
        const index_t k = find_nan(p, n);
        if (k < n) {  // the slice's result is its NaN
          for (index_t i = 0; i < nq; ++i) out.data[i * lanes + j] = elem_cast<R>(p[k]);
          return;
        }
      }
    }
    if (n == 0) raise("IndexError", "index -1 is out of bounds for axis 0 with size 0");
    if (n != planned) {  // positions depend on the lane length only
      order.clear();
      for (index_t i = 0; i < nq; ++i) {
        pts[i] = plan_point<Method, V, G>(static_cast<V>(qs[i]), n);
        order.push_back(pts[i].lo);
        order.push_back(pts[i].hi);
      }
      std::sort(order.begin(), order.end());
      order.erase(std::unique(order.begin(), order.end()), order.end());
      planned = n;
    }
    index_t from = 0;
    for (index_t k : order) {  // each position in place, left to right over shrinking ranges
      std::nth_element(p + from, p + k, p + n, Less<T>{});
      from = k + 1;
    }
    for (index_t i = 0; i < nq; ++i) {
      const Point<G>& pt = pts[i];
      out.data[i * lanes + j] = pt.lerp ? lerp<R>(p[pt.lo], p[pt.hi], pt.gamma) : elem_cast<R>(p[pt.lo]);
    }
  });
  return out;
}

// The single value of a result with no axes left.
template <class R, int N>
inline R item(const Array<R, N>& a) { return a.data[0]; }

}  // namespace stat
}  // namespace ep
