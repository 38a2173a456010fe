// Set operations: np.unique (flattened, with return_index / return_inverse /
// return_counts), np.isin, intersect1d, union1d, setdiff1d and setxor1d.
//
// Values are sorted in NumPy's order (sort.hpp) and equal neighbours merged;
// NaNs never compare equal except that unique(equal_nan=True) keeps one NaN,
// the first in sorted order, as NumPy does. Membership tests (isin,
// setdiff1d) search a sorted copy of the test values, or use a bit table when
// they are integers of a small range (NumPy's kind='table').
#pragma once

#include <algorithm>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"
#include "sort.hpp"

namespace ep {
namespace sets {

// Sorted values of a (as C): the flat copy sorted in NumPy's order.
template <class C, class T, int N>
Array<C, 1> sorted_copy(const Array<T, N>& a) {
  Array<C, 1> out = as_dtype<C>(flat_copy(a));
  ord::sort_buf<false>(out.data, out.shape[0]);
  return out;
}

// Index of the first NaN in a sorted buffer (its length when none).
template <class T>
index_t first_nan(const T* p, index_t n) {
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
    index_t lo = 0, hi = n;  // NaNs form the tail of the sorted order
    while (lo < hi) {
      const index_t mid = lo + (hi - lo) / 2;
      if (ord::isnan_(p[mid])) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  } else {
    return n;
  }
}

// Starts of the groups of equal values in a sorted buffer.
template <bool EqualNan, class T>
std::vector<index_t> group_starts(const T* p, index_t n) {
  std::vector<index_t> starts;
  const index_t good = first_nan(p, n);
  for (index_t i = 0; i < good; ++i)
    if (i == 0 || !(p[i] == p[i - 1])) starts.push_back(i);
  for (index_t i = good; i < n; ++i)
    if (!EqualNan || i == good) starts.push_back(i);
  return starts;
}

// Unique values of a sorted buffer (in place); returns their count.
template <bool EqualNan, class T>
index_t unique_sorted(T* p, index_t n) {
  const std::vector<index_t> starts = group_starts<EqualNan>(p, n);
  for (size_t g = 0; g < starts.size(); ++g) p[g] = p[starts[g]];
  return static_cast<index_t>(starts.size());
}

template <bool EqualNan, class C, class T, int N>
Array<C, 1> unique_values(const Array<T, N>& a) {
  Array<C, 1> s = sorted_copy<C>(a);
  s.shape[0] = unique_sorted<EqualNan>(s.data, s.shape[0]);
  return s;
}

// The values of a in sorted order with the permutation (stable: first occurrences first).
template <class T, int N>
std::pair<Array<T, 1>, std::vector<int64_t>> sorted_with_perm(const Array<T, N>& a) {
  Array<T, 1> f = flat_view(a);
  const index_t n = f.shape[0];
  std::vector<ord::KI<T>> buf;
  std::vector<int64_t> perm(static_cast<size_t>(n));
  ord::argsort_lane(f.data, 1, n, perm.data(), 1, buf);
  Array<T, 1> s = empty<T, 1>({n});
  for (index_t i = 0; i < n; ++i) s.data[i] = f.data[perm[i]];
  return {s, perm};
}

// Membership in a set of test values, compared as C.
template <class C>
struct Member {
  Array<C, 1> sorted;
  std::vector<bool> table;  // integers of a small range: a bit per value
  int64_t lo = 0;
  bool use_table = false;

  template <class U, int M>
  Member(const Array<U, M>& test, index_t queries) : sorted(unique_values<true, C>(test)) {
    const index_t n = sorted.shape[0];
    if constexpr (std::is_integral_v<C> && sizeof(C) <= 8) {
      if (n > 0) {
        const long double range = static_cast<long double>(sorted.data[n - 1]) - static_cast<long double>(sorted.data[0]);
        if (range <= 6.0L * static_cast<long double>(queries + n) && range < (1LL << 30)) {
          use_table = true;
          lo = static_cast<int64_t>(sorted.data[0]);
          table.assign(static_cast<size_t>(range) + 1, false);
          for (index_t i = 0; i < n; ++i) table[static_cast<size_t>(static_cast<int64_t>(sorted.data[i]) - lo)] = true;
        }
      }
    }
  }

