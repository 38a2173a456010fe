// NumPy's sort order and the per-lane kernels sort.hpp builds on: value sorts of
// a contiguous buffer, argsort of one lane by (key, index) pairs, and walking the
// 1-d lanes of an array. NumPy's order puts NaN last; complex numbers sort
// lexicographically with R+Rj < R+nanj < nan+Rj < nan+nanj.
//
// Speed: floats have their NaNs moved to the end first, so the main sort is a
// plain `<` sort; 1-byte types are counting-sorted; 2-8 byte types are radix
// sorted from radix_min elements (sort_radix.hpp); argsort sorts (key, index)
// pairs with the index as tie-break, which is both faster than an indirect sort
// (no scattered loads) and stable, so kind='stable' is free.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"
#include "sort_radix.hpp"

namespace ep {
namespace ord {

template <class T>
inline bool isnan_(const T& x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else if constexpr (is_complex_v<T>) return x.real() != x.real() || x.imag() != x.imag();
  else return false;
}

// a < b in NumPy's sort order (npysort's LT)
template <class T>
inline bool lt(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return a < b || (b != b && a == a);
  } else if constexpr (is_complex_v<T>) {
    const auto ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    if (ar < br) return ai == ai || bi != bi;
    if (ar > br) return bi != bi && ai == ai;
    if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
    return br != br;
  } else if constexpr (std::is_same_v<T, bool>) {
    return !a && b;
  } else {
    return a < b;
  }
}

template <class T>
struct Less {
  bool operator()(const T& a, const T& b) const { return lt(a, b); }
};

// ---- value sort of a contiguous buffer -----------------------------------------
template <class T>
void counting_sort(T* p, index_t n) {
  using U = std::make_unsigned_t<std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>>;
  constexpr int B = 1 << (8 * sizeof(T));
  std::vector<index_t> count(B, 0);
  for (index_t i = 0; i < n; ++i) ++count[static_cast<U>(p[i])];
  // signed types: negative values (high bit set) come first
  const int start = std::is_signed_v<T> ? B / 2 : 0;
  index_t j = 0;
  for (int b = 0; b < B; ++b) {
    const int v = (start + b) % B;
    const T x = static_cast<T>(static_cast<U>(v));
    for (index_t c = count[v]; c > 0; --c) p[j++] = x;
  }
}

// Moves NaNs to the end (Stable: keeping the order of the others); returns the count of non-NaNs.
template <bool Stable = false, class T>
index_t nan_to_end(T* p, index_t n) {
  auto good = [](const T& x) { return !isnan_(x); };
  if constexpr (Stable) return std::stable_partition(p, p + n, good) - p;
  else return std::partition(p, p + n, good) - p;
}

template <bool Stable, class T>
void sort_buf(T* p, index_t n) {
  if (n < 2) return;
  if constexpr (sizeof(T) == 1) {
    if (n >= 64) {
      counting_sort(p, n);
      return;
    }
    std::sort(p, p + n);
  } else if constexpr (std::is_floating_point_v<T>) {
    index_t good = n;
    for (index_t i = 0; i < n; ++i)
      if (p[i] != p[i]) {
        good = nan_to_end<Stable>(p, n);
        break;
      }
    if (good >= radix_min) radix_sort_values(p, good);  // stable
    else if constexpr (Stable) std::stable_sort(p, p + good);  // keeps -0.0 / 0.0 in input order
    else std::sort(p, p + good);
  } else if constexpr (is_complex_v<T>) {
    if constexpr (Stable) std::stable_sort(p, p + n, Less<T>{});
    else std::sort(p, p + n, Less<T>{});
  } else if (n >= radix_min) {
    radix_sort_values(p, n);
  } else {
    std::sort(p, p + n);  // integers: equal values are indistinguishable
  }
}

// ---- argsort: (key, index) pairs ------------------------------------------------
template <class T>
struct KI {
  T k;
  int64_t i;
};

template <class T>
struct KILess {
  bool operator()(const KI<T>& a, const KI<T>& b) const {
    if constexpr (std::is_floating_point_v<T> || std::is_integral_v<T>) {
      return a.k < b.k || (a.k == b.k && a.i < b.i);  // callers moved NaNs out
    } else {
      return lt(a.k, b.k) || (!lt(b.k, a.k) && a.i < b.i);
    }
  }
};

// Fills buf with the lane's (key, index) pairs, NaNs (in index order) at the end;
// returns the number of non-NaN pairs.
template <class T>
index_t load_pairs(const T* p, index_t s, index_t n, std::vector<KI<T>>& buf) {
  buf.resize(static_cast<size_t>(n));
  if constexpr (std::is_floating_point_v<T>) {
    index_t j = 0, nans = 0;
    for (index_t i = 0; i < n; ++i) {
      const T x = p[i * s];
      if (x == x) buf[j++] = {x, i};
      else ++nans;
    }
    if (nans) {
      index_t q = j;
      for (index_t i = 0; i < n; ++i)
        if (p[i * s] != p[i * s]) buf[q++] = {p[i * s], i};
    }
    return j;
  } else {
    for (index_t i = 0; i < n; ++i) buf[i] = {p[i * s], i};
    return n;
  }
}

template <class T>
void argsort_lane(const T* p, index_t s, index_t n, int64_t* out, index_t os, std::vector<KI<T>>& buf) {
  if constexpr (radixable_v<T>) {
    if (n >= radix_min && n < (index_t(1) << 32)) {
      radix_argsort(p, s, n, out, os);
      return;
    }
  }
  const index_t good = load_pairs(p, s, n, buf);
  std::sort(buf.begin(), buf.begin() + good, KILess<T>{});
  for (index_t j = 0; j < n; ++j) out[j * os] = buf[j].i;
}

// ---- lanes ------------------------------------------------------------------------
// f(offset of a lane's first element) for every 1-d lane of a along Axis.
template <int Axis, class T, int N, class F>
void for_each_lane(const Array<T, N>& a, F&& f) {
  static_assert(0 <= Axis && Axis < N, "axis out of range");
  Array<T, N - 1> outer;
  outer.data = a.data;
  for (int k = 0, j = 0; k < N; ++k)
    if (k != Axis) {
      outer.shape[j] = a.shape[k];
      outer.strides[j] = a.strides[k];
      ++j;
    }
  if (a.size() == 0) return;
  for_each_offset(outer, f);
}

// Two arrays of one shape walked lane by lane together: f(offset in a, offset in b).
template <int Axis, class T, int N, class U, class F>
void for_each_lane2(const Array<T, N>& a, const Array<U, N>& b, F&& f) {
  std::array<index_t, N - 1> shape{}, sa{}, sb{};
  for (int k = 0, j = 0; k < N; ++k)
    if (k != Axis) shape[j] = a.shape[k], sa[j] = a.strides[k], sb[j] = b.strides[k], ++j;
  if (a.size() == 0) return;
  std::array<index_t, N - 1> idx{};
  while (true) {
    index_t oa = 0, ob = 0;
    for (int k = 0; k < N - 1; ++k) oa += idx[k] * sa[k], ob += idx[k] * sb[k];
    f(oa, ob);
    int k = N - 2;
    for (; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

}  // namespace ord

// A C-ordered contiguous 1-d copy (axis=None).
template <class T, int N>
Array<T, 1> flat_copy(const Array<T, N>& a) {
  Array<T, 1> out = empty<T, 1>({a.size()});
  if (a.contiguous()) {
    std::copy(a.data, a.data + a.size(), out.data);
  } else {
    index_t j = 0;
    for_each_offset(a, [&](index_t off) { out.data[j++] = a.data[off]; });
  }
  return out;
}

// A flat read-only view when a is contiguous, else a flat copy.
template <class T, int N>
Array<T, 1> flat_view(const Array<T, N>& a) {
  if (!a.contiguous()) return flat_copy(a);
  Array<T, 1> v;
  v.data = a.data;
  v.shape = {a.size()};
  v.strides = {1};
  v.owner = a.owner;
  return v;
}

}  // namespace ep
