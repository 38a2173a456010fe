// Short lanes for sort.hpp: many lanes of n <= net_max elements are sorted W at
// a time by one sorting network (Batcher's odd-even merge sort). The W lanes are
// transposed into a block (element i of lane r at x[i * W + r]) so every
// compare-exchange is a branch-free vector min/max over W lanes; a comparison
// sort on short random lanes is dominated by branch mispredictions instead.
// The network for n is the one for the next power of two with the comparators
// touching indices >= n dropped: those would hold +infinite padding, which no
// comparator ever moves (the smaller value always goes to the lower index).
//
// Values: floats compare with NaN greatest; an equal pair is never swapped, so
// -0.0 and 0.0 keep their bits (their order is unspecified, as in NumPy's
// quicksort). Argsort: (key, index) pairs, keys order-preserving integers (NaN
// greatest, -0.0 == 0.0) and ties broken by index: exactly the stable order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "sort_radix.hpp"

namespace ep {
namespace ord {

inline constexpr index_t net_max = 256;  // longer lanes: radix / comparison sorts win

template <class T>
inline constexpr bool net_value_v = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// lanes per block: two 512-bit vectors per row of the block
template <class T>
inline constexpr int net_width = static_cast<int>(128 / sizeof(T));

struct NetPair {
  uint16_t i, j;  // i < j
};

// The pruned odd-even merge sort network for n <= net_max elements.
inline std::vector<NetPair> net_pairs(index_t n) {
  std::vector<NetPair> out;
  index_t P = 1;
  while (P < n) P <<= 1;
  for (index_t p = 1; p < P; p <<= 1)
    for (index_t k = p; k >= 1; k >>= 1)
      for (index_t j = k % p; j + k < P; j += 2 * k)
        for (index_t i = 0; i < k && i + j + k < P; ++i)
          if ((i + j) / (2 * p) == (i + j + k) / (2 * p) && i + j + k < n)
            out.push_back({static_cast<uint16_t>(i + j), static_cast<uint16_t>(i + j + k)});
  return out;
}

// 64-byte GCC vectors: AVX-512 registers, or pairs of AVX2 ones (explicit vectors,
// as GCC unrolls a plain loop over a row of a double block into branchy scalar code)
template <class T>
using NetVec [[gnu::vector_size(64)]] = T;

template <class T>
inline NetVec<T> net_load(const T* p) {
  NetVec<T> v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

template <class T, class V>
inline void net_store(T* p, const V& v) {
  static_assert(sizeof(V) == 64);
  __builtin_memcpy(p, &v, sizeof v);
}

// Sorts the W lanes of block x (n rows of W) by the network.
template <class T>
void net_sort_block(T* x, const std::vector<NetPair>& net) {
  constexpr int W = net_width<T>, V = 64 / sizeof(T);
  for (const NetPair& q : net) {
    T* a = x + q.i * W;
    T* b = x + q.j * W;
    for (int r = 0; r < W; r += V) {
      const NetVec<T> u = net_load(a + r), v = net_load(b + r);
      auto m = v < u;  // b < a in NumPy's order: NaN greatest
      if constexpr (std::is_floating_point_v<T>) m |= u != u;
      net_store(a + r, m ? v : u);
      net_store(b + r, m ? u : v);
    }
  }
}

// An order-preserving signed key of x's width: NaN greatest, -0.0 == 0.0.
template <class T>
inline auto net_key(T x) {
  using K = typename uint_of<sizeof(T)>::type;
  using S = std::make_signed_t<K>;
  constexpr K top = K(1) << (8 * sizeof(T) - 1);
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) return std::numeric_limits<S>::max();
  }
  return static_cast<S>(static_cast<K>(radix_key(x) ^ top));
}

// Sorts the W lanes of (key, index) pairs k, ix (n rows of W each).
template <class S>
void net_argsort_block(S* k, S* ix, const std::vector<NetPair>& net) {
  constexpr int W = net_width<S>, V = 64 / sizeof(S);
  for (const NetPair& q : net) {
    for (int r = 0; r < W; r += V) {
      S* ka = k + q.i * W + r;
      S* kb = k + q.j * W + r;
      S* ia = ix + q.i * W + r;
      S* ib = ix + q.j * W + r;
      const NetVec<S> u = net_load(ka), v = net_load(kb), iu = net_load(ia), iv = net_load(ib);
      const auto m = (v < u) | ((v == u) & (iv < iu));
      net_store(ka, m ? v : u);
      net_store(kb, m ? u : v);
      net_store(ia, m ? iv : iu);
      net_store(ib, m ? iu : iv);
    }
  }
}

// Lanes at offsets off[0, count) of p (length n, stride s) sorted in place, W at a
// time; a last partial block repeats its first lane in the unused columns.
template <class T>
void net_sort_lanes(T* p, const index_t* off, index_t count, index_t n, index_t s,
                    const std::vector<NetPair>& net, T* x) {
  constexpr int W = net_width<T>;
  for (index_t b0 = 0; b0 < count; b0 += W) {
    const int m = static_cast<int>(std::min<index_t>(W, count - b0));
    for (int r = 0; r < W; ++r) {
      const T* q = p + off[b0 + (r < m ? r : 0)];
      for (index_t i = 0; i < n; ++i) x[i * W + r] = q[i * s];
    }
    net_sort_block(x, net);
    for (int r = 0; r < m; ++r) {
      T* q = p + off[b0 + r];
      for (index_t i = 0; i < n; ++i) q[i * s] = x[i * W + r];
    }
  }
}

template <class T>
inline constexpr bool net_arg_v = radixable_v<T> && sizeof(T) >= 4;

// Stable argsort of lanes: a at offsets ia[q] (stride sa), written to out at io[q] (stride so).
template <class T>
void net_argsort_lanes(const T* a, const index_t* ia, index_t sa, int64_t* out, const index_t* io, index_t so,
                       index_t count, index_t n, const std::vector<NetPair>& net) {
  using S = decltype(net_key(T{}));
  constexpr int W = net_width<S>;
  std::unique_ptr<S[]> k(new S[static_cast<size_t>(n * W)]), ix(new S[static_cast<size_t>(n * W)]);
  for (index_t b0 = 0; b0 < count; b0 += W) {
    const int m = static_cast<int>(std::min<index_t>(W, count - b0));
    for (int r = 0; r < W; ++r) {
      const T* q = a + ia[b0 + (r < m ? r : 0)];
      for (index_t i = 0; i < n; ++i) k[i * W + r] = net_key(q[i * sa]), ix[i * W + r] = static_cast<S>(i);
    }
    net_argsort_block(k.get(), ix.get(), net);
    for (int r = 0; r < m; ++r) {
      int64_t* o = out + io[b0 + r];
      for (index_t i = 0; i < n; ++i) o[i * so] = ix[i * W + r];
    }
  }
}

}  // namespace ord
}  // namespace ep
