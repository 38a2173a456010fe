// LSD radix sort for sort.hpp: 2-, 4- and 8-byte integers and floats (NaNs
// already moved out by the caller). Stable, one byte per pass, passes whose
// byte is the same for every element skipped. Much faster than comparison
// sorts on large arrays, and stable for free (kind='stable', argsort ties).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>

#include "../array.hpp"

namespace ep {
namespace ord {

template <class T>
inline constexpr bool radixable_v =
    (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) >= 2) || std::is_floating_point_v<T>;

template <size_t B>
struct uint_of;
template <>
struct uint_of<2> {
  using type = uint16_t;
};
template <>
struct uint_of<4> {
  using type = uint32_t;
};
template <>
struct uint_of<8> {
  using type = uint64_t;
};

// An unsigned key ordered as NumPy orders the (non-NaN) values. -0.0 and +0.0
// share a key, so a stable sort keeps them in input order as NumPy's does.
template <class T>
inline typename uint_of<sizeof(T)>::type radix_key(T x) {
  using K = typename uint_of<sizeof(T)>::type;
  constexpr K top = K(1) << (8 * sizeof(T) - 1);
  if constexpr (std::is_floating_point_v<T>) {
    x = x + T(0);  // -0.0 + 0.0 == +0.0
    K u;
    std::memcpy(&u, &x, sizeof u);
    return (u & top) ? K(~u) : K(u | top);
  } else if constexpr (std::is_signed_v<T>) {
    return static_cast<K>(static_cast<K>(x) ^ top);
  } else {
    return static_cast<K>(x);
  }
}

// Stable LSD sort of n items by key(item) (an unsigned integer); tmp holds n items.
template <class Item, class Key>
void radix_sort(Item* a, Item* tmp, index_t n, Key key) {
  using K = decltype(key(a[0]));
  constexpr int P = sizeof(K);
  std::array<std::array<index_t, 256>, P> count{};
  for (index_t i = 0; i < n; ++i) {
    const K k = key(a[i]);
    for (int p = 0; p < P; ++p) ++count[p][(k >> (8 * p)) & 255];
  }
  Item* src = a;
  Item* dst = tmp;
  const K k0 = key(a[0]);
  for (int p = 0; p < P; ++p) {
    auto& c = count[p];
    if (c[(k0 >> (8 * p)) & 255] == n) continue;  // one bucket: nothing moves
    index_t off[256], sum = 0;
    for (int b = 0; b < 256; ++b) off[b] = sum, sum += c[b];
    for (index_t i = 0; i < n; ++i) {
      const Item& it = src[i];
      dst[off[(key(it) >> (8 * p)) & 255]++] = it;
    }
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(static_cast<void*>(a), static_cast<const void*>(src), sizeof(Item) * static_cast<size_t>(n));
}

inline constexpr index_t radix_min = 384;  // below this, comparison sorts win

template <class T>
void radix_sort_values(T* p, index_t n) {
  std::unique_ptr<T[]> tmp(new T[static_cast<size_t>(n)]);
  radix_sort(p, tmp.get(), n, [](T x) { return radix_key(x); });
}

// Stable argsort of the n values at p[0], p[s], ... (n < 2^32): out[j * os] gets the
// j-th index; NaNs last, in index order.
template <class T>
void radix_argsort(const T* p, index_t s, index_t n, int64_t* out, index_t os) {
  using K = typename uint_of<sizeof(T)>::type;
  struct Item {
    K k;
    uint32_t i;
  };
  std::unique_ptr<Item[]> a(new Item[static_cast<size_t>(n)]), tmp(new Item[static_cast<size_t>(n)]);
  index_t m = 0;
  for (index_t i = 0; i < n; ++i) {
    const T x = p[i * s];
    if (x == x) a[m++] = {radix_key(x), static_cast<uint32_t>(i)};
  }
  if (m > 0) radix_sort(a.get(), tmp.get(), m, [](const Item& x) { return x.k; });
  for (index_t j = 0; j < m; ++j) out[j * os] = a[j].i;
  for (index_t i = 0; i < n && m < n; ++i)
    if (p[i * s] != p[i * s]) out[m++ * os] = i;
}

}  // namespace ord
}  // namespace ep
