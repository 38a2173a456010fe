// Indexing routines: np.take / ndarray.take, np.put / ndarray.put,
// take_along_axis, put_along_axis, select, choose / ndarray.choose, compress /
// ndarray.compress, extract and place. Index modes ('raise', 'wrap', 'clip')
// and error messages follow NumPy; in-place routines write through views in
// C order, as NumPy does.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "../index.hpp"
#include "creation.hpp"
#include "sort.hpp"

namespace ep {
namespace pk {

enum Mode { Raise = 0, Wrap = 1, Clip = 2 };

template <int M>
inline index_t fix(index_t i, index_t n, int axis) {
  if constexpr (M == Raise) {
    const index_t j = i < 0 ? i + n : i;
    if (j < 0 || j >= n) index_error(i, axis, n);
    return j;
  } else if constexpr (M == Wrap) {
    index_t j = i % n;
    return j < 0 ? j + n : j;
  } else {
    return i < 0 ? 0 : (i >= n ? n - 1 : i);
  }
}

// l[i] as its element type (List<bool> stores Bool8)
template <class T>
inline T list_item(const List<T>& l, index_t i) {
  return static_cast<T>(l[i]);
}

// The items of an index / value operand in C order: an array, a scalar, a List or a tuple.
template <class R, class X>
std::vector<R> items(const X& x) {
  std::vector<R> v;
  if constexpr (is_array_v<X>) {
    v.reserve(static_cast<size_t>(x.size()));
    for_each_offset(x, [&](index_t off) { v.push_back(elem_cast<R>(x.data[off])); });
  } else if constexpr (is_list<X>::value) {
    for (index_t i = 0; i < x.size(); ++i) v.push_back(elem_cast<R>(list_item(x, i)));
  } else if constexpr (is_std_tuple_v<X>) {
    std::apply([&](const auto&... e) { (v.push_back(elem_cast<R>(e)), ...); }, x);
  } else {
    v.push_back(elem_cast<R>(x));
  }
  return v;
}

// Offsets of every element of a in C order (a's own memory order when contiguous).
template <class T, int N>
std::vector<index_t> c_offsets(const Array<T, N>& a) {
  std::vector<index_t> offs;
  offs.reserve(static_cast<size_t>(a.size()));
  for_each_offset(a, [&](index_t off) { offs.push_back(off); });
  return offs;
}

// A Python tuple's repr of a shape: (2,), (2, 3)
inline std::string py_shape(const std::vector<index_t>& s) {
  std::string out = "(";
  for (size_t k = 0; k < s.size(); ++k) out += (k ? ", " : "") + std::to_string(s[k]);
  return out + (s.size() == 1 ? ",)" : ")");
}

template <class X>
std::vector<index_t> shape_vec(const X& x) {
  if constexpr (is_array_v<X>) return std::vector<index_t>(x.shape.begin(), x.shape.end());
  else return {};
}

// np.broadcast's shape, with its error message (the arg that set a size, then the clash)
inline std::vector<index_t> broadcast_all(const std::vector<std::vector<index_t>>& shapes) {
  size_t nd = 0;
  for (const auto& s : shapes) nd = std::max(nd, s.size());
  std::vector<index_t> dims(nd, 1);
  for (size_t i = 0; i < nd; ++i) {
    size_t src = 0;
    for (size_t j = 0; j < shapes.size(); ++j) {
      const long k = static_cast<long>(i) + static_cast<long>(shapes[j].size()) - static_cast<long>(nd);
      if (k < 0) continue;
      const index_t d = shapes[j][static_cast<size_t>(k)];
      if (d == 1) continue;
      if (dims[i] == 1) {
        dims[i] = d;
        src = j;
      } else if (dims[i] != d) {
        raise("ValueError", "shape mismatch: objects cannot be broadcast to a single shape.  Mismatch is between arg " +
                                std::to_string(src) + " with shape " + py_shape(shapes[src]) + " and arg " +
                                std::to_string(j) + " with shape " + py_shape(shapes[j]) + ".");
      }
    }
  }
  return dims;
}

// x (an array of rank <= N, or a scalar) seen through the broadcast shape (0 strides), as R
template <class R, int N, class X>
Array<R, N> bview(const X& x, const std::array<index_t, N>& shape) {
  Array<R, N> v;
  v.shape = shape;
  if constexpr (is_array_v<X>) {
    constexpr int M = std::decay_t<X>::ndim;
    Array<R, M> c = as_dtype<R>(x);
    v.data = c.data;
    v.owner = c.owner;
    for (int k = 0; k < M; ++k) v.strides[N - M + k] = c.shape[k] == 1 ? 0 : c.strides[k];
  } else {
    Array<R, 0> c = scalar_array(elem_cast<R>(x));
    v.data = c.data;
    v.owner = c.owner;
  }
  return v;
}

template <int N>
std::array<index_t, N> to_array(const std::vector<index_t>& s) {
  std::array<index_t, N> out{};
  for (int k = 0; k < N; ++k) out[k] = s[static_cast<size_t>(k)];
  return out;
}

// f(flat output position, offsets of each view) over a shape in C order
template <int N, class R, class F>
void walk_views(const std::array<index_t, N>& shape, const std::vector<Array<R, N>>& views, F&& f) {
  index_t total = 1;
  for (int k = 0; k < N; ++k) total *= shape[k];
  std::vector<index_t> offs(views.size());
  std::array<index_t, N> idx{};
  for (index_t p = 0; p < total; ++p) {
    for (size_t v = 0; v < views.size(); ++v) {
      index_t o = 0;
      for (int k = 0; k < N; ++k) o += idx[k] * views[v].strides[k];
      offs[v] = o;
    }
    f(p, offs);
    for (int k = N - 1; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
}

}  // namespace pk

// ---- np.take ---------------------------------------------------------------------------
// Axis < 0: axis=None (the flattened array). Result rank: N - 1 + the index rank.
template <int Axis, int Mode, class T, int N, class I>
auto take(const Array<T, N>& a, const I& indices) {
  if constexpr (Axis < 0) {
    return take<0, Mode>(flat_view(a), indices);
  } else {
    constexpr int K = index_ndim<I>();
    constexpr int R = N - 1 + K;
    std::array<index_t, R> shape{};
    index_t outer = 1, inner = 1;
    for (int k = 0; k < Axis; ++k) shape[k] = a.shape[k], outer *= a.shape[k];
    if constexpr (K > 0)
      for (int k = 0; k < K; ++k) shape[Axis + k] = indices.shape[k];
    for (int k = Axis + 1; k < N; ++k) shape[k - 1 + K] = a.shape[k], inner *= a.shape[k];
    const index_t n = a.shape[Axis];
    Array<T, R> out = empty<T, R>(shape);
    if (n == 0 && out.size() != 0) raise("IndexError", "cannot do a non-empty take from an empty axes.");
    Array<T, N> keep;
    const T* src = contiguous_data(a, keep);
    T* dst = out.data;
    if constexpr (is_array_v<I>) {
      if (outer == 1 && inner == 1) {  // the common 1-d gather: one pass, no index table
        const auto iv = flat_view(indices);
        const index_t J = iv.shape[0];
        for (index_t j = 0; j < J; ++j) dst[j] = src[pk::fix<Mode>(static_cast<index_t>(iv.data[j]), n, Axis)];
        if constexpr (R == 0) return out.data[0];
        else return out;
      }
    }
    const std::vector<index_t> idx = pk::items<index_t>(indices);
    const index_t J = static_cast<index_t>(idx.size());
    std::vector<index_t> fixed(idx.size());
    for (index_t j = 0; j < J; ++j) fixed[j] = pk::fix<Mode>(idx[j], n, Axis);
    for (index_t o = 0; o < outer; ++o)
      for (index_t j = 0; j < J; ++j) {
        const T* from = src + (o * n + fixed[j]) * inner;
        if (inner == 1) *dst++ = *from;
        else dst = std::copy(from, from + inner, dst);
      }
    if constexpr (R == 0) return out.data[0];
    else return out;
  }
}

// ---- np.put / ndarray.put (in place, flat C order; values repeat) -----------------------
template <int Mode, class T, int N, class I, class V>
None put(const Array<T, N>& a, const I& indices, const V& values) {
  const std::vector<index_t> idx = pk::items<index_t>(indices);
  const std::vector<T> vals = pk::items<T>(values);
  const index_t n = a.size(), nv = static_cast<index_t>(vals.size());
  if (n == 0 && !idx.empty()) raise("IndexError", "cannot replace elements of an empty array");
  if (nv == 0) return None{};
  const bool flat = a.contiguous();
  const std::vector<index_t> offs = flat ? std::vector<index_t>{} : pk::c_offsets(a);
  for (size_t i = 0; i < idx.size(); ++i) {
    const index_t j = pk::fix<Mode>(idx[i], n, 0);
    a.data[flat ? j : offs[j]] = vals[i % nv];
  }
  return None{};
}

// ---- take_along_axis / put_along_axis -----------------------------------------------------
namespace pk {
// The result shape of a[fancy index along Axis], with NumPy's mismatch message.
template <int Axis, class T, class I, int N>
std::array<index_t, N> along_shape(const Array<T, N>& a, const Array<I, N>& idx) {
  std::array<index_t, N> shape{};
  bool ok = true;
  for (int d = 0; d < N; ++d) {
    if (d == Axis) {
      shape[d] = idx.shape[d];
    } else {
      const index_t x = a.shape[d], y = idx.shape[d];
      ok = ok && (x == y || x == 1 || y == 1);
      shape[d] = x == 1 ? y : x;
    }
  }
  if (!ok) {
    std::string s;
    for (int d = 0; d < N; ++d) {
      if (d == Axis) {
        s += shape_str(idx) + " ";
      } else {
        std::array<index_t, N> one;
        one.fill(1);
        one[d] = a.shape[d];
        s += shape_str(one.data(), N) + " ";
      }
    }
    raise("IndexError", "shape mismatch: indexing arrays could not be broadcast together with shapes " + s);
  }
  return shape;
}

// f(flat result position, offset in a) for each selected element
template <int Axis, class T, class I, int N, class F>
void along_offsets(const Array<T, N>& a, const Array<I, N>& idx, const std::array<index_t, static_cast<size_t>(N)>& shape,
                   F&& f) {
  index_t total = 1;
  for (int d = 0; d < N; ++d) total *= shape[d];
  std::array<index_t, N> p{};
  for (index_t q = 0; q < total; ++q) {
    index_t io = 0, ao = 0;
    for (int d = 0; d < N; ++d) io += (idx.shape[d] == 1 ? 0 : p[d]) * idx.strides[d];
    for (int d = 0; d < N; ++d) {
      const index_t i = d == Axis ? fix<Raise>(static_cast<index_t>(idx.data[io]), a.shape[d], d)
                                  : (a.shape[d] == 1 ? 0 : p[d]);
      ao += i * a.strides[d];
    }
    f(q, ao);
    for (int d = N - 1; d >= 0; --d) {
      if (++p[d] < shape[d]) break;
      p[d] = 0;
    }
  }
}
}  // namespace pk

template <int Axis, class T, int N, class I, int K>
auto take_along_axis(const Array<T, N>& a, const Array<I, K>& idx) {
  if constexpr (Axis < 0) {
    return take_along_axis<0>(flat_view(a), idx);
  } else {
    static_assert(K == N, "indices and arr must have the same rank");
    const std::array<index_t, N> shape = pk::along_shape<Axis>(a, idx);
    Array<T, N> out = empty<T, N>(shape);
    pk::along_offsets<Axis>(a, idx, shape, [&](index_t q, index_t off) { out.data[q] = a.data[off]; });
    return out;
  }
}

template <int Axis, class T, int N, class I, int K, class V>
None put_along_axis(const Array<T, N>& a, const Array<I, K>& idx, const V& values) {
  if constexpr (Axis < 0) {
    // NumPy assigns through arr.flat, which only writes back into C-contiguous arrays
    if (!a.contiguous()) raise("ValueError", "assignment destination is read-only");
    Array<T, 1> flat = flat_view(a);
    return put_along_axis<0>(flat, idx, values);
  } else {
    static_assert(K == N, "indices and arr must have the same rank");
    const std::array<index_t, N> shape = pk::along_shape<Axis>(a, idx);
    if constexpr (is_array_v<V>) {
      constexpr int M = std::decay_t<V>::ndim;
      bool ok = M <= N;
      for (int k = 0; k < M && ok; ++k) {
        const index_t d = values.shape[M - 1 - k];
        ok = d == 1 || d == shape[N - 1 - k];
      }
      if (!ok)
        raise("ValueError", "shape mismatch: value array of shape " + shape_str(values) +
                                " could not be broadcast to indexing result of shape " + shape_str(shape.data(), N));
    }
    const Array<T, N> vals = pk::bview<T, N>(values, shape);
    std::vector<index_t> targets;
    pk::along_offsets<Axis>(a, idx, shape, [&](index_t, index_t off) { targets.push_back(off); });
    index_t q = 0;  // values are read before any write (as NumPy's fancy assignment)
    std::vector<T> v(targets.size());
    for_each_offset(vals, [&](index_t off) { v[q++] = vals.data[off]; });
    for (size_t i = 0; i < targets.size(); ++i) a.data[targets[i]] = v[i];
    return None{};
  }
}

// ---- np.select ---------------------------------------------------------------------------
namespace pk {
template <class R, class X>
void push_items(std::vector<std::vector<index_t>>& shapes, const X& seq) {
  (void)sizeof(R);
  if constexpr (is_std_tuple_v<X>) {
    std::apply([&](const auto&... e) { (shapes.push_back(shape_vec(e)), ...); }, seq);
  } else {
    for (index_t i = 0; i < seq.size(); ++i) shapes.push_back(shape_vec(list_item(seq, i)));
  }
}

template <class R, int N, class X>
void push_views(std::vector<Array<R, N>>& out, const X& seq, const std::array<index_t, N>& shape) {
  if constexpr (is_std_tuple_v<X>) {
    std::apply([&](const auto&... e) { (out.push_back(bview<R, N>(e, shape)), ...); }, seq);
  } else {
    for (index_t i = 0; i < seq.size(); ++i)
      out.push_back(bview<R, N>(list_item(seq, i), shape));
  }
}

template <class X>
index_t seq_len(const X& seq) {
  if constexpr (is_std_tuple_v<X>) return static_cast<index_t>(std::tuple_size_v<X>);
  else return seq.size();
}
}  // namespace pk

template <class R, int N, class CL, class CH, class D>
Array<R, N> select(const CL& conds, const CH& choices, const D& dflt) {
  const index_t k = pk::seq_len(conds);
  if (k != pk::seq_len(choices)) raise("ValueError", "list of cases must be same length as list of conditions");
  if (k == 0) raise("ValueError", "select with an empty condition list is not possible");
  std::vector<std::vector<index_t>> cs, vs;
  pk::push_items<bool>(cs, conds);
  pk::push_items<R>(vs, choices);
  vs.push_back(pk::shape_vec(dflt));
  const std::vector<index_t> sc = pk::broadcast_all(cs), sv = pk::broadcast_all(vs);
  const std::vector<index_t> shape_v = sv.empty() ? sc : pk::broadcast_all({sc, sv});
  const std::array<index_t, N> shape = pk::to_array<N>(shape_v);
  std::vector<Array<bool, N>> cv;
  std::vector<Array<R, N>> xv;
  pk::push_views<bool, N>(cv, conds, shape);
  pk::push_views<R, N>(xv, choices, shape);
  xv.push_back(pk::bview<R, N>(dflt, shape));
  std::vector<Array<R, N>> all = xv;  // walk conditions and choices together (as R: bools stay 0/1)
  for (auto& c : cv) {
    Array<R, N> as;
    as.shape = c.shape, as.strides = c.strides;
    all.push_back(as);
  }
  Array<R, N> out = empty<R, N>(shape);
  pk::walk_views<N>(shape, all, [&](index_t p, const std::vector<index_t>& offs) {
    R r = xv[k].data[offs[k]];
    for (index_t i = 0; i < k; ++i)
      if (cv[i].data[offs[k + 1 + i]]) {
        r = xv[i].data[offs[i]];
        break;
      }
    out.data[p] = r;
  });
  return out;
}

// ---- np.choose -----------------------------------------------------------------------------
template <class R, int N, int Mode, class T, int M, class CH>
auto choose(const Array<T, M>& a, const CH& choices) {
  std::vector<std::vector<index_t>> shapes;
  index_t k;
  if constexpr (is_array_v<CH>) {
    k = choices.shape[0];
    std::vector<index_t> s(choices.shape.begin() + 1, choices.shape.end());
    for (index_t i = 0; i < k; ++i) shapes.push_back(s);
  } else {
    k = pk::seq_len(choices);
    pk::push_items<R>(shapes, choices);
  }
  if (k == 0) raise("ValueError", "0-length sequence.");
  shapes.push_back(pk::shape_vec(a));
  const std::array<index_t, N> shape = pk::to_array<N>(pk::broadcast_all(shapes));
  std::vector<Array<R, N>> views;
  if constexpr (is_array_v<CH>) {
    for (index_t i = 0; i < k; ++i) {
      Array<typename CH::value_type, CH::ndim - 1> sub;
      sub.data = choices.data + i * choices.strides[0];
      sub.owner = choices.owner;
      for (int d = 1; d < CH::ndim; ++d) sub.shape[d - 1] = choices.shape[d], sub.strides[d - 1] = choices.strides[d];
      views.push_back(pk::bview<R, N>(sub, shape));
    }
  } else {
    pk::push_views<R, N>(views, choices, shape);
  }
  const Array<T, N> av = pk::bview<T, N>(a, shape);
  Array<R, N> out = empty<R, N>(shape);
  std::vector<Array<R, N>> all = views;
  Array<R, N> ah;
  ah.shape = av.shape, ah.strides = av.strides;
  all.push_back(ah);
  pk::walk_views<N>(shape, all, [&](index_t p, const std::vector<index_t>& offs) {
    index_t i = static_cast<index_t>(av.data[offs[k]]);
    if constexpr (Mode == pk::Raise) {
      if (i < 0 || i >= k) raise("ValueError", "invalid entry in choice array");
    } else {
      i = pk::fix<Mode>(i, k, 0);
    }
    out.data[p] = views[i].data[offs[i]];
  });
  if constexpr (N == 0) return out.data[0];
  else return out;
}

// ---- compress / extract / place ----------------------------------------------------------
template <int Axis, class T, int N, class C>
auto compress(const C& condition, const Array<T, N>& a) {
  if constexpr (Axis < 0) {
    return compress<0>(condition, flat_view(a));
  } else {
    const std::vector<bool> cond = [&] {
      std::vector<bool> v;
      for (auto x : pk::items<bool>(condition)) v.push_back(x);
      return v;
    }();
    std::vector<index_t> sel;
    for (size_t i = 0; i < cond.size(); ++i)
      if (cond[i]) sel.push_back(static_cast<index_t>(i));
    Array<int64_t, 1> idx = empty<int64_t, 1>({static_cast<index_t>(sel.size())});
    std::copy(sel.begin(), sel.end(), idx.data);
    return take<Axis, pk::Raise>(a, idx);
  }
}

template <class C, int K, class T, int N>
Array<T, 1> extract(const Array<C, K>& condition, const Array<T, N>& a) {
  return compress<0>(flat_view(condition), flat_view(a));
}

template <class T, int N, class M, int K, class V>
None place(const Array<T, N>& a, const Array<M, K>& mask, const V& values) {
  if (mask.size() != a.size()) raise("ValueError", "place: mask and data must be the same size");
  const std::vector<T> vals = pk::items<T>(values);
  const index_t nv = static_cast<index_t>(vals.size());
  const std::vector<bool> m = [&] {
    std::vector<bool> v;
    for (auto x : pk::items<bool>(mask)) v.push_back(x);
    return v;
  }();
  const std::vector<index_t> offs = pk::c_offsets(a);
  index_t j = 0;
  for (size_t i = 0; i < offs.size(); ++i) {
    if (!m[i]) continue;
    if (nv == 0) raise("ValueError", "Cannot insert from an empty array!");
    a.data[offs[i]] = vals[j % nv];
    ++j;
  }
  return None{};
}

}  // namespace ep
