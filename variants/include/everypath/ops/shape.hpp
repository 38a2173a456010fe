// Shape manipulation: reshape (a view whenever NumPy makes one), transpose,
// ravel/flatten, expand_dims, squeeze, flip, concatenate/stack/vstack/hstack,
// and the array attributes (.shape, .T, .real, .imag).
#pragma once

#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"

namespace ep {
namespace shp {

// NumPy's convert_shape_to_string: negative (unknown) dims print as "newaxis"
// and leading ones are left out.
template <int N>
std::string shape_text(const std::array<index_t, N>& v) {
  int i = 0;
  while (i < N && v[i] < 0) ++i;
  if (i == N) return "()";
  std::string s = "(" + std::to_string(v[i]);
  for (++i; i < N; ++i) s += v[i] < 0 ? std::string(",newaxis") : "," + std::to_string(v[i]);
  if (N == 1) s += ",";
  return s + ")";
}

// _fix_unknown_dimension
template <int M>
std::array<index_t, M> fix_unknown(std::array<index_t, M> shape, index_t size) {
  const std::array<index_t, M> given = shape;
  index_t known = 1;
  int unknown = -1;
  for (int k = 0; k < M; ++k) {
    if (shape[k] < 0) {
      if (unknown >= 0) raise("ValueError", "can only specify one unknown dimension");
      unknown = k;
    } else {
      known *= shape[k];
    }
  }
  if (unknown >= 0) {
    if (known == 0 || size % known != 0)
      raise("ValueError", "cannot reshape array of size " + std::to_string(size) + " into shape " + shape_text<M>(given));
    shape[unknown] = size / known;
  } else if (known != size) {
    raise("ValueError", "cannot reshape array of size " + std::to_string(size) + " into shape " + shape_text<M>(given));
  }
  return shape;
}

// NumPy's _attempt_nocopy_reshape (C order): strides for the new shape, or false
template <int N, int M>
bool nocopy_strides(const std::array<index_t, N>& oshape_in, const std::array<index_t, N>& ostr_in,
                    const std::array<index_t, M>& nshape, std::array<index_t, M>& nstr) {
  index_t olddims[N > 0 ? N : 1], oldstrides[N > 0 ? N : 1];
  int oldnd = 0;
  for (int k = 0; k < N; ++k)
    if (oshape_in[k] != 1) {
      olddims[oldnd] = oshape_in[k];
      oldstrides[oldnd] = ostr_in[k];
      ++oldnd;
    }
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < M && oi < oldnd) {
    index_t np_ = nshape[ni], op = olddims[oi];
    while (np_ != op) {
      if (np_ < op) np_ *= nshape[nj++];
      else op *= olddims[oj++];
    }
    for (int ok = oi; ok < oj - 1; ++ok)
      if (oldstrides[ok] != olddims[ok + 1] * oldstrides[ok + 1]) return false;
    nstr[nj - 1] = oldstrides[oj - 1];
    for (int nk = nj - 1; nk > ni; --nk) nstr[nk - 1] = nstr[nk] * nshape[nk];
    ni = nj++;
    oi = oj++;
  }
  // trailing ones
  index_t last = ni > 0 ? nstr[ni - 1] : 1;
  for (int nk = ni; nk < M; ++nk) nstr[nk] = last;
  return true;
}

}  // namespace shp

template <int M, class T, int N, class S>
Array<T, M> reshape(const Array<T, N>& a, const S& shape_in) {
  std::array<index_t, M> shape = shp::fix_unknown<M>(to_shape<M>(shape_in), a.size());
  Array<T, M> out;
  out.shape = shape;
  if (a.size() == 0 || a.contiguous()) {
    out.data = a.data;
    out.owner = a.owner;
    out.strides = c_strides<M>(shape);
    return out;
  }
  std::array<index_t, M> st{};
  if (shp::nocopy_strides<N, M>(a.shape, a.strides, shape, st)) {
    out.data = a.data;
    out.owner = a.owner;
    out.strides = st;
    return out;
  }
  Array<T, N> c = copy(a);
  out.data = c.data;
  out.owner = c.owner;
  out.strides = c_strides<M>(shape);
  return out;
}

template <class T, int N>
Array<T, 1> ravel(const Array<T, N>& a) {
  Array<T, N> c = a.contiguous() ? a : copy(a);
  Array<T, 1> out;
  out.data = c.data;
  out.owner = c.owner;
  out.shape = {a.size()};
  out.strides = {1};
  return out;
}

