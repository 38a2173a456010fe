// Memory order for reductions over views, as NumPy's iterator walks them.
//
// NumPy's reductions (and the ufuncs var/std are made of) iterate with nditer in
// NPY_KEEPORDER: the axes are sorted by the magnitude of their strides, largest
// outermost (npyiter_find_best_axis_ordering, an insertion sort that keeps C order
// where strides are equal, and treats a zero stride - broadcast or size-1 axes - as
// saying nothing), and negative strides are not flipped (reductions pass
// NPY_ITER_DONT_NEGATE_STRIDES). So np.sum(x.T) is the pairwise sum of x's memory,
// and np.sum(x.T, axis=1) adds whole contiguous rows of x into the output, one
// after the other. Following the same order makes our results bit-identical on
// views, and it is also the fast order: the inner loop runs along memory.
//
// This header holds the order itself, arrays allocated in it (NumPy's order='K' for
// temporaries such as var's a - mean), a walk over several same-shaped operands in
// it, and the truth test of np.all / np.any over a row in SIMD lanes.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../array.hpp"
#include "../scalar.hpp"
#include "creation.hpp"

namespace ep {
namespace red {

// The axes of (shape, strides) outermost first, in NumPy's iteration order.
template <int N>
std::array<int, N> memory_order(const std::array<index_t, N>& shape, const std::array<index_t, N>& strides) {
  std::array<int, N> fast{};  // fastest axis first, as nditer stores its axes
  for (int i = 0; i < N; ++i) fast[i] = N - 1 - i;
  auto mag = [&](int k) -> index_t {
    if (shape[k] == 1) return 0;  // NumPy's broadcasting gives size-1 axes stride 0
    return strides[k] < 0 ? -strides[k] : strides[k];
  };
  for (int i0 = 1; i0 < N; ++i0) {
    const int j0 = fast[i0];
    const index_t s0 = mag(j0);
    int pos = i0;
    for (int i1 = i0 - 1; i1 >= 0; --i1) {
      const index_t s1 = mag(fast[i1]);
      if (s0 == 0 || s1 == 0) continue;  // ambiguous: look further
      if (s1 <= s0) break;
      pos = i1;  // fast[i1] has the larger stride: j0 moves inside it
    }
    for (int i = i0; i > pos; --i) fast[i] = fast[i - 1];
    fast[pos] = j0;
  }
  std::array<int, N> perm{};
  for (int i = 0; i < N; ++i) perm[i] = fast[N - 1 - i];
  return perm;
}

template <int N>
std::array<index_t, N> permuted(const std::array<index_t, N>& v, const std::array<int, N>& perm) {
  std::array<index_t, N> out{};
  for (int k = 0; k < N; ++k) out[k] = v[perm[k]];
  return out;
}

// An uninitialised array of a's shape laid out in a's memory order with positive strides
// (np.empty_like(a, order='K'); what a ufunc allocates for `a - mean`).
template <class R, class T, int N>
Array<R, N> empty_in_order(const Array<T, N>& a) {
  if constexpr (N == 0) {
    return empty<R, 0>({});
  } else {
    const std::array<int, N> perm = memory_order<N>(a.shape, a.strides);
    Array<R, N> c = empty<R, N>(permuted<N>(a.shape, perm));
    Array<R, N> out = c;
    for (int k = 0; k < N; ++k) {
      out.shape[perm[k]] = c.shape[k];
      out.strides[perm[k]] = c.strides[k];
    }
    return out;
  }
}

// f(o[0], ..., o[K-1]) for every element, in the memory order of the operand whose strides
// are st[0] (the others: same shape, their own strides; 0 on broadcast axes).
template <int N, size_t K, class F>
void walk_in_order(const std::array<index_t, N>& shape, const std::array<std::array<index_t, N>, K>& st, F&& f) {
  if constexpr (N == 0) {
    std::array<index_t, K> o{};
    f(o);
  } else {
    for (int k = 0; k < N; ++k)
      if (shape[k] == 0) return;
    const std::array<int, N> perm = memory_order<N>(shape, st[0]);
    const std::array<index_t, N> sh = permuted<N>(shape, perm);
    std::array<std::array<index_t, N>, K> ps{};
    for (size_t q = 0; q < K; ++q) ps[q] = permuted<N>(st[q], perm);
    const index_t n = sh[N - 1];
    std::array<index_t, N> idx{};
    std::array<index_t, K> base{};
    while (true) {
      std::array<index_t, K> o = base;
      for (index_t i = 0; i < n; ++i) {
        f(o);
        for (size_t q = 0; q < K; ++q) o[q] += ps[q][N - 1];
      }
      int k = N - 2;
      for (; k >= 0; --k) {
        for (size_t q = 0; q < K; ++q) base[q] += ps[q][k];
        if (++idx[k] < sh[k]) break;
        for (size_t q = 0; q < K; ++q) base[q] -= ps[q][k] * sh[k];
        idx[k] = 0;
      }
      if (k < 0) return;
    }
  }
}

// np.all (IsAll) / np.any of a row: whether every / some element is truthy (nonzero; NaN is
// truthy, -0.0 is not). Real and bool rows compare 32-byte blocks against zero without a
// branch per element and stop at the first block that decides (NumPy scans everything; the
// result is the same).
template <bool IsAll, class T>
bool truth_row(const T* p, index_t n, index_t s) {
  using U = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;  // bool bytes are 0 or 1
  if constexpr (std::is_arithmetic_v<U>) {
    const U* q = reinterpret_cast<const U*>(p);
    if (s == 1) {
      constexpr int L = 32 / sizeof(U);
      typedef U V __attribute__((vector_size(32)));
      constexpr index_t kBlock = 8 * L;  // 256 bytes between early-exit checks
      const V zero = V{} * U(0);
      using M = decltype(zero == zero);  // the integer lane mask a comparison gives
      index_t i = 0;
      for (; i + kBlock <= n; i += kBlock) {
        M acc = M{};  // lanes become -1 where an element decides
        for (index_t j = 0; j < kBlock; j += L) {
          V x;
          std::memcpy(&x, q + i + j, sizeof(V));
          acc |= IsAll ? (x == zero) : (x != zero);
        }
        bool decided = false;
        for (int k = 0; k < L; ++k) decided = decided || acc[k] != 0;
        if (decided) return !IsAll;
      }
      for (; i < n; ++i)
        if ((q[i] != U(0)) != IsAll) return !IsAll;
      return IsAll;
    }
    for (index_t i = 0; i < n; ++i)
      if ((q[i * s] != U(0)) != IsAll) return !IsAll;
    return IsAll;
  } else {
    for (index_t i = 0; i < n; ++i)
      if (sc::truthy(p[i * s]) != IsAll) return !IsAll;
    return IsAll;
  }
}

// o[i] = o[i] && a[i] (IsAll) or o[i] || a[i] for a contiguous row of outputs and inputs: the
// inner loop of np.all / np.any over an axis that is not the one along memory (x.T, axis=1).
// The lane masks are narrowed to bytes, so whole vectors of bools combine at once.
// (GCC's -Warray-bounds sees this inlined into full reductions, whose output is one bool and
// which never reach here: their inner axis is always reduced)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
template <bool IsAll, class T>
void truth_combine(bool* o, const T* p, index_t n) {
  using U = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;
  index_t i = 0;
  if constexpr (std::is_arithmetic_v<U>) {
    const U* q = reinterpret_cast<const U*>(p);
    constexpr int L = 32 / sizeof(U);
    typedef U V __attribute__((vector_size(32)));
    typedef int8_t B __attribute__((vector_size(L)));
    const V zero = V{} * U(0);
    for (; i + L <= n; i += L) {
      V x;
      std::memcpy(&x, q + i, sizeof(V));
      const B t = __builtin_convertvector(x != zero, B) & (B{} + 1);  // 1 where truthy
      B cur;
      std::memcpy(&cur, o + i, sizeof(B));
      cur = IsAll ? (cur & t) : (cur | t);
      std::memcpy(o + i, &cur, sizeof(B));
    }
  }
  for (; i < n; ++i) o[i] = IsAll ? (o[i] && sc::truthy(p[i])) : (o[i] || sc::truthy(p[i]));
}
#pragma GCC diagnostic pop

}  // namespace red
}  // namespace ep
