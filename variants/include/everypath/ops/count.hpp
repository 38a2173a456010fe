// Counting: np.bincount and np.histogram.
//
// histogram with a number of bins replays NumPy's fast path exactly: the bin
// edges come from linspace, each value's bin from ((x - first) / (last -
// first)) * bins in the dtypes NumPy computes in (worked out at compile time
// by variants/ops/counting.py and passed as HistTypes), then corrected
// against the edges. With explicit edges, values are sorted and the edges
// searched, as NumPy does.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../format.hpp"
#include "creation.hpp"
#include "search.hpp"
#include "sort.hpp"

namespace ep {

// ---- np.bincount -----------------------------------------------------------------------
namespace cnt {
inline void check_minlength(int64_t minlength) {
  if (minlength < 0) raise("ValueError", "'minlength' must not be negative");
}

// the result length (max + 1, at least minlength); raises for negative entries
template <class T>
index_t bins_needed(const Array<T, 1>& x, int64_t minlength) {
  const index_t n = x.shape[0], s = x.strides[0];
  int64_t mn = 0, mx = -1;
  for (index_t i = 0; i < n; ++i) {
    const int64_t v = static_cast<int64_t>(x.data[i * s]);
    mn = i ? std::min(mn, v) : v;
    mx = std::max(mx, v);
  }
  if (mn < 0) raise("ValueError", "'list' argument must have no negative elements");
  return std::max<index_t>(mx + 1, minlength);
}
}  // namespace cnt

template <class T>
Array<int64_t, 1> bincount(const Array<T, 1>& x, int64_t minlength) {
  cnt::check_minlength(minlength);
  Array<int64_t, 1> out = full<int64_t, 1>({cnt::bins_needed(x, minlength)}, 0);
  const index_t n = x.shape[0], s = x.strides[0];
  for (index_t i = 0; i < n; ++i) ++out.data[static_cast<int64_t>(x.data[i * s])];
  return out;
}

template <class T, class W>
Array<double, 1> bincount_weights(const Array<T, 1>& x, const Array<W, 1>& w, int64_t minlength) {
  cnt::check_minlength(minlength);
  const index_t n = x.shape[0], s = x.strides[0];
  if (n == 0) return full<double, 1>({minlength}, 0.0);
  Array<double, 1> out = full<double, 1>({cnt::bins_needed(x, minlength)}, 0.0);
  if (w.shape[0] != n) raise("ValueError", "The weights and list don't have the same length.");
  for (index_t i = 0; i < n; ++i)
    out.data[static_cast<int64_t>(x.data[i * s])] += elem_cast<double>(w.data[i * w.strides[0]]);
  return out;
}

// ---- np.histogram ------------------------------------------------------------------------
// E: bin edges; D: linspace's arithmetic; S: (x - first); Q: (last - first);
// F: the bin index arithmetic; K: the range test (x >= first, x <= last).
template <class E_, class D_, class S_, class Q_, class F_, class K_>
struct HistTypes {
  using E = E_;
  using D = D_;
  using S = S_;
  using Q = Q_;
  using F = F_;
  using K = K_;
};

namespace cnt {
// first - 0.5 / last + 0.5 as NumPy computes them (integers become float64)
template <class X>
inline auto widened(X x, double d) {
  if constexpr (std::is_integral_v<X>) return static_cast<double>(x) + d;
  else return static_cast<X>(x + static_cast<X>(d));
}

template <class H, class E>
void to_density(const Array<H, 1>& out, const Array<int64_t, 1>& n, const Array<E, 1>& edges) {
  int64_t total = 0;
  const index_t m = n.shape[0];
  for (index_t i = 0; i < m; ++i) total += n.data[i];
  for (index_t i = 0; i < m; ++i) {
    const double db = static_cast<double>(static_cast<E>(edges.data[(i + 1) * edges.strides[0]] - edges.data[i * edges.strides[0]]));
    out.data[i] = static_cast<double>(n.data[i]) / db / static_cast<double>(total);
  }
}

template <bool Density, class E>
auto finish(const Array<int64_t, 1>& n, const Array<E, 1>& edges) {
  if constexpr (Density) {
    Array<double, 1> d = empty<double, 1>(n.shape);
    to_density(d, n, edges);
    return std::make_tuple(d, edges);
  } else {
    return std::make_tuple(n, edges);
  }
}

// NumPy's uniform-bins loop for one (first, last) pair
template <class HT, class A, class X, class Y>
void uniform_counts(const A* a, index_t n, X first, Y last, index_t nb, const Array<typename HT::E, 1>& edges,
                    int64_t* counts) {
  using E = typename HT::E;
  using S = typename HT::S;
  using Q = typename HT::Q;
  using F = typename HT::F;
  using K = typename HT::K;
  const Q denom = static_cast<Q>(static_cast<Q>(last) - static_cast<Q>(first));
  const K lo = static_cast<K>(first), hi = static_cast<K>(last);
  const E* e = edges.data;
  for (index_t i = 0; i < n; ++i) {
    const K k = static_cast<K>(a[i]);
    if (!(k >= lo && k <= hi)) continue;
    const E x = static_cast<E>(a[i]);
    const S sx = static_cast<S>(static_cast<S>(x) - static_cast<S>(first));
    const F f = static_cast<F>(static_cast<F>(sx) / static_cast<F>(denom)) * static_cast<F>(nb);
    index_t j = static_cast<index_t>(f);
    if (j == nb) --j;
    if (x < e[j]) --j;
    if (j != nb - 1 && x >= e[j + 1]) ++j;
    if (j < 0) raise("ValueError", "'list' argument must have no negative elements");
    ++counts[j];
  }
}

template <class HT, class A, class X, class Y>
Array<typename HT::E, 1> uniform(const Array<A, 1>& a, X first, Y last, index_t nb, Array<int64_t, 1>& counts) {
  using E = typename HT::E;
  Array<E, 1> edges = linspace<E, typename HT::D>(first, last, nb + 1, true);
  for (index_t i = 0; i < nb; ++i)
    if (edges.data[i] >= edges.data[i + 1])
      raise("ValueError", "Too many bins for data range. Cannot create " + std::to_string(nb) + " finite-sized bins.");
  uniform_counts<HT>(a.data, a.shape[0], first, last, nb, edges, counts.data);
  return edges;
}

// (first, last): the range given, or the data's min and max
template <class A, class R>
auto outer_edges(const Array<A, 1>& a, const R& range) {
  if constexpr (is_std_tuple_v<R>) {
    const auto first = std::get<0>(range);
    const auto last = std::get<1>(range);
    if (first > last) raise("ValueError", "max must be larger than min in range parameter.");
    if (!(std::isfinite(static_cast<double>(first)) && std::isfinite(static_cast<double>(last))))
      raise("ValueError", "supplied range of [" + py_str(first) + ", " + py_str(last) + "] is not finite");
    return std::make_pair(first, last);
  } else {
    A mn = a.data[0], mx = a.data[0];
    bool nan = false;
    for (index_t i = 0; i < a.shape[0]; ++i) {
      const A x = a.data[i];
      if constexpr (std::is_floating_point_v<A>) nan = nan || x != x;
      mn = x < mn ? x : mn;
      mx = x > mx ? x : mx;
    }
    if (nan) mn = mx = std::numeric_limits<A>::quiet_NaN();  // min/max propagate NaN
    if constexpr (std::is_floating_point_v<A>) {
      if (!(std::isfinite(mn) && std::isfinite(mx)))
        raise("ValueError", "autodetected range of [" + py_str(mn) + ", " + py_str(mx) + "] is not finite");
    }
    return std::make_pair(mn, mx);
  }
}
}  // namespace cnt

// bins: a number of equal bins. HT / HTWide: the dtypes for the range as found and
// widened by 0.5 (equal ends); DEmpty: linspace's dtype for an empty array (0, 1).
template <bool Density, class HT, class HTWide, class DEmpty, class A, class T, int N, class R>
auto histogram(const Array<T, N>& data, int64_t bins, const R& range) {
  using E = typename HT::E;
  if (bins < 1) raise("ValueError", "`bins` must be positive, when an integer");
  Array<A, 1> a = as_dtype<A>(flat_view(data));
  Array<int64_t, 1> counts = full<int64_t, 1>({bins}, 0);
  Array<E, 1> edges;
  if (!is_std_tuple_v<R> && a.shape[0] == 0) {
    edges = linspace<E, DEmpty>(int64_t(0), int64_t(1), bins + 1, true);
    return cnt::finish<Density>(counts, edges);
  }
  auto [first, last] = cnt::outer_edges(a, range);
  if (first == last)
    edges = cnt::uniform<HTWide>(a, cnt::widened(first, -0.5), cnt::widened(last, 0.5), bins, counts);
  else
    edges = cnt::uniform<HT>(a, first, last, bins, counts);
  return cnt::finish<Density>(counts, edges);
}

// bins: the edges themselves (returned as given). C: the dtype values and edges are compared in.
template <bool Density, class C, class A, class T, int N, class B>
auto histogram_edges(const Array<T, N>& data, const Array<B, 1>& edges) {
  const index_t m = edges.shape[0], es = edges.strides[0];
  for (index_t i = 0; i + 1 < m; ++i)
    if (edges.data[i * es] > edges.data[(i + 1) * es])
      raise("ValueError", "`bins` must increase monotonically, when an array");
  Array<A, 1> sa = as_dtype<A>(flat_copy(data));
  ord::sort_buf<false>(sa.data, sa.shape[0]);
  Array<C, 1> sc = srch::as_sorted<C>(sa);
  std::vector<int64_t> cum(static_cast<size_t>(m));
  for (index_t i = 0; i < m; ++i) {
    const C e = elem_cast<C>(edges.data[i * es]);
    if (i + 1 < m) srch::binsearch<false, C>(sc.data, sc.shape[0], 1, [&](index_t) { return e; }, [&](index_t, index_t r) { cum[i] = r; });
    else srch::binsearch<true, C>(sc.data, sc.shape[0], 1, [&](index_t) { return e; }, [&](index_t, index_t r) { cum[i] = r; });
  }
  Array<int64_t, 1> counts = empty<int64_t, 1>({std::max<index_t>(m - 1, 0)});
  for (index_t i = 0; i + 1 < m; ++i) counts.data[i] = cum[i + 1] - cum[i];
  return cnt::finish<Density>(counts, edges);
}

}  // namespace ep
