// np.lexsort for sort.hpp: keys compared from the last (primary) to the first,
// ties broken by position (NumPy's lexsort is stable).
#pragma once

#include <tuple>
#include <type_traits>
#include <vector>

#include "sort_order.hpp"

namespace ep {

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

}  // namespace ep