template <class T, int N>
Array<T, 1> flatten(const Array<T, N>& a) {
  Array<T, N> c = copy(a);
  Array<T, 1> out;
  out.data = c.data;
  out.owner = c.owner;
  out.shape = {a.size()};
  out.strides = {1};
  return out;
}

template <class T, int N>
Array<T, N> transpose(const Array<T, N>& a) {
  Array<T, N> out = a;
  for (int k = 0; k < N; ++k) {
    out.shape[k] = a.shape[N - 1 - k];
    out.strides[k] = a.strides[N - 1 - k];
  }
  return out;
}

template <int... Axes, class T, int N>
Array<T, N> transpose_axes(const Array<T, N>& a) {
  static_assert(sizeof...(Axes) == N, "axes don't match array");
  Array<T, N> out = a;
  constexpr int ax[] = {Axes...};
  for (int k = 0; k < N; ++k) {
    out.shape[k] = a.shape[ax[k]];
    out.strides[k] = a.strides[ax[k]];
  }
  return out;
}

// expand_dims: Mask has a bit for every new axis position in the result
template <int M, uint32_t Mask, class T, int N>
Array<T, M> expand_dims(const Array<T, N>& a) {
  Array<T, M> out;
  out.data = a.data;
  out.owner = a.owner;
  for (int k = 0, j = 0; k < M; ++k) {
    if ((Mask >> k) & 1u) {
      out.shape[k] = 1;
      out.strides[k] = 0;
    } else {
      out.shape[k] = a.shape[j];
      out.strides[k] = a.strides[j];
      ++j;
    }
  }
  return out;
}

// squeeze the axes in Mask (each must have length 1)
template <int M, uint32_t Mask, class T, int N>
Array<T, M> squeeze(const Array<T, N>& a) {
  Array<T, M> out;
  out.data = a.data;
  out.owner = a.owner;
  for (int k = 0, j = 0; k < N; ++k) {
    if ((Mask >> k) & 1u) {
      if (a.shape[k] != 1) raise("ValueError", "cannot select an axis to squeeze out which has size not equal to one");
    } else {
      out.shape[j] = a.shape[k];
      out.strides[j] = a.strides[k];
      ++j;
    }
  }
  return out;
}

// flip the axes in Mask (a view with negative strides)
template <uint32_t Mask, class T, int N>
Array<T, N> flip(const Array<T, N>& a) {
  Array<T, N> out = a;
  index_t off = 0;
  for (int k = 0; k < N; ++k)
    if ((Mask >> k) & 1u) {
      if (a.shape[k] > 0) off += (a.shape[k] - 1) * a.strides[k];
      out.strides[k] = -a.strides[k];
    }
  out.data = a.data + off;
  return out;
}

// ---- joining --------------------------------------------------------------------
template <class R, class Seq>
auto to_vector(const Seq& seq) {
  if constexpr (is_list<Seq>::value) {
    using A = std::decay_t<decltype(seq[0])>;
    std::vector<Array<R, A::ndim>> v;
    for (index_t i = 0; i < seq.size(); ++i) v.push_back(as_dtype<R>(seq[i]));
    return v;
  } else {
    return std::apply([](const auto&... xs) {
      using A0 = std::decay_t<std::tuple_element_t<0, std::tuple<std::decay_t<decltype(xs)>...>>>;
      return std::vector<Array<R, A0::ndim>>{as_dtype<R>(xs)...};
    }, seq);
  }
}

template <class R, int N>
Array<R, N> concat_vec(const std::vector<Array<R, N>>& v, int axis) {
  if (v.empty()) raise("ValueError", "need at least one array to concatenate");
  std::array<index_t, N> shape = v[0].shape;
  index_t total = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    for (int k = 0; k < N; ++k)
      if (k != axis && v[i].shape[k] != shape[k])
        raise("ValueError", "all the input array dimensions except for the concatenation axis must match exactly, but "
                            "along dimension " + std::to_string(k) + ", the array at index 0 has size " +
                            std::to_string(shape[k]) + " and the array at index " + std::to_string(i) +
                            " has size " + std::to_string(v[i].shape[k]));
    total += v[i].shape[axis];
  }
  shape[axis] = total;
  Array<R, N> out = empty<R, N>(shape);
  index_t outer = 1, inner = 1;
  for (int k = 0; k < axis; ++k) outer *= shape[k];
  for (int k = axis + 1; k < N; ++k) inner *= shape[k];
  index_t pos = 0;  // along the axis
  for (const auto& a : v) {
    const index_t len = a.shape[axis];
    // walk a in C order; each element's (outer, i, inner) lands at a fixed place
    index_t q = 0;
    const index_t chunk = len * inner;
    for_each_offset(a, [&](index_t off) {
      const index_t o = chunk ? q / chunk : 0, r = chunk ? q % chunk : 0;
      out.data[(o * total + pos) * inner + r] = a.data[off];
      ++q;
    });
    pos += len;
  }
  (void)outer;
  return out;
}