  bool operator()(const C& x) const {
    const index_t n = sorted.shape[0];
    if (use_table) {
      if constexpr (std::is_integral_v<C>) {
        if (n == 0 || x < sorted.data[0] || x > sorted.data[n - 1]) return false;
        return table[static_cast<size_t>(static_cast<int64_t>(x) - lo)];
      }
    }
    const C* p = sorted.data;
    const index_t k = std::lower_bound(p, p + n, x, ord::Less<C>{}) - p;
    return k < n && p[k] == x;
  }
};

}  // namespace sets

// ---- np.unique (axis=None) -------------------------------------------------------------
template <bool EqualNan, class T, int N>
Array<T, 1> unique(const Array<T, N>& a) {
  return sets::unique_values<EqualNan, T>(a);
}

namespace sets {
// unique(return_counts=True) alone: sorting the values suffices
template <bool EqualNan, class T, int N>
auto unique_counts(const Array<T, N>& a) {
  Array<T, 1> s = sorted_copy<T>(a);
  const index_t n = s.shape[0];
  const std::vector<index_t> starts = group_starts<EqualNan>(s.data, n);
  const index_t g = static_cast<index_t>(starts.size());
  Array<T, 1> values = empty<T, 1>({g});
  Array<int64_t, 1> counts = empty<int64_t, 1>({g});
  for (index_t k = 0; k < g; ++k) {
    values.data[k] = s.data[starts[k]];
    counts.data[k] = (k + 1 < g ? starts[k + 1] : n) - starts[k];
  }
  return std::make_tuple(values, counts);
}
}  // namespace sets

template <bool Index, bool Inverse, bool Counts, bool EqualNan, class T, int N>
auto unique_all(const Array<T, N>& a) {
  if constexpr (!Index && !Inverse) {
    return sets::unique_counts<EqualNan>(a);
  } else {
    auto [s, perm] = sets::sorted_with_perm(a);
    const index_t n = s.shape[0];
    const std::vector<index_t> starts = sets::group_starts<EqualNan>(s.data, n);
    const index_t g = static_cast<index_t>(starts.size());
    Array<T, 1> values = empty<T, 1>({g});
    Array<int64_t, 1> index = empty<int64_t, 1>({Index ? g : 0});
    Array<int64_t, N> inverse = empty<int64_t, N>(Inverse ? a.shape : std::array<index_t, N>{});
    Array<int64_t, 1> counts = empty<int64_t, 1>({Counts ? g : 0});
    for (index_t k = 0; k < g; ++k) {
      const index_t b = starts[k], e = k + 1 < g ? starts[k + 1] : n;
      values.data[k] = s.data[b];
      if constexpr (Index) index.data[k] = perm[b];
      if constexpr (Counts) counts.data[k] = e - b;
      if constexpr (Inverse)
        for (index_t i = b; i < e; ++i) inverse.data[perm[i]] = k;
    }
    if constexpr (Index && Inverse && Counts) return std::make_tuple(values, index, inverse, counts);
    else if constexpr (Index && Inverse) return std::make_tuple(values, index, inverse);
    else if constexpr (Index && Counts) return std::make_tuple(values, index, counts);
    else if constexpr (Inverse && Counts) return std::make_tuple(values, inverse, counts);
    else if constexpr (Index) return std::make_tuple(values, index);
    else return std::make_tuple(values, inverse);
  }
}

// ---- np.isin -------------------------------------------------------------------------------
template <bool Invert, class C, class T, int N, class U, int M>
Array<bool, N> isin(const Array<T, N>& element, const Array<U, M>& test) {
  const sets::Member<C> member(test, element.size());
  Array<bool, N> out = empty<bool, N>(element.shape);
  index_t j = 0;
  for_each_offset(element, [&](index_t off) { out.data[j++] = member(elem_cast<C>(element.data[off])) != Invert; });
  return out;
}

// ---- intersect1d / union1d / setdiff1d / setxor1d --------------------------------------
namespace sets {
template <class C, class T, class U>
Array<C, 1> concat(const Array<T, 1>& a, const Array<U, 1>& b) {
  const index_t na = a.shape[0], nb = b.shape[0];
  Array<C, 1> out = empty<C, 1>({na + nb});
  for (index_t i = 0; i < na; ++i) out.data[i] = elem_cast<C>(a.data[i * a.strides[0]]);
  for (index_t i = 0; i < nb; ++i) out.data[na + i] = elem_cast<C>(b.data[i * b.strides[0]]);
  return out;
}

// the flattened input, or its unique values
template <bool AssumeUnique, class T, int N>
Array<T, 1> prepared(const Array<T, N>& a) {
  if constexpr (AssumeUnique) return flat_view(a);
  else return unique_values<true, T>(a);
}
}  // namespace sets

template <bool AssumeUnique, class C, class T, int N, class U, int M>
Array<C, 1> intersect1d(const Array<T, N>& a, const Array<U, M>& b) {
  Array<C, 1> aux = sets::concat<C>(sets::prepared<AssumeUnique>(a), sets::prepared<AssumeUnique>(b));
  ord::sort_buf<false>(aux.data, aux.shape[0]);
  index_t j = 0;
  for (index_t i = 0; i + 1 < aux.shape[0]; ++i)
    if (aux.data[i + 1] == aux.data[i]) aux.data[j++] = aux.data[i];
  aux.shape[0] = j;
  return aux;
}

template <bool AssumeUnique, class C, class T, int N, class U, int M>
auto intersect1d_indices(const Array<T, N>& a, const Array<U, M>& b) {
  Array<T, 1> ua;
  Array<U, 1> ub;
  Array<int64_t, 1> ia, ib;
  if constexpr (AssumeUnique) {
    ua = flat_view(a);
    ub = flat_view(b);
  } else {
    std::tie(ua, ia) = unique_all<true, false, false, true>(a);
    std::tie(ub, ib) = unique_all<true, false, false, true>(b);
  }
  auto [aux, perm] = sets::sorted_with_perm(sets::concat<C>(ua, ub));
  const index_t n = aux.shape[0], na = ua.shape[0];
  std::vector<index_t> hits;
  for (index_t i = 0; i + 1 < n; ++i)
    if (aux.data[i + 1] == aux.data[i]) hits.push_back(i);
  const index_t h = static_cast<index_t>(hits.size());
  Array<C, 1> values = empty<C, 1>({h});
  Array<int64_t, 1> i1 = empty<int64_t, 1>({h}), i2 = empty<int64_t, 1>({h});
  for (index_t k = 0; k < h; ++k) {
    const index_t i = hits[k];
    values.data[k] = aux.data[i];
    i1.data[k] = perm[i];
    i2.data[k] = perm[i + 1] - na;
    if constexpr (!AssumeUnique) {
      i1.data[k] = ia.data[i1.data[k]];
      i2.data[k] = ib.data[i2.data[k]];
    }
  }
  return std::make_tuple(values, i1, i2);
}

template <class C, class T, int N, class U, int M>
Array<C, 1> union1d(const Array<T, N>& a, const Array<U, M>& b) {
  Array<C, 1> aux = sets::concat<C>(flat_view(a), flat_view(b));
  ord::sort_buf<false>(aux.data, aux.shape[0]);
  aux.shape[0] = sets::unique_sorted<true>(aux.data, aux.shape[0]);
  return aux;
}

// C: the dtype membership is tested in; the result keeps a's dtype
template <bool AssumeUnique, class C, class T, int N, class U, int M>
Array<T, 1> setdiff1d(const Array<T, N>& a, const Array<U, M>& b) {
  Array<T, 1> ua = sets::prepared<AssumeUnique>(a);
  const sets::Member<C> member(b, ua.shape[0]);
  Array<T, 1> out = empty<T, 1>({ua.shape[0]});
  index_t j = 0;
  for (index_t i = 0; i < ua.shape[0]; ++i) {
    const T x = ua.data[i * ua.strides[0]];
    if (!member(elem_cast<C>(x))) out.data[j++] = x;
  }
  out.shape[0] = j;
  return out;
}

template <bool AssumeUnique, class C, class T, int N, class U, int M>
Array<C, 1> setxor1d(const Array<T, N>& a, const Array<U, M>& b) {
  Array<C, 1> aux = sets::concat<C>(sets::prepared<AssumeUnique>(a), sets::prepared<AssumeUnique>(b));
  const index_t n = aux.shape[0];
  ord::sort_buf<false>(aux.data, n);
  // keep values unequal to both neighbours (NaN != NaN: every NaN is kept)
  Array<C, 1> out = empty<C, 1>({n});
  index_t j = 0;
  for (index_t i = 0; i < n; ++i) {
    const bool left = i == 0 || aux.data[i] != aux.data[i - 1];
    const bool right = i + 1 == n || aux.data[i + 1] != aux.data[i];
    if (left && right) out.data[j++] = aux.data[i];
  }
  out.shape[0] = j;
  return out;
}

}  // namespace ep
