// Searching: np.searchsorted / ndarray.searchsorted, np.digitize, np.nonzero /
// ndarray.nonzero, flatnonzero, argwhere, count_nonzero and nanargmax /
// nanargmin.
//
// searchsorted is NumPy's own binary search, step for step (including the
// narrowing it does when consecutive keys increase), so results agree with
// NumPy even on arrays that are not sorted.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"
#include "reduce.hpp"
#include "sort.hpp"

namespace ep {
namespace srch {

// One array of keys searched in a (contiguous, n elements), NumPy's npy_binsearch.
template <bool Right, class C, class Key, class Out>
void binsearch(const C* a, index_t n, index_t count, Key key, Out out) {
  index_t lo = 0, hi = n;
  if (count == 0) return;
  C last = key(0);
  for (index_t j = 0; j < count; ++j) {
    const C x = key(j);
    // consecutive increasing keys keep the previous lower bound
    if (ord::lt(last, x)) {
      hi = n;
    } else {
      lo = 0;
      hi = hi < n ? hi + 1 : n;
    }
    last = x;
    while (lo < hi) {  // branch-free steps; both possible next probes prefetched
      const index_t mid = lo + ((hi - lo) >> 1);
      __builtin_prefetch(a + lo + ((mid - lo) >> 1));
      __builtin_prefetch(a + mid + 1 + ((hi - mid - 1) >> 1));
      const bool go = Right ? !ord::lt(x, a[mid]) : ord::lt(a[mid], x);
      lo = go ? mid + 1 : lo;
      hi = go ? hi : mid;
    }
    out(j, lo);
  }
}

// a as a contiguous array of C
template <class C, class T>
Array<C, 1> as_sorted(const Array<T, 1>& a) {
  if constexpr (std::is_same_v<C, T>) return flat_view(a);
  else return as_dtype<C>(a);
}

// Many keys into a large sorted array: sort the keys, then one merge-like sweep
// (exact for a sorted `a`, which the caller checked). Random probes into an array
// that does not fit in cache cost a miss per step; the sweep reads `a` once.
template <bool Right, class C>
void sweep_keys(const C* a, index_t n, const C* keys, index_t count, int64_t* out) {
  std::vector<int64_t> perm(static_cast<size_t>(count));
  std::vector<ord::KI<C>> buf;
  ord::argsort_lane(keys, 1, count, perm.data(), 1, buf);
  index_t pos = 0;
  for (index_t j = 0; j < count; ++j) {
    const C x = keys[perm[j]];
    if constexpr (Right) {
      while (pos < n && !ord::lt(x, a[pos])) ++pos;
    } else {
      while (pos < n && ord::lt(a[pos], x)) ++pos;
    }
    out[perm[j]] = pos;
  }
}

// Search of a sorted array in a fixed number of branch-free steps (the count of
// elements before x's place); on sorted data it agrees with NumPy's search.
template <bool Right, class C>
inline index_t sorted_search(const C* a, index_t n, const C& x) {
  if (n == 0) return 0;
  if constexpr (std::is_floating_point_v<C>) {
    if (x == x) {  // a number: plain comparisons (NaNs in `a` are never before it)
      const C* base = a;
      index_t len = n;
      while (len > 1) {
        const index_t half = len >> 1;
        __builtin_prefetch(base + (half >> 1));
        __builtin_prefetch(base + half + (half >> 1));
        base += (Right ? base[half] <= x : base[half] < x) ? half : 0;
        len -= half;
      }
      return (base - a) + ((Right ? *base <= x : *base < x) ? 1 : 0);
    }
  }
  const C* base = a;
  index_t len = n;
  while (len > 1) {
    const index_t half = len >> 1;
    __builtin_prefetch(base + (half >> 1));
    __builtin_prefetch(base + half + (half >> 1));
    const bool before = Right ? !ord::lt(x, base[half]) : ord::lt(base[half], x);
    base += before ? half : 0;
    len -= half;
  }
  const bool before = Right ? !ord::lt(x, *base) : ord::lt(*base, x);
  return (base - a) + (before ? 1 : 0);
}

// A few sorted values (bins): count those before x in one vectorised pass.
template <bool Right, class C>
inline index_t short_search(const C* a, index_t n, const C& x) {
  if constexpr (std::is_arithmetic_v<C> && !std::is_same_v<C, bool>) {
    if (x == x) {  // NaN keys go after every number: the general search handles them
      index_t c = 0;
      for (index_t i = 0; i < n; ++i) c += Right ? (a[i] <= x) : (a[i] < x);  // NaN bins: never before
      return c;
    }
  }
  return sorted_search<Right>(a, n, x);
}

template <class C>
bool is_sorted_np(const C* a, index_t n) {
  for (index_t i = 1; i < n; ++i)
    if (ord::lt(a[i], a[i - 1])) return false;
  return true;
}

template <bool Right, class C, class V>
auto search_keys(const Array<C, 1>& a, const V& v) {
  const C* p = a.data;
  const index_t n = a.shape[0];
  if constexpr (is_array_v<V>) {
    constexpr int M = std::decay_t<V>::ndim;
    Array<int64_t, M> out = empty<int64_t, M>(v.shape);
    auto keys = flat_view(v);
    const index_t count = keys.shape[0];
    // Checking that `a` is sorted (one pass) pays off for many keys: sorted arrays are
    // swept (large) or searched branch-free; others get NumPy's own search.
    if (count >= 32 && count * 8 >= n && is_sorted_np(p, n)) {
      if (n >= (index_t(1) << 16) && count >= n / 16) {
        Array<C, 1> ck = as_dtype<C>(keys);
        sweep_keys<Right>(p, n, ck.data, count, out.data);
      } else {
        if (n <= 64)
          for (index_t j = 0; j < count; ++j) out.data[j] = short_search<Right>(p, n, elem_cast<C>(keys.data[j]));
        else
          for (index_t j = 0; j < count; ++j) out.data[j] = sorted_search<Right>(p, n, elem_cast<C>(keys.data[j]));
      }
      return out;
    }
    binsearch<Right, C>(p, n, count, [&](index_t j) { return elem_cast<C>(keys.data[j]); },
                        [&](index_t j, index_t r) { out.data[j] = r; });
    return out;
  } else {
    int64_t r = 0;
    binsearch<Right, C>(p, n, 1, [&](index_t) { return elem_cast<C>(v); }, [&](index_t, index_t x) { r = x; });
    return r;
  }
}

}  // namespace srch

// C: the dtype a and v are compared in (NumPy converts both to their common type)
template <bool Right, class C, class T, class V>
auto searchsorted(const Array<T, 1>& a, const V& v) {
  return srch::search_keys<Right, C>(srch::as_sorted<C>(a), v);
}

template <bool Right, class C, class T, class V, class S>
auto searchsorted_sorter(const Array<T, 1>& a, const V& v, const Array<S, 1>& sorter) {
  const index_t n = a.shape[0];
  if (sorter.shape[0] != n) raise("ValueError", "sorter.size must equal a.size");
  Array<C, 1> sorted = empty<C, 1>({n});
  for (index_t i = 0; i < n; ++i) {
    const index_t k = static_cast<index_t>(sorter.data[i * sorter.strides[0]]);
    if (k < 0 || k >= n) raise("ValueError", "Sorter index out of range.");
    sorted.data[i] = elem_cast<C>(a.data[k * a.strides[0]]);
  }
  return srch::search_keys<Right, C>(sorted, v);
}

// ---- np.digitize ---------------------------------------------------------------------
namespace srch {
// NumPy's check_array_monotonic (on the bins converted to double): 1, -1 or 0
template <class T>
int monotonicity(const Array<T, 1>& b) {
  const index_t n = b.shape[0];
  auto at = [&](index_t i) { return static_cast<double>(b.data[i * b.strides[0]]); };
  if (n == 0) return 1;
  double last = at(0), next;
  index_t i = 1;
  for (; i < n && at(i) == last; ++i) {
  }
  if (i == n) return 1;
  next = at(i);
  if (last < next) {
    for (i += 1; i < n; ++i) {
      last = next;
      next = at(i);
      if (last > next) return 0;
    }
    return 1;
  }
  for (i += 1; i < n; ++i) {
    last = next;
    next = at(i);
    if (last < next) return 0;
  }
  return -1;
}

template <class R>
auto subtract_from(int64_t n, R r) {
  if constexpr (is_array_v<R>) {
    for (index_t i = 0; i < r.size(); ++i) r.data[i] = n - r.data[i];
    return r;
  } else {
    return static_cast<int64_t>(n - r);
  }
}
}  // namespace srch

// Right: right=True (bins[i-1] < x <= bins[i]); C: the dtype x and bins are compared in
template <bool Right, class C, class X, class T>
auto digitize(const X& x, const Array<T, 1>& bins) {
  const int mono = srch::monotonicity(bins);
  if (mono == 0) raise("ValueError", "bins must be monotonically increasing or decreasing");
  const index_t n = bins.shape[0];
  Array<C, 1> b = srch::as_sorted<C>(bins);
  if (mono == -1) {  // reversed bins, inverted results (as NumPy)
    Array<C, 1> rev = empty<C, 1>({n});
    for (index_t i = 0; i < n; ++i) rev.data[i] = b.data[n - 1 - i];
    return srch::subtract_from(n, srch::search_keys<!Right, C>(rev, x));
  }
  return srch::search_keys<!Right, C>(b, x);
}

// A 0-d array's element (NumPy gives a scalar for a 0-d key)
template <class T>
inline T item(const Array<T, 0>& a) {
  return a.data[0];
}

// ---- nonzero / flatnonzero / argwhere / count_nonzero -----------------------------------
namespace srch {
template <class T>
inline bool nz(const T& x) {
  if constexpr (std::is_same_v<T, bool>) return x;
  else return x != T(0);
}

// f(offset, multi-index) for every element in C order
template <class T, int N, class F>
void walk_index(const Array<T, N>& a, F&& f) {
  std::array<index_t, N> idx{};
  if constexpr (N == 0) {
    f(index_t{0}, idx);
  } else {
    if (a.size() == 0) return;
    while (true) {
      index_t base = 0;
      for (int k = 0; k < N - 1; ++k) base += idx[k] * a.strides[k];
      for (idx[N - 1] = 0; idx[N - 1] < a.shape[N - 1]; ++idx[N - 1]) f(base + idx[N - 1] * a.strides[N - 1], idx);
      idx[N - 1] = 0;
      int k = N - 2;
      for (; k >= 0; --k) {
        if (++idx[k] < a.shape[k]) break;
        idx[k] = 0;
      }
      if (k < 0) return;
    }
  }
}
}  // namespace srch

template <class T, int N>
int64_t count_nonzero_all(const Array<T, N>& a) {
  int64_t c = 0;
  if (a.contiguous()) {
    const index_t n = a.size();
    const T* p = a.data;
    if constexpr (std::is_same_v<T, bool>) {  // bool bytes are 0 or 1: popcount 8 at a time
      index_t i = 0;
      for (; i + 8 <= n; i += 8) {
        uint64_t block;
        std::memcpy(&block, p + i, 8);
        c += std::popcount(block);
      }
      for (; i < n; ++i) c += p[i];
    } else {
      for (index_t i = 0; i < n; ++i) c += srch::nz(p[i]) ? 1 : 0;
    }
  } else {
    for_each_offset(a, [&](index_t off) { c += srch::nz(a.data[off]) ? 1 : 0; });
  }
  return c;
}

// count_nonzero over a set of axes (bit mask), as an int64 array
template <uint32_t Mask, bool Keep, class T, int N>
auto count_nonzero_axes(const Array<T, N>& a) {
  constexpr int R = std::popcount(Mask);
  constexpr int M = Keep ? N : N - R;
  std::array<index_t, M> shape{};
  for (int k = 0, j = 0; k < N; ++k) {
    if (Mask & (1u << k)) {
      if (Keep) shape[j++] = 1;
    } else {
      shape[j++] = a.shape[k];
    }
  }
  Array<int64_t, M> out = full<int64_t, M>(shape, 0);
  std::array<index_t, N> ost{};  // output stride per input axis (0 on reduced axes)
  for (int k = 0, j = 0; k < N; ++k) {
    if (Mask & (1u << k)) {
      if (Keep) ++j;
    } else {
      ost[k] = out.strides[j++];
    }
  }
  srch::walk_index(a, [&](index_t off, const std::array<index_t, N>& idx) {
    if (!srch::nz(a.data[off])) return;
    index_t o = 0;
    for (int k = 0; k < N; ++k) o += idx[k] * ost[k];
    ++out.data[o];
  });
  return out;
}

namespace srch {
// Positions of the nonzero elements in C order, branch-free: each position is
// written, and the cursor advances only past nonzeros (out has one spare slot).
// emit(j, flat position, multi-index) stores position j.
template <class T, int N, class Emit>
void nonzero_positions(const Array<T, N>& a, Emit&& emit) {
  index_t j = 0;
  if (a.contiguous() && N > 0) {
    const index_t n = a.size(), inner = a.shape[N - 1];
    std::array<index_t, N> idx{};
    for (index_t base = 0; base < n; base += inner) {
      const T* p = a.data + base;
      index_t i = 0;
      if constexpr (std::is_same_v<T, bool>) {  // sparse masks: skip all-false 8-byte blocks
        for (; i + 8 <= inner; i += 8) {
          uint64_t block;
          std::memcpy(&block, p + i, 8);
          if (!block) continue;
          for (index_t r = i; r < i + 8; ++r) {
            idx[N - 1] = r;
            emit(j, base + r, idx);
            j += p[r];
          }
        }
      }
      for (; i < inner; ++i) {
        idx[N - 1] = i;
        emit(j, base + i, idx);
        j += nz(p[i]) ? 1 : 0;
      }
      for (int k = N - 2; k >= 0; --k) {
        if (++idx[k] < a.shape[k]) break;
        idx[k] = 0;
      }
    }
    return;
  }
  index_t flat = 0;
  walk_index(a, [&](index_t off, const std::array<index_t, N>& idx) {
    emit(j, flat++, idx);
    j += nz(a.data[off]) ? 1 : 0;
  });
}
}  // namespace srch

template <class T, int N>
auto nonzero(const Array<T, N>& a) {
  static_assert(N >= 1, "nonzero of a 0-d array");
  const index_t count = count_nonzero_all(a);
  std::array<Array<int64_t, 1>, N> outs;
  std::array<int64_t*, N> o;
  for (int k = 0; k < N; ++k) outs[k] = empty<int64_t, 1>({count + 1}), o[k] = outs[k].data;
  srch::nonzero_positions(a, [&](index_t j, index_t, const std::array<index_t, N>& idx) {
    for (int k = 0; k < N; ++k) o[k][j] = idx[k];
  });
  for (int k = 0; k < N; ++k) outs[k].shape[0] = count;
  return std::apply([](const auto&... x) { return std::make_tuple(x...); }, outs);
}

template <class T, int N>
Array<int64_t, 1> flatnonzero(const Array<T, N>& a) {
  const index_t count = count_nonzero_all(a);
  Array<int64_t, 1> out = empty<int64_t, 1>({count + 1});
  int64_t* o = out.data;
  if constexpr (N == 0) {
    o[0] = 0;
  } else {
    srch::nonzero_positions(a, [&](index_t j, index_t flat, const std::array<index_t, N>&) { o[j] = flat; });
  }
  out.shape[0] = count;
  return out;
}

template <class T, int N>
Array<int64_t, 2> argwhere(const Array<T, N>& a) {
  const index_t count = count_nonzero_all(a);
  Array<int64_t, 2> out = empty<int64_t, 2>({count + 1, N});
  int64_t* o = out.data;
  if constexpr (N > 0) {
    srch::nonzero_positions(a, [&](index_t j, index_t, const std::array<index_t, N>& idx) {
      for (int k = 0; k < N; ++k) o[j * N + k] = idx[k];
    });
  }
  out.shape[0] = count;
  return out;
}

// ---- nanargmax / nanargmin ------------------------------------------------------------
namespace srch {
template <class T>
struct real_type {
  using type = T;
};
template <class T>
struct real_type<std::complex<T>> {
  using type = T;
};

// NumPy replaces NaN by -inf (nanargmax) or +inf (nanargmin), then takes argmax/argmin.
template <bool IsMax, class T, int N>
Array<T, N> nan_replaced(const Array<T, N>& a) {
  Array<T, N> r = copy(a);
  using V = typename real_type<T>::type;
  const V inf = IsMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
  for (index_t i = 0; i < r.size(); ++i)
    if (ord::isnan_(r.data[i])) r.data[i] = T(inf);
  return r;
}

[[noreturn]] inline void all_nan() { raise("ValueError", "All-NaN slice encountered"); }
}  // namespace srch

template <bool IsMax, class T, int N>
int64_t nanarg_all(const Array<T, N>& a) {
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
    if (a.size() > 0) {
      bool all = true;
      for_each_offset(a, [&](index_t off) { all = all && ord::isnan_(a.data[off]); });
      if (all) srch::all_nan();
    }
    return red::arg_all<IsMax>(srch::nan_replaced<IsMax>(a));
  } else {
    return red::arg_all<IsMax>(a);
  }
}

template <bool IsMax, int Axis, bool Keep, class T, int N>
auto nanarg_axis(const Array<T, N>& a) {
  if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) {
    const index_t n = a.shape[Axis], s = a.strides[Axis];
    if (a.size() > 0)
      ord::for_each_lane<Axis>(a, [&](index_t off) {
        for (index_t i = 0; i < n; ++i)
          if (!ord::isnan_(a.data[off + i * s])) return;
        srch::all_nan();
      });
    return red::arg_axis<IsMax, Axis, Keep>(srch::nan_replaced<IsMax>(a));
  } else {
    return red::arg_axis<IsMax, Axis, Keep>(a);
  }
}

}  // namespace ep