template <class R, int N, class Seq>
Array<R, N> concatenate(const Seq& seq, int axis) {
  return concat_vec<R, N>(to_vector<R>(seq), axis);
}

// axis=None: everything flattened
template <class R, class Seq>
Array<R, 1> concatenate_flat(const Seq& seq) {
  std::vector<Array<R, 1>> flat;
  if constexpr (is_list<Seq>::value) {
    for (index_t i = 0; i < seq.size(); ++i) flat.push_back(ravel(as_dtype<R>(seq[i])));
  } else {
    std::apply([&](const auto&... xs) { (flat.push_back(ravel(as_dtype<R>(xs))), ...); }, seq);
  }
  return concat_vec<R, 1>(flat, 0);
}

template <class R, int N, class Seq>
Array<R, N + 1> stack(const Seq& seq, int axis) {
  auto v = to_vector<R>(seq);
  if (v.empty()) raise("ValueError", "need at least one array to stack");
  std::vector<Array<R, N + 1>> w;
  for (auto& a : v) {
    if (a.shape != v[0].shape) raise("ValueError", "all input arrays must have the same shape");
    Array<R, N + 1> e;
    e.data = a.data;
    e.owner = a.owner;
    for (int k = 0, j = 0; k <= N; ++k) {
      if (k == axis) {
        e.shape[k] = 1;
        e.strides[k] = 0;
      } else {
        e.shape[k] = a.shape[j];
        e.strides[k] = a.strides[j];
        ++j;
      }
    }
    w.push_back(e);
  }
  return concat_vec<R, N + 1>(w, axis);
}

// atleast_2d for vstack: a 1-d (n,) becomes (1, n)
template <class R, int M, int N>
Array<R, M> atleast(const Array<R, N>& a) {
  if constexpr (M == N) {
    return a;
  } else {
    static_assert(N < M);
    Array<R, M> e;
    e.data = a.data;
    e.owner = a.owner;
    for (int k = 0; k < M - N; ++k) e.shape[k] = 1, e.strides[k] = 0;
    for (int k = 0; k < N; ++k) e.shape[M - N + k] = a.shape[k], e.strides[M - N + k] = a.strides[k];
    return e;
  }
}

template <class R, int M, class Seq>
Array<R, M> vstack(const Seq& seq) {
  std::vector<Array<R, M>> w;
  if constexpr (is_list<Seq>::value) {
    for (index_t i = 0; i < seq.size(); ++i) w.push_back(atleast<R, M>(as_dtype<R>(seq[i])));
  } else {
    std::apply([&](const auto&... xs) { (w.push_back(atleast<R, M>(as_dtype<R>(xs))), ...); }, seq);
  }
  return concat_vec<R, M>(w, 0);
}

// ---- attributes -----------------------------------------------------------------
template <class T, int N>
auto shape_tuple(const Array<T, N>& a) {
  return [&]<size_t... K>(std::index_sequence<K...>) {
    return std::tuple{static_cast<int64_t>(a.shape[K])...};
  }(std::make_index_sequence<N>{});
}

template <class T, int N>
auto real_of(const Array<T, N>& a) {
  if constexpr (is_complex_v<T>) {
    using V = typename T::value_type;
    Array<V, N> out;
    out.data = reinterpret_cast<V*>(a.data);
    out.owner = a.owner;
    out.shape = a.shape;
    for (int k = 0; k < N; ++k) out.strides[k] = 2 * a.strides[k];
    return out;
  } else {
    return a;
  }
}

template <class T, int N>
auto imag_of(const Array<T, N>& a) {
  if constexpr (is_complex_v<T>) {
    using V = typename T::value_type;
    Array<V, N> out;
    out.data = reinterpret_cast<V*>(a.data) + 1;
    out.owner = a.owner;
    out.shape = a.shape;
    for (int k = 0; k < N; ++k) out.strides[k] = 2 * a.strides[k];
    return out;
  } else {
    return full<T, N>(a.shape, T(0));  // NumPy: a read-only array of zeros
  }
}

template <class T>
inline auto scalar_real(const T& x) {
  if constexpr (is_complex_v<T>) return x.real();
  else return x;
}
template <class T>
inline auto scalar_imag(const T& x) {
  if constexpr (is_complex_v<T>) return x.imag();
  else return T(0);
}

}  // namespace ep
