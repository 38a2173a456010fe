// Sorting: np.sort / ndarray.sort, argsort, partition / argpartition, lexsort
// and sort_complex, plus the order they share with searching and set
// operations (search.hpp, setops.hpp). NumPy's order puts NaN last; complex
// numbers sort lexicographically with R+Rj < R+nanj < nan+Rj < nan+nanj.
//
// Speed: floats have their NaNs moved to the end first, so the main sort is a
// plain `<` std::sort; 1-byte types are counting-sorted; argsort sorts
// (key, index) pairs with the index as tie-break, which is both faster than an
// indirect sort (no scattered loads) and stable, so kind='stable' is free.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
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

// ---- np.sort / ndarray.sort -----------------------------------------------------------
template <int Axis, bool Stable, class T, int N>
void sort_inplace(const Array<T, N>& a) {
  const index_t n = a.shape[Axis], s = a.strides[Axis];
  if (n < 2) return;
  std::unique_ptr<T[]> buf(s == 1 ? nullptr : new T[static_cast<size_t>(n)]);
  ord::for_each_lane<Axis>(a, [&](index_t off) {
    T* p = a.data + off;
    if (s == 1) {
      ord::sort_buf<Stable>(p, n);
      return;
    }
    for (index_t i = 0; i < n; ++i) buf[i] = p[i * s];
    ord::sort_buf<Stable>(buf.get(), n);
    for (index_t i = 0; i < n; ++i) p[i * s] = buf[i];
  });
}

// Axis < 0: axis=None (the flattened array)
template <int Axis, bool Stable, class T, int N>
auto sort(const Array<T, N>& a) {
  if constexpr (Axis < 0) {
    Array<T, 1> out = flat_copy(a);
    ord::sort_buf<Stable>(out.data, out.shape[0]);
    return out;
  } else {
    Array<T, N> out = copy(a);
    sort_inplace<Axis, Stable>(out);
    return out;
  }
}

// ---- np.argsort -------------------------------------------------------------------------
template <int Axis, class T, int N>
auto argsort(const Array<T, N>& a) {
  if constexpr (Axis < 0) {
    Array<T, 1> f = flat_view(a);
    return argsort<0>(f);
  } else {
    Array<int64_t, N> out = empty<int64_t, N>(a.shape);
    const index_t n = a.shape[Axis];
    std::vector<ord::KI<T>> buf;
    ord::for_each_lane2<Axis>(a, out, [&](index_t ia, index_t io) {
      ord::argsort_lane(a.data + ia, a.strides[Axis], n, out.data + io, out.strides[Axis], buf);
    });
    return out;
  }
}

// ---- partition / argpartition ---------------------------------------------------------
namespace ord {
template <class K>
void kth_values(const K& k, std::vector<index_t>& out) {
  if constexpr (std::is_arithmetic_v<K>) {
    out.push_back(static_cast<index_t>(k));
  } else if constexpr (is_std_tuple_v<K>) {
    std::apply([&](const auto&... x) { (out.push_back(static_cast<index_t>(x)), ...); }, k);
  } else if constexpr (is_list<K>::value) {
    for (index_t i = 0; i < k.size(); ++i) out.push_back(static_cast<index_t>(k[i]));
  } else {
    for_each_offset(k, [&](index_t off) { out.push_back(static_cast<index_t>(k.data[off])); });
  }
}

// kth normalised against a lane length n (NumPy's checks and message), sorted
template <class K>
std::vector<index_t> kths(const K& k, index_t n, bool any) {
  std::vector<index_t> v;
  kth_values(k, v);
  for (auto& x : v) {
    if (x < 0) x += n;
    if (any && (x < 0 || x >= n))
      raise("ValueError", "kth(=" + std::to_string(x) + ") out of bounds (" + std::to_string(n) + ")");
  }
  std::sort(v.begin(), v.end());
  return v;
}

// Partition [0, good) so that each kth (below good) is in its sorted place.
template <class It, class Cmp>
void multi_select(It first, index_t good, const std::vector<index_t>& kth, Cmp cmp) {
  index_t lo = 0;
  for (index_t k : kth) {
    if (k >= good) break;  // in the NaN tail: already in place
    if (k < lo) continue;  // repeated kth
    std::nth_element(first + lo, first + k, first + good, cmp);
    lo = k + 1;
  }
}
}  // namespace ord

template <int Axis, class T, int N, class K>
void partition_inplace(const Array<T, N>& a, const K& kth) {
  const index_t n = a.shape[Axis], s = a.strides[Axis];
  const std::vector<index_t> ks = ord::kths(kth, n, a.size() != 0);
  if (n < 2) return;
  std::unique_ptr<T[]> buf(new T[static_cast<size_t>(n)]);
  ord::for_each_lane<Axis>(a, [&](index_t off) {
    T* p = a.data + off;
    for (index_t i = 0; i < n; ++i) buf[i] = p[i * s];
    index_t good = n;
    if constexpr (std::is_floating_point_v<T>) {
      good = ord::nan_to_end(buf.get(), n);
      ord::multi_select(buf.get(), good, ks, std::less<T>{});
    } else {
      ord::multi_select(buf.get(), good, ks, ord::Less<T>{});
    }
    for (index_t i = 0; i < n; ++i) p[i * s] = buf[i];
  });
}

template <int Axis, class T, int N, class K>
auto partition(const Array<T, N>& a, const K& kth) {
  if constexpr (Axis < 0) {
    Array<T, 1> out = flat_copy(a);
    partition_inplace<0>(out, kth);
    return out;
  } else {
    Array<T, N> out = copy(a);
    partition_inplace<Axis>(out, kth);
    return out;
  }
}

