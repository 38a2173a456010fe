// argmax / argmin of real rows in one pass (np.argmax, np.argmin, torch.argmax, torch.argmin).
//
// NumPy's answer is the first position of the extreme, or the first NaN's position when there is a
// NaN (its loop compares with `>` / `<` and stops at a NaN). One pass keeps that exact:
//   - the row is cut into 8 KiB blocks; a block's extreme is folded with four independent vectors of
//     the target's width as accumulators (x > m ? x : m is one vmaxps/vpmaxs*: no index bookkeeping per element);
//   - a block changes the answer only when its extreme is strictly better than the running one (a
//     broadcast compare, no horizontal reduce), so the first block that holds the final extreme wins;
//     then the first position equal to it is found in that block while it is still in L1;
//   - NaN: an unordered compare ORed into a mask per block; a block with a NaN scans for its first NaN
//     and ends the row (earlier blocks had none). Integers skip the mask.
// -0.0 == 0.0, so "the first equal position" is NumPy's first of either sign, as `>` never prefers one.
// Strided rows (x[::2], x[::-1]) are copied a block at a time into a contiguous buffer (no gathers):
// measured faster than a scalar loop with four accumulators (docs/benchmarks.md, "np.argmax").
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../array.hpp"

namespace ep {
namespace red {

// the element types the vector kernel takes: every real arithmetic type but bool
// The vector width is the target's own: gcc lowers a generic vector wider than the machine's
// registers lane by lane, with a branch per lane for `?:` (measured: 64-byte vectors on AVX2 ran
// 35x slower than numpy's argmax, 32-byte ones at its speed). Compares of 1-byte lanes at 64 bytes
// need AVX-512BW, at 32 bytes AVX2; everything else (SSE2, NEON, wasm simd128) has 16.
#if defined(__AVX512BW__)
inline constexpr int kArgVecBytes = 64;
#elif defined(__AVX2__)
inline constexpr int kArgVecBytes = 32;
#else
inline constexpr int kArgVecBytes = 16;
#endif

template <class T>
inline constexpr bool argreduce_lanes_v = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

// The running answer of a row (or of many rows in C order): the best value, its position, and whether
// it is a NaN (then nothing can replace it).
template <class T>
struct ArgBest {
  T value{};
  index_t at = -1;  // -1: nothing seen yet
  bool nan = false;
};

template <bool IsMax, class T>
inline bool strictly_better(T x, T best) {
  return IsMax ? x > best : x < best;
}

// the first NaN of p[0..n) (n when none)
template <class T>
index_t first_nan(const T* p, index_t n) {
  for (index_t i = 0; i < n; ++i)
    if (p[i] != p[i]) return i;
  return n;
}

// whether any lane of a comparison mask is set: its bytes ORed as 8-byte words (one vptest, where a
// loop over the lanes stays a loop for 32 or 64 int8 lanes)
template <class M>
inline bool any_lane(const M& mask) {
  constexpr int W = sizeof(M) / 8;
  uint64_t w[W];
  std::memcpy(w, &mask, sizeof(M));
  uint64_t o = 0;
  for (int j = 0; j < W; ++j) o |= w[j];
  return o != 0;
}

// the first set lane of a comparison mask of T lanes (-1 when none): its 8-byte words in order, the
// lowest set byte of the first nonzero one
template <class T, class M>
inline int first_lane(const M& mask) {
  constexpr int W = sizeof(M) / 8;
  uint64_t w[W];
  std::memcpy(w, &mask, sizeof(M));
  for (int j = 0; j < W; ++j)
    if (w[j] != 0) return (j * 8 + std::countr_zero(w[j]) / 8) / static_cast<int>(sizeof(T));
  return -1;
}

// the extreme of the lanes of a vector: halves folded together (32, 16, 8 bytes...), log2(L)
// dependent steps instead of L
template <bool IsMax, class T, int Bytes, class V>
inline T fold_lanes(const V& v) {
  if constexpr (Bytes == static_cast<int>(sizeof(T))) {
    T x;
    std::memcpy(&x, &v, sizeof(T));
    return x;
  } else {
    typedef T H __attribute__((vector_size(Bytes / 2)));
    H lo, hi;
    std::memcpy(&lo, &v, sizeof(H));
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(H), sizeof(H));
    const H m = IsMax ? (hi > lo ? hi : lo) : (hi < lo ? hi : lo);
    return fold_lanes<IsMax, T, Bytes / 2>(m);
  }
}

// the first i with p[i] == m in p[0..n) (n when none): four vector compares per step, one test
template <class T>
index_t first_equal(const T* p, index_t n, T m) {
  constexpr int L = kArgVecBytes / sizeof(T);
  typedef T V __attribute__((vector_size(kArgVecBytes)));
  const V mv = V{} + m;
  index_t i = 0;
  for (; i + 4 * L <= n; i += 4 * L) {
    V x0, x1, x2, x3;
    std::memcpy(&x0, p + i, sizeof(V));
    std::memcpy(&x1, p + i + L, sizeof(V));
    std::memcpy(&x2, p + i + 2 * L, sizeof(V));
    std::memcpy(&x3, p + i + 3 * L, sizeof(V));
    if (any_lane((x0 == mv) | (x1 == mv) | (x2 == mv) | (x3 == mv))) {
      // the lane from the compare masks, not a scalar walk of up to 4L elements
      const V xs[4] = {x0, x1, x2, x3};
      for (int k = 0; k < 4; ++k) {
        const int lane = first_lane<T>(xs[k] == mv);
        if (lane >= 0) return i + k * L + lane;
      }
    }
  }
  for (; i < n; ++i)
    if (p[i] == m) return i;
  return n;
}

// ---- 4- and 8-byte elements: a running extreme and its index per lane ----
// Lane indices have the element's width (int32 for float32: the vector compare's mask selects them
// too), so a block stays below 2^31 elements.
template <class T>
inline constexpr bool lane_index_v = sizeof(T) == 4 || sizeof(T) == 8;
template <class T>
using lane_index_t = std::conditional_t<sizeof(T) == 4, int32_t, int64_t>;

// the better of two (value, index) lanes into (m, j): strictly better, or equal at a smaller index
// (lanes and accumulators interleave positions, so a tie goes to the first position)
template <bool IsMax, class V, class VI>
inline void pick(V& m, VI& j, const V& m2, const VI& j2) {
  const auto t = (IsMax ? m2 > m : m2 < m) | ((m2 == m) & (j2 < j));
  m = t ? m2 : m;
  j = t ? j2 : j;
}

// (value, index) lanes folded by halves to one pair: log2(L) branch-free steps
template <bool IsMax, class T, class I, int Bytes, class V, class VI>
inline void fold_pairs(const V& m, const VI& j, T& bv, I& bj) {
  if constexpr (Bytes == static_cast<int>(sizeof(T))) {
    std::memcpy(&bv, &m, sizeof(T));
    std::memcpy(&bj, &j, sizeof(I));
  } else {
    typedef T H __attribute__((vector_size(Bytes / 2)));
    typedef I HI __attribute__((vector_size(Bytes / 2)));
    H lo, hi;
    HI jl, jh;
    std::memcpy(&lo, &m, sizeof(H));
    std::memcpy(&hi, reinterpret_cast<const char*>(&m) + sizeof(H), sizeof(H));
    std::memcpy(&jl, &j, sizeof(HI));
    std::memcpy(&jh, reinterpret_cast<const char*>(&j) + sizeof(HI), sizeof(HI));
    pick<IsMax>(lo, jl, hi, jh);
    fold_pairs<IsMax, T, I, Bytes / 2>(lo, jl, bv, bj);
  }
}

// p[0..i) of a block (n >= 4L) reduced to its first extreme (m, at), i a multiple of 4L; nan: a NaN
// was among them (m, at are then meaningless)
template <bool IsMax, class T>
void head_indexed(const T* p, index_t n, index_t& i, T& m, index_t& at, bool& nan) {
  using I = lane_index_t<T>;
  constexpr int L = kArgVecBytes / sizeof(T);
  typedef T V __attribute__((vector_size(kArgVecBytes)));
  typedef I VI __attribute__((vector_size(kArgVecBytes)));
  VI j0;
  for (int k = 0; k < L; ++k) j0[k] = static_cast<I>(k);
  VI j1 = j0 + L, j2 = j0 + 2 * L, j3 = j0 + 3 * L, c = j0 + 4 * L;
  V m0, m1, m2, m3;
  std::memcpy(&m0, p, sizeof(V));
  std::memcpy(&m1, p + L, sizeof(V));
  std::memcpy(&m2, p + 2 * L, sizeof(V));
  std::memcpy(&m3, p + 3 * L, sizeof(V));
  auto u = (m0 != m0) | (m1 != m1) | (m2 != m2) | (m3 != m3);  // lanes that met a NaN
  for (i = 4 * L; i + 4 * L <= n; i += 4 * L) {
    V x0, x1, x2, x3;
    std::memcpy(&x0, p + i, sizeof(V));
    std::memcpy(&x1, p + i + L, sizeof(V));
    std::memcpy(&x2, p + i + 2 * L, sizeof(V));
    std::memcpy(&x3, p + i + 3 * L, sizeof(V));
    const auto b0 = IsMax ? x0 > m0 : x0 < m0, b1 = IsMax ? x1 > m1 : x1 < m1;
    const auto b2 = IsMax ? x2 > m2 : x2 < m2, b3 = IsMax ? x3 > m3 : x3 < m3;
    m0 = b0 ? x0 : m0;
    m1 = b1 ? x1 : m1;
    m2 = b2 ? x2 : m2;
    m3 = b3 ? x3 : m3;
    j0 = b0 ? c : j0;
    j1 = b1 ? c + L : j1;
    j2 = b2 ? c + 2 * L : j2;
    j3 = b3 ? c + 3 * L : j3;
    c += 4 * L;
    if constexpr (std::is_floating_point_v<T>) u = u | (x0 != x0) | (x1 != x1) | (x2 != x2) | (x3 != x3);
  }
  nan = std::is_floating_point_v<T> && any_lane(u);
  pick<IsMax>(m0, j0, m1, j1);
  pick<IsMax>(m2, j2, m3, j3);
  pick<IsMax>(m0, j0, m2, j2);
  I bj;
  fold_pairs<IsMax, T, I, kArgVecBytes>(m0, j0, m, bj);
  at = bj;
}

// ---- 1- and 2-byte elements: the block's extreme, then its first position ----
// p[0..i) of a block (n >= 4L) reduced to its extreme m; when it cannot beat the running answer,
// m is the running value and at = -1 (nothing to locate); else at = -2 (locate after the tail).
template <bool IsMax, class T>
void head_rescan(const T* p, index_t n, const ArgBest<T>& best, index_t& i, T& m, index_t& at, bool& nan) {
  constexpr int L = kArgVecBytes / sizeof(T);
  typedef T V __attribute__((vector_size(kArgVecBytes)));
  V m0, m1, m2, m3;
  std::memcpy(&m0, p, sizeof(V));
  std::memcpy(&m1, p + L, sizeof(V));
  std::memcpy(&m2, p + 2 * L, sizeof(V));
  std::memcpy(&m3, p + 3 * L, sizeof(V));
  for (i = 4 * L; i + 4 * L <= n; i += 4 * L) {
    V x0, x1, x2, x3;
    std::memcpy(&x0, p + i, sizeof(V));
    std::memcpy(&x1, p + i + L, sizeof(V));
    std::memcpy(&x2, p + i + 2 * L, sizeof(V));
    std::memcpy(&x3, p + i + 3 * L, sizeof(V));
    m0 = IsMax ? (x0 > m0 ? x0 : m0) : (x0 < m0 ? x0 : m0);
    m1 = IsMax ? (x1 > m1 ? x1 : m1) : (x1 < m1 ? x1 : m1);
    m2 = IsMax ? (x2 > m2 ? x2 : m2) : (x2 < m2 ? x2 : m2);
    m3 = IsMax ? (x3 > m3 ? x3 : m3) : (x3 < m3 ? x3 : m3);
  }
  m0 = IsMax ? (m1 > m0 ? m1 : m0) : (m1 < m0 ? m1 : m0);
  m2 = IsMax ? (m3 > m2 ? m3 : m2) : (m3 < m2 ? m3 : m2);
  m0 = IsMax ? (m2 > m0 ? m2 : m0) : (m2 < m0 ? m2 : m0);
  nan = false;  // integers (no float has 1 or 2 bytes here: float16 takes the scalar loop)
  // a broadcast compare before the horizontal fold: most blocks do not beat the running answer
  const bool beats = best.at < 0 || any_lane(IsMax ? (m0 > (V{} + best.value)) : (m0 < (V{} + best.value)));
  m = beats ? fold_lanes<IsMax, T, kArgVecBytes>(m0) : best.value;
  at = beats ? -2 : -1;
}

// One contiguous block (n >= 1, below 2^31 elements) folded into the running answer; base: the flat
// index of p[0]. Returns false once a NaN is the answer.
template <bool IsMax, class T>
bool arg_block(const T* p, index_t n, index_t base, ArgBest<T>& best) {
  constexpr int L = kArgVecBytes / sizeof(T);
  T m = p[0];
  index_t i = 0, at = 0;
  bool nan = false;
  if (n >= 4 * L) {
    if constexpr (lane_index_v<T>) head_indexed<IsMax>(p, n, i, m, at, nan);
    else head_rescan<IsMax>(p, n, best, i, m, at, nan);
  }
  if (nan) {
    const index_t j = first_nan(p, n);
    best = {p[j], base + j, true};
    return false;
  }
  // the rest (fewer than 4 vectors), scalar
  for (index_t j = i; j < n; ++j) {
    const T x = p[j];
    if constexpr (std::is_floating_point_v<T>)
      if (x != x) {  // the head had no NaN, so this is the block's first
        best = {x, base + j, true};
        return false;
      }
    if (strictly_better<IsMax>(x, m)) {
      m = x;
      at = j;
    }
  }
  if (at == -1) return true;  // head_rescan: neither the head nor the tail beat the running answer
  if (best.at < 0 || strictly_better<IsMax>(m, best.value))
    best = {m, base + (at == -2 ? first_equal(p, n, m) : at), false};
  return true;
}

inline constexpr index_t kArgBlockBytes = 8192;  // a block and its rescan stay in L1

// A row p[0], p[s], ... of n elements (base: the flat index of p[0]) folded into the running answer,
// in order. Returns false once a NaN is the answer.
template <bool IsMax, class T>
bool arg_feed(const T* p, index_t n, index_t s, index_t base, ArgBest<T>& best) {
  constexpr index_t B = kArgBlockBytes / static_cast<index_t>(sizeof(T));
  if (s == 1) {
    // lane indices need no rescan, so blocks only bound the int32 indices; the others rescan in L1
    constexpr index_t C = lane_index_v<T> ? index_t(1) << 20 : B;
    for (index_t lo = 0; lo < n; lo += C)
      if (!arg_block<IsMax>(p + lo, std::min(C, n - lo), base + lo, best)) return false;
    return true;
  }
  alignas(64) T buf[B];
  for (index_t lo = 0; lo < n; lo += B) {
    const index_t len = std::min(B, n - lo);
    const T* q = p + lo * s;
    for (index_t i = 0; i < len; ++i) buf[i] = q[i * s];  // a constant s == 2 copy measured no faster
    if (!arg_block<IsMax>(buf, len, base + lo, best)) return false;
  }
  return true;
}

// the first extreme (or first NaN) of a row of n >= 1 elements, as NumPy's argmax / argmin
template <bool IsMax, class T>
index_t arg_row_lanes(const T* p, index_t n, index_t s) {
  ArgBest<T> best;
  arg_feed<IsMax>(p, n, s, 0, best);
  return best.at;
}

// Every element of a view whose last axis is its fastest in memory, in C order: one row of the last
// axis after the other, each through the block kernel, combined with strict `>` / `<` (the first row
// that holds the extreme wins; the first NaN ends the walk). Rows are whole-view flat positions.
template <bool IsMax, class T, int N>
int64_t arg_all_rows(const Array<T, N>& a) {
  const index_t n = a.shape[N - 1], s = a.strides[N - 1];
  Array<T, N - 1> outer;
  outer.data = a.data;
  for (int k = 0; k < N - 1; ++k) {
    outer.shape[k] = a.shape[k];
    outer.strides[k] = a.strides[k];
  }
  ArgBest<T> best;
  index_t row = 0;
  bool go = true;
  for_each_offset(outer, [&](index_t off) {
    if (go) go = arg_feed<IsMax>(a.data + off, n, s, row * n, best);
    ++row;
  });
  return best.at;
}

// whether the C-order walk by rows of the last axis reads memory in order (its stride is the smallest)
template <class T, int N>
bool last_axis_fastest(const Array<T, N>& a) {
  auto mag = [](index_t v) { return v < 0 ? -v : v; };
  for (int k = 0; k < N - 1; ++k)
    if (a.shape[k] > 1 && mag(a.strides[k]) < mag(a.strides[N - 1])) return false;
  return true;
}

}  // namespace red
}  // namespace ep
