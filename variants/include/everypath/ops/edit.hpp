// Editing along an axis: np.insert (one index), np.delete (an index, a slice,
// an index array or a boolean mask), np.trim_zeros (a view), and the element
// methods ndarray.fill and ndarray.item. np.append lowers to shape.hpp's
// concatenate.
#pragma once

#include <string>
#include <vector>

#include "../array.hpp"
#include "../index.hpp"
#include "arrange.hpp"
#include "creation.hpp"

namespace ep {

namespace man {
// A new array with only the items along axis whose keep flag is set (C order).
template <class T, int N>
Array<T, N> keep_along(const Array<T, N>& a_in, const std::vector<char>& keep, int axis) {
  const auto [outer, len, inner] = around<N>(a_in.shape, axis);
  index_t kept = 0;
  for (char k : keep) kept += k ? 1 : 0;
  std::array<index_t, N> shape = a_in.shape;
  shape[axis] = kept;
  Array<T, N> out = empty<T, N>(shape);
  const Array<T, N> a = contiguous(a_in);
  T* dst = out.data;
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < len; ++i)
      if (keep[static_cast<size_t>(i)]) {
        const T* src = a.data + (o * len + i) * inner;
        dst = std::copy(src, src + inner, dst);
      }
  return out;
}
}  // namespace man

// ---- delete ---------------------------------------------------------------------
template <class T, int N>
Array<T, N> delete_index(const Array<T, N>& a, index_t i, int axis) {
  const index_t n = a.shape[axis];
  if (i < -n || i >= n)
    raise("IndexError", "index " + std::to_string(i) + " is out of bounds for axis " + std::to_string(axis) +
                            " with size " + std::to_string(n));
  std::vector<char> keep(static_cast<size_t>(n), 1);
  keep[static_cast<size_t>(i < 0 ? i + n : i)] = 0;
  return man::keep_along(a, keep, axis);
}

template <class T, int N>
Array<T, N> delete_slice(const Array<T, N>& a, const Slice& s, int axis) {
  const index_t n = a.shape[axis];
  index_t start;
  const index_t len = adjust(s, n, start);
  std::vector<char> keep(static_cast<size_t>(n), 1);
  for (index_t j = 0; j < len; ++j) keep[static_cast<size_t>(start + j * s.step)] = 0;
  return man::keep_along(a, keep, axis);
}

// obj: integer indices (tuple, List or integer array of any rank; negative ones wrap)
template <class T, int N, class S>
Array<T, N> delete_indices(const Array<T, N>& a, const S& obj, int axis) {
  const index_t n = a.shape[axis];
  const std::vector<index_t> idx = man::int_seq(obj);
  if (idx.size() == 1) return delete_index(a, idx[0], axis);  // NumPy's single-value path (its message)
  std::vector<char> keep(static_cast<size_t>(n), 1);
  for (index_t i : idx) keep[static_cast<size_t>(wrap_checked(i, n, 0))] = 0;
  return man::keep_along(a, keep, axis);
}

// obj: a boolean mask of the axis (NumPy 1.19+ semantics)
template <class T, int N, int K>
Array<T, N> delete_mask(const Array<T, N>& a, const Array<bool, K>& mask, int axis) {
  const index_t n = a.shape[axis];
  if (K != 1 || mask.shape[0] != n)
    raise("ValueError", "boolean array argument obj to delete must be one dimensional and match the axis length of " +
                            std::to_string(n));
  std::vector<char> keep;
  for_each_offset(mask, [&](index_t off) { keep.push_back(mask.data[off] ? 0 : 1); });
  return man::keep_along(a, keep, axis);
}

// ---- insert ---------------------------------------------------------------------
// np.insert(arr, index, values, axis) with one integer index: values (rank K <= N,
// already of arr's dtype) get leading ones, their first axis moves to `axis`, and
// they are broadcast into the new slot, as NumPy does.
template <class T, int N, int K>
Array<T, N> insert_at(const Array<T, N>& arr, index_t index, const Array<T, K>& v, int axis) {
  static_assert(K <= N && N >= 1);
  const index_t n = arr.shape[axis];
  if (index < -n || index > n)
    raise("IndexError", "index " + std::to_string(index) + " is out of bounds for axis " + std::to_string(axis) +
                            " with size " + std::to_string(n));
  if (index < 0) index += n;
  std::array<index_t, N> ps{}, pst{}, vs{}, vst{};  // padded, then moved shape / strides of the values
  for (int k = 0; k < N; ++k) {
    const int j = k - (N - K);
    ps[k] = j < 0 ? 1 : v.shape[j];
    pst[k] = j < 0 ? 0 : v.strides[j];
  }
  for (int k = 0; k < N; ++k) {
    const int from = k < axis ? k + 1 : (k == axis ? 0 : k);
    vs[k] = ps[from];
    vst[k] = pst[from];
  }
  const index_t numnew = vs[axis];
  std::array<index_t, N> slot = arr.shape;
  slot[axis] = numnew;
  for (int k = 0; k < N; ++k) {
    if (vs[k] == slot[k]) continue;
    if (vs[k] != 1)
      raise("ValueError", "could not broadcast input array from shape " + shape_str(vs.data(), N) + " into shape " +
                              shape_str(slot.data(), N));
    vst[k] = 0;
  }
  std::array<index_t, N> shape = arr.shape;
  shape[axis] += numnew;
  Array<T, N> out = empty<T, N>(shape);
  if (out.size() == 0) return out;
  std::array<index_t, N> idx{};
  for (T* dst = out.data;; ++dst) {
    const index_t i = idx[axis];
    index_t off = 0;
    if (i >= index && i < index + numnew) {
      for (int k = 0; k < N; ++k) off += (k == axis ? i - index : idx[k]) * vst[k];
      *dst = v.data[off];
    } else {
      for (int k = 0; k < N; ++k) off += (k == axis ? (i < index ? i : i - numnew) : idx[k]) * arr.strides[k];
      *dst = arr.data[off];
    }
    int k = N - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
    if (k < 0) break;
  }
  return out;
}