template <int Axis, class T, int N, class K>
auto argpartition(const Array<T, N>& a, const K& kth) {
  if constexpr (Axis < 0) {
    Array<T, 1> f = flat_view(a);
    return argpartition<0>(f, kth);
  } else {
    const index_t n = a.shape[Axis];
    const std::vector<index_t> ks = ord::kths(kth, n, a.size() != 0);
    Array<int64_t, N> out = empty<int64_t, N>(a.shape);
    std::vector<ord::KI<T>> buf;
    ord::for_each_lane2<Axis>(a, out, [&](index_t ia, index_t io) {
      const index_t good = ord::load_pairs(a.data + ia, a.strides[Axis], n, buf);
      ord::multi_select(buf.begin(), good, ks, ord::KILess<T>{});
      for (index_t j = 0; j < n; ++j) out.data[io + j * out.strides[Axis]] = buf[j].i;
    });
    return out;
  }
}

// ---- np.lexsort -------------------------------------------------------------------------
namespace ord {
// Is row i before row j, comparing keys from the last (primary) to the first?
template <class T>
inline int cmp3(const T& a, const T& b) {
  return lt(a, b) ? -1 : (lt(b, a) ? 1 : 0);
}

template <int I, class Tup>
inline int lex_cmp(const Tup& keys, index_t i, index_t j) {
  if constexpr (I < 0) {
    return 0;
  } else {
    const auto* p = std::get<I>(keys);
    const int c = cmp3(p[i], p[j]);
    return c ? c : lex_cmp<I - 1>(keys, i, j);
  }
}
}  // namespace ord

// keys: contiguous copies of equal shape; Cmp(i, j) compares flat positions i, j.
template <int Axis, int N, class Cmp>
Array<int64_t, N> lexsort_lanes(const std::array<index_t, N>& shape, Cmp cmp) {
  Array<int64_t, N> out = empty<int64_t, N>(shape);
  const index_t n = shape[Axis], s = out.strides[Axis];
  std::vector<index_t> idx(static_cast<size_t>(n));
  ord::for_each_lane<Axis>(out, [&](index_t off) {
    for (index_t i = 0; i < n; ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](index_t x, index_t y) {
      const int c = cmp(off + x * s, off + y * s);
      return c < 0 || (c == 0 && x < y);
    });
    for (index_t i = 0; i < n; ++i) out.data[off + i * s] = idx[i];
  });
  return out;
}

namespace ord {
template <class A, class B>
void same_key_shape(const A& a, const B& b) {
  if constexpr (std::decay_t<A>::ndim != std::decay_t<B>::ndim) {
    raise("ValueError", "all keys need to be the same shape");
  } else {
    if (a.shape != b.shape) raise("ValueError", "all keys need to be the same shape");
  }
}
}  // namespace ord

// keys as a tuple of arrays (the last is the primary key)
template <int Axis, class... K>
auto lexsort(const std::tuple<K...>& keys) {
  constexpr int N = std::tuple_element_t<0, std::tuple<K...>>::ndim;
  const auto& first = std::get<0>(keys);
  std::apply([&](const auto&... k) { (ord::same_key_shape(first, k), ...); }, keys);
  auto copies = std::apply([](const auto&... k) { return std::make_tuple(flat_view(k)...); }, keys);
  auto ptrs = std::apply([](const auto&... c) { return std::make_tuple(static_cast<const typename std::decay_t<decltype(c)>::value_type*>(c.data)...); }, copies);
  return lexsort_lanes<Axis, N>(first.shape, [&](index_t i, index_t j) {
    return ord::lex_cmp<static_cast<int>(sizeof...(K)) - 1>(ptrs, i, j);
  });
}

// keys as a list of equally typed arrays
template <int Axis, class T, int N>
Array<int64_t, N> lexsort(const List<Array<T, N>>& keys) {
  const index_t k = keys.size();
  if (k == 0) raise("TypeError", "need sequence of keys with len > 0 in lexsort");
  std::vector<Array<T, 1>> flat;
  for (index_t q = 0; q < k; ++q) {
    ord::same_key_shape(keys[0], keys[q]);
    flat.push_back(flat_view(keys[q]));
  }
  return lexsort_lanes<Axis, N>(keys[0].shape, [&](index_t i, index_t j) {
    for (index_t q = k - 1; q >= 0; --q) {
      const int c = ord::cmp3(flat[q].data[i], flat[q].data[j]);
      if (c) return c;
    }
    return 0;
  });
}

// keys as one array: its first axis enumerates the keys
template <int Axis, class T, int N>
Array<int64_t, N - 1> lexsort(const Array<T, N>& keys) {
  const index_t k = keys.shape[0];
  if (k == 0) raise("TypeError", "need sequence of keys with len > 0 in lexsort");
  Array<T, 1> flat = flat_view(keys);
  std::array<index_t, N - 1> shape{};
  for (int d = 1; d < N; ++d) shape[d - 1] = keys.shape[d];
  const index_t stride = k ? flat.size() / k : 0;
  return lexsort_lanes<Axis, N - 1>(shape, [&](index_t i, index_t j) {
    for (index_t q = k - 1; q >= 0; --q) {
      const int c = ord::cmp3(flat.data[q * stride + i], flat.data[q * stride + j]);
      if (c) return c;
    }
    return 0;
  });
}

// ---- np.sort_complex --------------------------------------------------------------------
template <class R, class T, int N>
Array<R, N> sort_complex(const Array<T, N>& a) {
  Array<R, N> out = astype<R>(a);
  sort_inplace<N - 1, false>(out);
  return out;
}

}  // namespace ep
