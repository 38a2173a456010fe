// NumPy indexing: elements (negative indices wrap), basic slicing (views),
// np.newaxis, boolean masks and integer arrays (copies), and assignment
// through each of them. Integer indices are bounds-checked (IndexError with
// NumPy's message) unless EP_UNCHECKED is defined (@compile(boundscheck=False)):
// then out-of-range is undefined, as in C. lowering/bounds.py proves most loop
// indices in range at compile time; those use get_inbounds (no check at all).
#pragma once

#include <cstdint>
#include <string>

#include "array.hpp"
#include "map.hpp"

namespace ep {

// The slow path of every check: out of line and cold, so a checked loop keeps a small body.
[[noreturn, gnu::noinline, gnu::cold]] inline void index_error(index_t i, int axis, index_t n) {
  raise("IndexError", "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                          " with size " + std::to_string(n));
}

#ifdef EP_UNCHECKED
inline constexpr bool kBoundscheck = false;
#else
inline constexpr bool kBoundscheck = true;
#endif

// One unsigned compare: j < 0 becomes a huge value, so it fails the same test as j >= n.
// `i` is the index as written (NumPy reports it, not the wrapped one).
inline void check_index(index_t j, index_t i, index_t n, int axis) {
  if constexpr (kBoundscheck) {
    if (static_cast<uint64_t>(j) >= static_cast<uint64_t>(n)) [[unlikely]] index_error(i, axis, n);
  } else {
    (void)j, (void)i, (void)n, (void)axis;
  }
}

inline index_t wrap(index_t i, index_t n, int axis) {
  index_t j = i < 0 ? i + n : i;
  check_index(j, i, n, axis);
  return j;
}

// Always checked: used where NumPy semantics are cheap to keep (gathers).
inline index_t wrap_checked(index_t i, index_t n, int axis) {
  index_t j = i < 0 ? i + n : i;
  if (static_cast<uint64_t>(j) >= static_cast<uint64_t>(n)) [[unlikely]] index_error(i, axis, n);
  return j;
}

template <class T, int N, class... I>
inline T& get(const Array<T, N>& a, I... idx) {
  static_assert(sizeof...(I) == N, "element access needs one index per axis");
  index_t off = 0;
  int k = 0;
  ((off += wrap(static_cast<index_t>(idx), a.shape[k], k) * a.strides[k], ++k), ...);
  return a.data[off];
}

// Element access where every index is proven non-negative (lowering/bounds.py): no wrap, one
// compare per axis whose bit in Proven is clear (bit k set: axis k proven < shape[k]).
template <unsigned Proven = 0, class T, int N, class... I>
inline T& get_nonneg(const Array<T, N>& a, I... idx) {
  static_assert(sizeof...(I) == N, "element access needs one index per axis");
  index_t off = 0;
  int k = 0;
  ((((Proven >> k) & 1u) ? void() : check_index(static_cast<index_t>(idx), static_cast<index_t>(idx), a.shape[k], k),
    off += static_cast<index_t>(idx) * a.strides[k], ++k), ...);
  return a.data[off];
}

// Element access where the axes whose bit in Below is set are proven < shape but may be negative
// (`out[j]` with j <= n - 2 by induction): wrap, then only the sign is checked there (a test g++
// drops where a dominating `j >= 0` already decided it); other axes wrap and check fully.
template <unsigned Below, class T, int N, class... I>
inline T& get_below(const Array<T, N>& a, I... idx) {
  static_assert(sizeof...(I) == N, "element access needs one index per axis");
  index_t off = 0;
  int k = 0;
  auto one = [&](index_t i) {
    if ((Below >> k) & 1u) {
      const index_t j = i < 0 ? i + a.shape[k] : i;
      if constexpr (kBoundscheck) {
        if (j < 0) [[unlikely]] index_error(i, k, a.shape[k]);
      }
      return j;
    }
    return wrap(i, a.shape[k], k);
  };
  ((off += one(static_cast<index_t>(idx)) * a.strides[k], ++k), ...);
  return a.data[off];
}

// Every index proven in [0, shape): no check at all.
template <class T, int N, class... I>
inline T& get_inbounds(const Array<T, N>& a, I... idx) {
  return get_nonneg<~0u>(a, idx...);
}

// get_nonneg inside a loop the generated code entered only after checking that the
// array's last stride is 1: a constant unit stride lets g++ vectorise stencil loops.
template <unsigned Proven = 0, class T, int N, class... I>
inline T& get_unit(const Array<T, N>& a, I... idx) {
  static_assert(sizeof...(I) == N, "element access needs one index per axis");
  index_t off = 0;
  int k = 0;
  ((((Proven >> k) & 1u) ? void() : check_index(static_cast<index_t>(idx), static_cast<index_t>(idx), a.shape[k], k),
    off += static_cast<index_t>(idx) * (k == N - 1 ? index_t(1) : a.strides[k]), ++k), ...);
  return a.data[off];
}

template <class T, int N, class... I>
inline T& get_unit_inbounds(const Array<T, N>& a, I... idx) {
  return get_unit<~0u>(a, idx...);
}

// list / tuple-like element access with Python's wrap and IndexError
template <class T>
inline list_slot_t<T>& list_get(const List<T>& l, index_t i) {
  index_t n = l.size();
  index_t j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) raise("IndexError", "list index out of range");
  return l[j];
}

// a, b = some_list: CPython checks the length before binding any name.
template <class T>
inline list_slot_t<T>& list_unpack(const List<T>& l, index_t i, index_t count) {
  const index_t n = l.size();
  if (n < count) {
    raise("ValueError", "not enough values to unpack (expected " + std::to_string(count) + ", got " +
                            std::to_string(n) + ")");
  }
  if (n > count) raise("ValueError", "too many values to unpack (expected " + std::to_string(count) + ")");
  return l[i];
}

struct Slice {
  index_t start, stop, step;
  bool has_start, has_stop;
};

inline index_t opt_index(None, bool& has) { has = false; return 0; }
template <class I>
inline index_t opt_index(I v, bool& has) { has = true; return static_cast<index_t>(v); }

template <class A, class B, class C>
inline Slice make_slice(A start, B stop, C step) {
  Slice s{};
  s.start = opt_index(start, s.has_start);
  s.stop = opt_index(stop, s.has_stop);
  bool has_step;
  s.step = opt_index(step, has_step);
  if (!has_step) s.step = 1;
  if (s.step == 0) raise("ValueError", "slice step cannot be zero");
  return s;
}

// PySlice_AdjustIndices: normalised start and length of a slice over n items.
inline index_t adjust(const Slice& s, index_t n, index_t& start) {
  index_t st = s.step, b, e;
  if (st > 0) {
    b = s.has_start ? s.start : 0;
    e = s.has_stop ? s.stop : n;
    if (b < 0) b = std::max<index_t>(b + n, 0);
    if (b > n) b = n;
    if (e < 0) e = std::max<index_t>(e + n, 0);
    if (e > n) e = n;
    start = b;
    return e > b ? (e - b + st - 1) / st : 0;
  }
  b = s.has_start ? s.start : n - 1;
  e = s.has_stop ? s.stop : -1;
  if (s.has_start) {
    if (b < 0) b = std::max<index_t>(b + n, -1);
    if (b >= n) b = n - 1;
  }
  if (s.has_stop) {
    if (e < 0) e = std::max<index_t>(e + n, -1);
    if (e >= n) e = n - 1;
  }
  start = b;
  return b > e ? (b - e - st - 1) / (-st) : 0;
}

// l[start:stop:step] of a list: a new list (a copy, as in Python)
template <class T>
inline List<T> list_slice(const List<T>& l, const Slice& s) {
  index_t start = 0;
  const index_t len = adjust(s, l.size(), start);
  List<T> out;
  out.items->reserve(static_cast<size_t>(len));
  for (index_t k = 0; k < len; ++k) out.items->push_back(l[start + k * s.step]);
  return out;
}

// ---- basic indexing: a view --------------------------------------------------
struct Ellipsis {};  // `...`: the axes the other items do not take, kept whole (a[..., 0], a[..., ::2])

template <class I> struct index_rank_delta;  // how many result axes an index item makes
template <> struct index_rank_delta<Slice> { static constexpr int out = 1, in = 1; };
template <> struct index_rank_delta<None> { static constexpr int out = 1, in = 0; };
template <> struct index_rank_delta<Ellipsis> { static constexpr int out = 0, in = 0; };  // whole axes: in == out
template <class I> struct index_rank_delta { static constexpr int out = 0, in = 1; };  // integers

template <class... I>
inline constexpr int view_rank(int n) {
  return n - (index_rank_delta<I>::in + ... + 0) + (index_rank_delta<I>::out + ... + 0);
}

template <int M, class T, int N>
struct ViewBuilder {
  const Array<T, N>& a;
  Array<T, M> out;
  int spread = 0;  // how many axes an Ellipsis stands for: those no other item takes
  int in = 0, o = 0;
  index_t off = 0;
  void item(Ellipsis) {
    for (int k = 0; k < spread; ++k, ++in, ++o) {
      out.shape[o] = a.shape[in];
      out.strides[o] = a.strides[in];
    }
  }
  void item(Slice s) {
    index_t start;
    index_t len = adjust(s, a.shape[in], start);
    if (len > 0) off += start * a.strides[in];  // an empty view keeps a pointer inside its base
    out.shape[o] = len;
    out.strides[o] = a.strides[in] * s.step;
    ++in, ++o;
  }
  void item(None) {
    out.shape[o] = 1;
    out.strides[o] = 0;
    ++o;
  }
  template <class I>
  void item(I i) {
    off += wrap(static_cast<index_t>(i), a.shape[in], in) * a.strides[in];
    ++in;
  }
};

template <class T, int N, class... I>
auto view(const Array<T, N>& a, I... items) {
  constexpr int M = view_rank<I...>(N);
  ViewBuilder<M, T, N> b{a, {}, N - (index_rank_delta<I>::in + ... + 0)};
  (b.item(items), ...);
  for (; b.in < N; ++b.in, ++b.o) {  // trailing axes are kept whole
    b.out.shape[b.o] = a.shape[b.in];
    b.out.strides[b.o] = a.strides[b.in];
  }
  b.out.data = a.data + b.off;
  b.out.owner = a.owner;
  return b.out;
}

// ---- boolean masks (copies) -------------------------------------------------
// Visit the positions of true bytes in order, skipping all-false 8-byte blocks at once
// (masks are often sparse: NumPy does the same).
template <class F>
inline void for_each_true(const bool* m, index_t n, F&& f) {
  index_t q = 0;
  for (; q + 8 <= n; q += 8) {
    uint64_t block;
    std::memcpy(&block, m + q, 8);
    if (!block) continue;
    for (index_t r = q; r < q + 8; ++r)
      if (m[r]) f(r);
  }
  for (; q < n; ++q)
    if (m[q]) f(q);
}

// o[j++] = a[q] for each true m[q] (n mask bytes, count of them true). All-true
// 8-byte blocks copy straight through, all-false ones are skipped, and mixed ones
// use a branch-free store-then-advance while 8 more slots are free: dense random
// masks would otherwise mispredict on every few elements.
template <class T>
inline void compress(T* __restrict o, const T* __restrict a, const bool* __restrict m, index_t n, index_t count) {
  constexpr uint64_t kAll = 0x0101010101010101ULL;
  index_t j = 0, q = 0;
  for (; q + 8 <= n; q += 8) {
    uint64_t block;
    std::memcpy(&block, m + q, 8);
    if (!block) continue;
    if (block == kAll) {
      for (int r = 0; r < 8; ++r) o[j + r] = a[q + r];
      j += 8;
    } else if (j + 8 <= count) {
      for (int r = 0; r < 8; ++r) {
        o[j] = a[q + r];
        j += m[q + r];
      }
    } else {
      for (int r = 0; r < 8; ++r)
        if (m[q + r]) o[j++] = a[q + r];
    }
  }
  for (; q < n; ++q)
    if (m[q]) o[j++] = a[q];
}

inline index_t count_true(const bool* m, index_t n) {
  index_t c = 0;
  for (index_t q = 0; q < n; ++q) c += m[q];  // vectorised byte sum
  return c;
}

// a boolean index must match the leading axes of the array it indexes (NumPy's IndexError)
template <class T, int N, int K>
inline void check_mask_shape(const Array<T, N>& a, const Array<bool, K>& m) {
  for (int k = 0; k < K; ++k)
    if (m.shape[k] != a.shape[k])
      raise("IndexError", "boolean index did not match indexed array along axis " + std::to_string(k) +
                              "; size of axis is " + std::to_string(a.shape[k]) +
                              " but size of corresponding boolean axis is " + std::to_string(m.shape[k]));
}

template <class T, int N, int K>
Array<T, N - K + 1> mask(const Array<T, N>& a, const Array<bool, K>& m) {
  check_mask_shape(a, m);
  index_t count = 0;
  if (m.contiguous()) count = count_true(m.data, m.size());
  else for_each_offset(m, [&](index_t off) { count += m.data[off] ? 1 : 0; });
  std::array<index_t, N - K + 1> shape{};
  shape[0] = count;
  index_t inner = 1;
  for (int k = K; k < N; ++k) {
    shape[k - K + 1] = a.shape[k];
    inner *= a.shape[k];
  }
  Array<T, N - K + 1> out = empty<T, N - K + 1>(shape);
  if (a.contiguous() && m.contiguous()) {  // the common case: one pass, no offset tables
    const index_t nm = m.size();
    T* __restrict o = out.data;
    if (inner == 1) {
      compress(o, a.data, m.data, nm, count);
    } else {
      index_t j = 0;
      for (index_t q = 0; q < nm; ++q)
        if (m.data[q]) {
          std::copy(a.data + q * inner, a.data + (q + 1) * inner, o + j);
          j += inner;
        }
    }
    return out;
  }
  // general strides: walk the mask and the first K axes of a together
  Array<T, K> lead;
  lead.data = a.data;
  for (int k = 0; k < K; ++k) lead.shape[k] = a.shape[k], lead.strides[k] = a.strides[k];
  Array<T, N - K> rest;
  for (int k = K; k < N; ++k) rest.shape[k - K] = a.shape[k], rest.strides[k - K] = a.strides[k];
  index_t j = 0;
  std::vector<index_t> lead_offs, mask_offs;
  for_each_offset(lead, [&](index_t off) { lead_offs.push_back(off); });
  for_each_offset(m, [&](index_t off) { mask_offs.push_back(off); });
  for (size_t q = 0; q < mask_offs.size(); ++q) {
    if (!m.data[mask_offs[q]]) continue;
    rest.data = a.data + lead_offs[q];
    for_each_offset(rest, [&](index_t off) { out.data[j++] = rest.data[off]; });
  }
  (void)inner;
  return out;
}

template <class T, int N, int K, class V>
void mask_assign(const Array<T, N>& a, const Array<bool, K>& m, const V& value) {
  static_assert(K == N, "masked assignment needs a mask of the array's full rank");
  check_mask_shape(a, m);
  if constexpr (!is_array_v<V>) {
    if (a.contiguous() && m.contiguous()) {  // common case: a select per element, vectorisable
      const T v = static_cast<T>(value);
      const index_t n = a.size();
      for (index_t q = 0; q < n; ++q) a.data[q] = m.data[q] ? v : a.data[q];
      return;
    }
  } else {
    if (a.contiguous() && m.contiguous()) {  // a[mask] = values, in order
      const index_t n = a.size();
      const index_t count = count_true(m.data, n);
      Array<typename V::value_type, V::ndim> keep;
      const auto* v = contiguous_data(value, keep);
      const index_t nv = value.size();
      if (nv != count && nv != 1)
        raise("ValueError", "NumPy boolean array indexing assignment cannot assign " + std::to_string(nv) +
                                " input values to the " + std::to_string(count) + " output values where the mask is true");
      index_t j = 0;
      for_each_true(m.data, n, [&](index_t q) { a.data[q] = static_cast<T>(v[nv == 1 ? 0 : j++]); });
      return;
    }
  }
  std::vector<index_t> a_offs, m_offs;
  for_each_offset(a, [&](index_t off) { a_offs.push_back(off); });
  for_each_offset(m, [&](index_t off) { m_offs.push_back(off); });
  if constexpr (is_array_v<V>) {
    index_t count = 0;
    for (auto off : m_offs) count += m.data[off] ? 1 : 0;
    auto v = copy(value);
    index_t n = v.size();
    if (n != count && n != 1)
      raise("ValueError", "NumPy boolean array indexing assignment cannot assign " + std::to_string(n) +
                              " input values to the " + std::to_string(count) + " output values where the mask is true");
    index_t j = 0;
    for (size_t q = 0; q < m_offs.size(); ++q)
      if (m.data[m_offs[q]]) a.data[a_offs[q]] = static_cast<T>(v.data[n == 1 ? 0 : j++]);
  } else {
    for (size_t q = 0; q < m_offs.size(); ++q)
      if (m.data[m_offs[q]]) a.data[a_offs[q]] = static_cast<T>(value);
  }
}

// ---- a[m] = f(a[m], scalars...) in place (lowering/masked_update.py) -----------
// Self stands for the selected element itself among f's operands.
struct Self {};

template <class T, class L>
inline decltype(auto) self_or(const L& leaf, const T& self) {
  if constexpr (std::is_same_v<L, Self>) return self;
  else return (leaf);
}

template <class T, int N, class F, class... L>
void mask_update(const Array<T, N>& a, const Array<bool, N>& m, F f, const L&... leaves) {
  check_mask_shape(a, m);
  if (a.contiguous() && m.contiguous()) {
    // 64-byte mask blocks: all-false ones are skipped (sparse masks cost a scan of
    // the mask), others get a branch-free select over the block (f is element-wise
    // and pure, so evaluating it on unselected elements is harmless and vectorises)
    const index_t n = a.size();
    T* __restrict p = a.data;
    const bool* __restrict q = m.data;
    constexpr index_t B = 64;
    index_t i = 0;
    for (; i + B <= n; i += B) {
      uint64_t any = 0;
      for (index_t k = 0; k < B; k += 8) {
        uint64_t w;
        std::memcpy(&w, q + i + k, 8);
        any |= w;
      }
      if (!any) continue;
#pragma GCC ivdep
      for (index_t k = i; k < i + B; ++k) {
        const T x = p[k];
        const T y = static_cast<T>(f(self_or(leaves, x)...));
        p[k] = q[k] ? y : x;
      }
    }
    for (; i < n; ++i)
      if (q[i]) p[i] = static_cast<T>(f(self_or(leaves, p[i])...));
    return;
  }
  std::vector<index_t> a_offs, m_offs;
  for_each_offset(a, [&](index_t off) { a_offs.push_back(off); });
  for_each_offset(m, [&](index_t off) { m_offs.push_back(off); });
  for (size_t i = 0; i < m_offs.size(); ++i)
    if (m.data[m_offs[i]]) {
      T& x = a.data[a_offs[i]];
      x = static_cast<T>(f(self_or(leaves, x)...));
    }
}

// ---- integer-array indexing along one axis (copies) --------------------------
// Shape of a[..., idx, ...] with idx on axis P: idx's axes replace axis P.
template <int P, class T, int N, class I, int K>
std::array<index_t, N - 1 + K> take_shape(const Array<T, N>& a, const Array<I, K>& idx) {
  std::array<index_t, N - 1 + K> shape{};
  for (int k = 0; k < P; ++k) shape[k] = a.shape[k];
  for (int k = 0; k < K; ++k) shape[P + k] = idx.shape[k];
  for (int k = P + 1; k < N; ++k) shape[k - 1 + K] = a.shape[k];
  return shape;
}

// f(flat position in the selection, element offset in a) for every selected element.
template <int P, class T, int N, class I, int K, class F>
void axis_offsets(const Array<T, N>& a, const Array<I, K>& idx, const std::array<index_t, N - 1 + K>& shape, F&& f) {
  constexpr int R = N - 1 + K;
  index_t total = 1;
  for (int k = 0; k < R; ++k) total *= shape[k];
  std::array<index_t, R> pos{};
  for (index_t flat = 0; flat < total; ++flat) {
    index_t rem = flat;
    for (int k = R - 1; k >= 0; --k) {
      pos[k] = shape[k] ? rem % shape[k] : 0;
      rem = shape[k] ? rem / shape[k] : 0;
    }
    index_t ioff = 0;
    for (int k = 0; k < K; ++k) ioff += pos[P + k] * idx.strides[k];
    index_t off = 0;
    for (int k = 0; k < P; ++k) off += pos[k] * a.strides[k];
    off += wrap_checked(static_cast<index_t>(idx.data[ioff]), a.shape[P], P) * a.strides[P];
    for (int k = P + 1; k < N; ++k) off += pos[k - 1 + K] * a.strides[k];
    f(flat, off);
  }
}
template <int P, class T, int N, class I, int K>
Array<T, N - 1 + K> take_axis(const Array<T, N>& a, const Array<I, K>& idx) {
  constexpr int R = N - 1 + K;
  const std::array<index_t, R> shape = take_shape<P>(a, idx);
  Array<T, R> out = empty<T, R>(shape);
  if constexpr (N == 1 && K == 1) {  // the common a[idx]: one pass, no unravelling
    const index_t n = idx.shape[0], len = a.shape[0];
    for (index_t j = 0; j < n; ++j)
      out.data[j] = a.data[wrap_checked(static_cast<index_t>(idx.data[j * idx.strides[0]]), len, 0) * a.strides[0]];
    return out;
  }
  // out[before..., j..., after...] = a[before..., idx[j...], after...]
  axis_offsets<P>(a, idx, shape, [&](index_t flat, index_t src) { out.data[flat] = a.data[src]; });
  return out;
}

template <int P, class T, int N, class I, int K, class V>
void put_axis(const Array<T, N>& a, const Array<I, K>& idx, const V& value) {
  constexpr int R = N - 1 + K;
  const std::array<index_t, R> shape = take_shape<P>(a, idx);
  if constexpr (N == 1 && K == 1) {  // the common a[idx] = v
    const index_t n = idx.shape[0], len = a.shape[0];
    if constexpr (is_array_v<V>) {
      if (value.shape[0] == n || value.shape[0] == 1) {
        Array<typename V::value_type, V::ndim> keep;
        const auto* v = contiguous_data(value, keep);
        const index_t step = value.shape[0] == 1 ? 0 : 1;
        for (index_t j = 0; j < n; ++j)
          a.data[wrap_checked(static_cast<index_t>(idx.data[j * idx.strides[0]]), len, 0) * a.strides[0]] =
              static_cast<T>(v[j * step]);
        return;
      }
    } else {
      const T v = static_cast<T>(value);
      for (index_t j = 0; j < n; ++j)
        a.data[wrap_checked(static_cast<index_t>(idx.data[j * idx.strides[0]]), len, 0) * a.strides[0]] = v;
      return;
    }
  }
  // broadcast the value to the selection's shape first (as NumPy does)
  Array<T, R> vals = empty<T, R>(shape);
  map_into(vals, [](auto v) { return v; }, value);
  axis_offsets<P>(a, idx, shape, [&](index_t flat, index_t dst) { a.data[dst] = vals.data[flat]; });
}

// a[...] = value through a view (value: scalar or broadcastable array)
template <class T, int N, class V>
void assign(const Array<T, N>& dst, const V& value) {
  map_into(dst, [](auto v) { return v; }, value);
}

}  // namespace ep