// ---- trim_zeros -----------------------------------------------------------------
// The bounding box of the non-zero elements on the axes in Mask (a view);
// Front / Back: whether the leading / trailing zeros are trimmed.
template <uint32_t Mask, bool Front, bool Back, class T, int N>
Array<T, N> trim_zeros(const Array<T, N>& a) {
  std::array<index_t, N> lo, hi;  // first and last index holding a non-zero, per axis
  lo.fill(-1);
  hi.fill(-1);
  bool any = false;
  if (a.size() > 0) {
    std::array<index_t, N> idx{};
    while (true) {
      index_t off = 0;
      for (int k = 0; k < N; ++k) off += idx[k] * a.strides[k];
      if (a.data[off] != T(0)) {
        for (int k = 0; k < N; ++k) {
          if (!any || idx[k] < lo[k]) lo[k] = idx[k];
          if (!any || idx[k] > hi[k]) hi[k] = idx[k];
        }
        any = true;
      }
      int k = N - 1;
      for (; k >= 0; --k) {
        if (++idx[k] < a.shape[k]) break;
        idx[k] = 0;
      }
      if (k < 0) break;
    }
  }
  Array<T, N> out = a;
  index_t off = 0;
  for (int k = 0; k < N; ++k) {
    if (!((Mask >> k) & 1u)) continue;
    const index_t start = !any ? 0 : (Front ? lo[k] : 0);
    const index_t stop = !any ? 0 : (Back ? hi[k] + 1 : a.shape[k]);
    out.shape[k] = stop - start;
    if (stop > start) off += start * a.strides[k];
  }
  out.data = a.data + off;
  return out;
}

// ---- ndarray.fill / ndarray.item --------------------------------------------------
template <class T, int N, class V>
None fill_with(const Array<T, N>& a, const V& value) {
  const T v = elem_cast<T>(value);
  if (a.contiguous()) std::fill(a.data, a.data + a.size(), v);
  else for_each_offset(a, [&](index_t off) { a.data[off] = v; });
  return None{};
}

// the element as the Python scalar R (bool, int, float or complex)
template <class R, class T, int N>
R item_of(const Array<T, N>& a) {
  if (a.size() != 1) raise("ValueError", "can only convert an array of size 1 to a Python scalar");
  return elem_cast<R>(a.data[0]);
}

// a.item(i): the i-th element in C order
template <class R, class T, int N>
R item_flat(const Array<T, N>& a, index_t i) {
  const index_t n = a.size();
  if (i < -n || i >= n) {
    if constexpr (N == 1) index_error(i, 0, n);
    raise("IndexError", "index " + std::to_string(i) + " is out of bounds for size " + std::to_string(n));
  }
  if (i < 0) i += n;
  index_t off = 0;
  for (int k = N - 1; k >= 0; --k) {
    off += (i % a.shape[k]) * a.strides[k];
    i /= a.shape[k];
  }
  return elem_cast<R>(a.data[off]);
}

// a.tolist(): one list level per axis of Python scalars R, in index order (a 0-d array: the scalar itself)
template <class R, class T, int N>
auto tolist_of(const Array<T, N>& a) {
  if constexpr (N == 0) {
    return elem_cast<R>(a.data[0]);
  } else if constexpr (N == 1) {
    List<R> out;
    out.items->reserve(static_cast<size_t>(a.shape[0]));
    for (index_t i = 0; i < a.shape[0]; ++i) out.append(elem_cast<R>(a.data[i * a.strides[0]]));
    return out;
  } else {
    Array<T, N - 1> row;  // a[i]: the array without its first axis, moved along it
    for (int k = 1; k < N; ++k) row.shape[k - 1] = a.shape[k], row.strides[k - 1] = a.strides[k];
    row.owner = a.owner;
    List<decltype(tolist_of<R>(row))> out;
    out.items->reserve(static_cast<size_t>(a.shape[0]));
    for (index_t i = 0; i < a.shape[0]; ++i) {
      row.data = a.data + i * a.strides[0];
      out.append(tolist_of<R>(row));
    }
    return out;
  }
}

// a.item(i, j, ...): one index per axis
template <class R, class T, int N, class... I>
R item_at(const Array<T, N>& a, I... idx) {
  static_assert(sizeof...(I) == N && N >= 1, "one index per axis");
  const index_t raw[] = {static_cast<index_t>(idx)...};
  index_t off = 0;
  for (int k = 0; k < N; ++k) off += wrap_checked(raw[k], a.shape[k], k) * a.strides[k];
  return elem_cast<R>(a.data[off]);
}

}  // namespace ep
