// Rearranging elements: np.tile, repeat, roll, rot90, broadcast_to, resize,
// plus the small helpers the other manipulation headers share (integer
// sequences given as an int, a tuple, a List or an array; index walking).
// fliplr/flipud/moveaxis/swapaxes/atleast_Nd lower to shape.hpp's views.
#pragma once

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"
#include "shape.hpp"

namespace ep {
namespace man {

// The integers of a sequence argument: an integer, a tuple of integers, a List
// or a 0-/1-d integer array (NumPy accepts any of them for sections, repeats, ...).
template <class S>
std::vector<index_t> int_seq(const S& s) {
  std::vector<index_t> v;
  if constexpr (std::is_arithmetic_v<S>) {
    v.push_back(static_cast<index_t>(s));
  } else if constexpr (is_std_tuple_v<S>) {
    std::apply([&](const auto&... x) { (v.push_back(static_cast<index_t>(x)), ...); }, s);
  } else if constexpr (is_list<S>::value) {
    for (index_t i = 0; i < s.size(); ++i) v.push_back(static_cast<index_t>(s[i]));
  } else if constexpr (is_array_v<S>) {
    for_each_offset(s, [&](index_t off) { v.push_back(static_cast<index_t>(s.data[off])); });
  } else {
    static_assert(sizeof(S) == 0, "expected integers");
  }
  return v;
}

// Item I of a sequence of integers of a known length (an integer stands for every item).
template <size_t I, class S>
inline index_t seq_at(const S& s) {
  if constexpr (std::is_arithmetic_v<S>) return static_cast<index_t>(s);
  else if constexpr (is_std_tuple_v<S>) return static_cast<index_t>(std::get<I>(s));
  else return static_cast<index_t>(s[static_cast<index_t>(I)]);
}

// Python's a % n for n > 0.
inline index_t pymod(index_t a, index_t n) {
  index_t r = a % n;
  return r < 0 ? r + n : r;
}

// f(idx) for every index of shape with the last axis held at 0 (one call per
// row); nothing when the shape is empty. N >= 1.
template <int N, class F>
void for_each_row(const std::array<index_t, N>& shape, F&& f) {
  for (int k = 0; k < N; ++k)
    if (shape[k] == 0) return;
  std::array<index_t, N> idx{};
  while (true) {
    f(static_cast<const std::array<index_t, N>&>(idx));
    int k = N - 2;
    for (; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

// a as one contiguous block (a copy only when a is strided).
template <class T, int N>
Array<T, N> contiguous(const Array<T, N>& a) {
  return a.contiguous() ? a : copy(a);
}

// (outer, length, inner) extents of a C-ordered shape around one axis.
template <int N>
std::array<index_t, 3> around(const std::array<index_t, N>& shape, int axis) {
  index_t outer = 1, inner = 1;
  for (int k = 0; k < axis; ++k) outer *= shape[k];
  for (int k = axis + 1; k < N; ++k) inner *= shape[k];
  return {outer, shape[axis], inner};
}

}  // namespace man

// ---- tile ---------------------------------------------------------------------
// D = max(a.ndim, len(reps)), K = len(reps).
template <int D, int K, class T, int N, class R>
Array<T, D> tile(const Array<T, N>& a, const R& reps_in) {
  static_assert(D >= N && D >= K);
  const std::array<index_t, K> reps = to_shape<K>(reps_in);
  std::array<index_t, D> ash{}, ast{}, rep{}, out{};
  for (int k = 0; k < D; ++k) {
    const int j = k - (D - N), r = k - (D - K);
    ash[k] = j < 0 ? 1 : a.shape[j];
    ast[k] = j < 0 ? 0 : a.strides[j];
    rep[k] = r < 0 ? 1 : reps[r];
    out[k] = ash[k] * rep[k];
  }
  if (a.size() == 0) {  // NumPy only reshapes an empty array: negative counts fail as reshape does
    Array<T, D> e = empty<T, D>(shp::fix_unknown<D>(out, 0));
    return e;
  }
  Array<T, D> res = empty<T, D>(out);
  if constexpr (D == 0) {
    res.data[0] = a.data[0];
  } else {
    T* dst = res.data;
    man::for_each_row<D>(out, [&](const std::array<index_t, D>& idx) {
      index_t base = 0;
      for (int k = 0; k < D - 1; ++k) base += (idx[k] % ash[k]) * ast[k];
      const index_t n = ash[D - 1], st = ast[D - 1];
      for (index_t r = 0; r < rep[D - 1]; ++r)
        for (index_t j = 0; j < n; ++j) *dst++ = a.data[base + j * st];
    });
  }
  return res;
}

// ---- repeat -------------------------------------------------------------------
namespace man {
// One count per item along an axis of length n (a single count applies to all).
template <class R>
std::vector<index_t> repeat_counts(const R& reps, index_t n) {
  std::vector<index_t> c = int_seq(reps);
  if (c.size() == 1) {
    if (c[0] < 0) raise("ValueError", "negative dimensions are not allowed");
    return std::vector<index_t>(static_cast<size_t>(n), c[0]);
  }
  if (static_cast<index_t>(c.size()) != n)
    raise("ValueError", "operands could not be broadcast together with shape (" + std::to_string(n) + ",) (" +
                            std::to_string(c.size()) + ",)");
  for (index_t x : c)
    if (x < 0) raise("ValueError", "repeats may not contain negative values.");
  return c;
}
}  // namespace man

template <class T, int N, class R>
Array<T, N> repeat(const Array<T, N>& a_in, const R& reps, int axis) {
  const auto [outer, len, inner] = man::around<N>(a_in.shape, axis);
  const std::vector<index_t> c = man::repeat_counts(reps, len);
  index_t total = 0;
  for (index_t x : c) total += x;
  std::array<index_t, N> shape = a_in.shape;
  shape[axis] = total;
  Array<T, N> out = empty<T, N>(shape);
  const Array<T, N> a = man::contiguous(a_in);
  T* dst = out.data;
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < len; ++i) {
      const T* src = a.data + (o * len + i) * inner;
      for (index_t r = 0; r < c[static_cast<size_t>(i)]; ++r, dst += inner) std::copy(src, src + inner, dst);
    }
  return out;
}

// axis=None: the flattened array
template <class T, int N, class R>
Array<T, 1> repeat_flat(const Array<T, N>& a, const R& reps) {
  return repeat<T, 1>(ravel(a), reps, 0);
}

// ---- roll ---------------------------------------------------------------------
// shifts: the total shift of every axis
template <class T, int N, size_t K>
Array<T, N> roll(const Array<T, N>& a, std::array<index_t, K> shifts) {
  static_assert(K == N, "one shift per axis");
  Array<T, N> out = empty<T, N>(a.shape);
  if constexpr (N == 0) {
    out.data[0] = a.data[0];
  } else {
    for (int k = 0; k < N; ++k) shifts[k] = a.shape[k] ? man::pymod(shifts[k], a.shape[k]) : 0;
    T* dst = out.data;
    const index_t n = a.shape[N - 1], st = a.strides[N - 1], s = shifts[N - 1];
    man::for_each_row<N>(a.shape, [&](const std::array<index_t, N>& idx) {
      index_t base = 0;  // source row of this output row: index - shift (mod n) on every axis
      for (int k = 0; k < N - 1; ++k) {
        index_t i = idx[k] - shifts[k];
        base += (i < 0 ? i + a.shape[k] : i) * a.strides[k];
      }
      for (index_t j = 0; j < s; ++j) *dst++ = a.data[base + (n - s + j) * st];
      for (index_t j = 0; j < n - s; ++j) *dst++ = a.data[base + j * st];
    });
  }
  return out;
}

// axis=None: roll the flattened array, keep the shape
template <class T, int N>
Array<T, N> roll_flat(const Array<T, N>& a, index_t shift) {
  Array<T, 1> r = roll(ravel(a), std::array<index_t, 1>{shift});
  Array<T, N> out;
  out.data = r.data;
  out.owner = r.owner;
  out.shape = a.shape;
  out.strides = c_strides<N>(a.shape);
  return out;
}

// ---- rot90 --------------------------------------------------------------------
// A view, as NumPy's flip/transpose composition (A0, A1: the normalised axes).
template <int A0, int A1, class T, int N>
Array<T, N> rot90(const Array<T, N>& m, int64_t k) {
  k = man::pymod(k, 4);
  auto swap = [](Array<T, N> x) {
    std::swap(x.shape[A0], x.shape[A1]);
    std::swap(x.strides[A0], x.strides[A1]);
    return x;
  };
  if (k == 0) return m;
  if (k == 2) return flip<(1u << A0) | (1u << A1)>(m);
  if (k == 1) return swap(flip<(1u << A1)>(m));
  return flip<(1u << A1)>(swap(m));
}

// ---- broadcast_to -------------------------------------------------------------
// A view with zero strides on the broadcast axes (NumPy's is read-only).
template <int M, class T, int N, class S>
Array<T, M> broadcast_to(const Array<T, N>& a, const S& shape_in) {
  static_assert(M >= N);
  const std::array<index_t, M> shape = to_shape<M>(shape_in);
  for (int k = 0; k < M; ++k)
    if (shape[k] < 0) raise("ValueError", "all elements of broadcast shape must be non-negative");
  for (int k = 0; k < M; ++k)  // the one way to make so long an axis: refused, as at the call (entry.hpp)
    if (shape[k] > (index_t(1) << 62))
      raise("ValueError", "an array axis of more than 2**62 elements is not supported (everypath bounds lengths by "
                          "2**62 to prove int arithmetic on them cannot overflow)");
  Array<T, M> out;
  out.data = a.data;
  out.owner = a.owner;
  out.shape = shape;
  for (int k = 0; k < M; ++k) {
    const int j = k - (M - N);
    if (j < 0 || a.shape[j] == 1) {
      out.strides[k] = 0;
    } else if (a.shape[j] == shape[k]) {
      out.strides[k] = a.strides[j];
    } else {
      raise("ValueError", "operands could not be broadcast together with remapped shapes [original->remapped]: " +
                              shape_str(a) + "  and requested shape " + shape_str(shape.data(), M));
    }
  }
  return out;
}

// ---- resize -------------------------------------------------------------------
// np.resize: the flattened values repeated cyclically into the new shape.
template <int M, class T, int N, class S>
Array<T, M> resize(const Array<T, N>& a, const S& shape_in) {
  const std::array<index_t, M> shape = to_shape<M>(shape_in);
  index_t n = 1;
  for (int k = 0; k < M; ++k) {
    n *= shape[k];
    if (shape[k] < 0) raise("ValueError", "all elements of `new_shape` must be non-negative");
  }
  if (a.size() == 0 || n == 0) return full<T, M>(shape, T(0));
  Array<T, M> out = empty<T, M>(shape);
  const Array<T, 1> flat = ravel(a);
  const index_t m = flat.size();
  for (index_t i = 0; i < n; i += m) std::copy(flat.data, flat.data + std::min(m, n - i), out.data + i);
  return out;
}

}  // namespace ep