namespace ep {

// ---- several integer index arrays / integers on the leading axes (gather) ----
template <class I>
inline constexpr int index_ndim() {
  if constexpr (is_array_v<I>) return std::decay_t<I>::ndim;
  else return 0;
}

// Offsets of a[i0[p], i1[p], ...] for every position p of the broadcast index shape.
template <int K, class T, int N, class... I>
std::pair<std::array<index_t, K>, std::vector<index_t>> gather_offsets(const Array<T, N>& a, const I&... idx) {
  auto shape = broadcast_shape<K>(idx...);
  std::vector<index_t> offs;
  index_t total = 1;
  for (int k = 0; k < K; ++k) total *= shape[k];
  offs.reserve(static_cast<size_t>(total));
  std::array<index_t, K> dummy{};
  auto tup = std::tie(idx...);
  walk<K>(shape, dummy, [&](index_t, const auto& o) {
    index_t off = 0;
    std::apply([&](const auto&... ix) {
      int axis = 0;
      size_t j = 0;
      ((off += wrap_checked(static_cast<index_t>(off_get(ix, o[j++])), a.shape[axis], axis) * a.strides[axis], ++axis), ...);
    }, tup);
    offs.push_back(off);
  }, idx...);
  return {shape, offs};
}

// Where a[i0, i1, ...] (M index arrays broadcast to rank K) reads: the selection's shape,
// the offset of each index position, and the trailing axes copied whole at each.
template <int K, int M, class T, int N>
struct GatherLayout {
  std::array<index_t, K + N - M> shape{};
  std::vector<index_t> offs;
  Array<T, N - M> rest;
};

template <class T, int N, class... I>
auto gather_layout(const Array<T, N>& a, const I&... idx) {
  constexpr int K = std::max({index_ndim<I>()...});
  constexpr int M = sizeof...(I);
  GatherLayout<K, M, T, N> g;
  auto [bshape, offs] = gather_offsets<K>(a, idx...);
  g.offs = std::move(offs);
  for (int k = 0; k < K; ++k) g.shape[k] = bshape[k];
  for (int k = M; k < N; ++k)
    g.shape[K + k - M] = a.shape[k], g.rest.shape[k - M] = a.shape[k], g.rest.strides[k - M] = a.strides[k];
  return g;
}

template <class T, int N, class... I>
auto gather(const Array<T, N>& a, const I&... idx) {
  auto [shape, offs, rest] = gather_layout(a, idx...);
  constexpr int R = std::tuple_size_v<decltype(shape)>;
  Array<T, R> out = empty<T, R>(shape);
  index_t j = 0;
  for (index_t base : offs) {
    rest.data = a.data + base;
    for_each_offset(rest, [&](index_t off) { out.data[j++] = rest.data[off]; });
  }
  return out;
}

template <class T, int N, class V, class... I>
void scatter(const Array<T, N>& a, const V& value, const I&... idx) {
  auto [shape, offs, rest] = gather_layout(a, idx...);
  constexpr int R = std::tuple_size_v<decltype(shape)>;
  Array<T, R> vals = empty<T, R>(shape);  // broadcast the value first, as NumPy does
  map_into(vals, [](auto v) { return v; }, value);
  index_t j = 0;
  for (index_t base : offs) {  // later positions win on repeated indices, as in NumPy
    rest.data = a.data + base;
    for_each_offset(rest, [&](index_t off) { rest.data[off] = vals.data[j++]; });
  }
}

}  // namespace ep
