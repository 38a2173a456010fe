// Fused element-wise evaluation with NumPy broadcasting.
// ep::map<Out, N>(f, operands...) evaluates f over the broadcast shape of the
// operands (arrays of rank <= N, or scalars) into a new array; ep::map_into
// writes into an existing array (in-place operators, assignment). The
// emitter fuses whole expression trees into one f, so no temporaries are made.
#pragma once

#include <limits>
#include <string>

#include "array.hpp"

namespace ep {

template <int N, class A>
inline void broadcast_into(std::array<index_t, N>& out, const A& a, bool& ok) {
  if constexpr (is_array_v<A>) {
    constexpr int M = std::decay_t<A>::ndim;
    static_assert(M <= N, "operand rank exceeds result rank");
    for (int k = 0; k < M; ++k) {
      index_t& o = out[N - M + k];
      index_t d = a.shape[k];
      if (o == 1) o = d;
      else if (d != 1 && d != o) ok = false;
    }
  }
}

template <class A>
inline void shapes_text(std::string& s, const A& a) {
  if constexpr (is_array_v<A>) s += shape_str(a) + " ";
  else s += "() ";
}

template <int N, class... Ops>
std::array<index_t, N> broadcast_shape(const Ops&... ops) {
  std::array<index_t, N> out;
  out.fill(1);
  bool ok = true;
  (broadcast_into<N>(out, ops, ok), ...);
  if (!ok) {
    std::string s;
    (shapes_text(s, ops), ...);
    raise("ValueError", "operands could not be broadcast together with shapes " + s);
  }
  return out;
}

// Strides of an operand seen through the broadcast result shape (0 = repeated).
template <int N, class A>
inline std::array<index_t, N> broadcast_strides(const A& a, const std::array<index_t, N>& shape) {
  std::array<index_t, N> st{};
  if constexpr (is_array_v<A>) {
    constexpr int M = std::decay_t<A>::ndim;
    for (int k = 0; k < M; ++k) st[N - M + k] = (a.shape[k] == 1 && shape[N - M + k] != 1) ? 0 : a.strides[k];
  }
  return st;
}

template <class A, int N>
inline bool same_contiguous(const A& a, const std::array<index_t, N>& shape) {
  if constexpr (is_array_v<A>) {
    constexpr int M = std::decay_t<A>::ndim;
    if (M != N) return false;
    for (int k = 0; k < M; ++k)
      if (a.shape[k] != shape[k]) return false;
    return a.contiguous();
  } else {
    return true;
  }
}

// Element reads in vectorisable loops. GCC 12 will not vectorise loads of `bool` mixed
// with wider lanes, nor std::complex member loads in mixed loops; reading bools as bytes
// and complex numbers as (re, im) pairs gives the same values and lets the loops vectorise.
template <class T>
inline T load_elem(const T* p, index_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return reinterpret_cast<const unsigned char*>(p)[i] != 0;
  } else if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const R* q = reinterpret_cast<const R*>(p);
    return T(q[2 * i], q[2 * i + 1]);
  } else {
    return p[i];
  }
}

template <class A>
inline auto flat_get(const A& a, index_t i) {
  if constexpr (is_array_v<A>) return load_elem(a.data, i);
  else return a;
}

// An operand of a flat loop: its data pointer (or the scalar itself) in a local. Read through the
// Array instead, every store of a 1-byte result (uint8, int8, bool: char types alias everything)
// makes GCC reload the operand's data pointer, and the loop neither vectorises nor runs at speed.
template <class A>
inline auto flat_src(const A& a) {
  if constexpr (is_array_v<A>) return static_cast<const typename std::decay_t<A>::value_type*>(a.data);
  else return a;
}
template <class S>
inline auto flat_at(S s, index_t i) {
  if constexpr (std::is_pointer_v<S>) return load_elem(s, i);
  else return s;
}

template <class A>
inline auto off_get(const A& a, index_t off) {
  if constexpr (is_array_v<A>) return load_elem(a.data, off);
  else return a;
}

// The strided N-d walk shared by map and map_into: calls body(dst_off, op_offs...)
template <int N, class Body, class... Ops>
inline void walk(const std::array<index_t, N>& shape, const std::array<index_t, N>& dst_strides, Body&& body,
                 const Ops&... ops) {
  constexpr size_t K = sizeof...(Ops);
  std::array<std::array<index_t, N>, K> st{broadcast_strides<N>(ops, shape)...};
  if constexpr (N == 0) {
    std::array<index_t, K> offs{};
    body(index_t{0}, offs);
  } else {
    for (int k = 0; k < N; ++k)
      if (shape[k] == 0) return;
    std::array<index_t, N> idx{};
    const index_t inner = shape[N - 1];
    while (true) {
      index_t dbase = 0;
      std::array<index_t, K> base{};
      for (int k = 0; k < N - 1; ++k) {
        dbase += idx[k] * dst_strides[k];
        for (size_t j = 0; j < K; ++j) base[j] += idx[k] * st[j][k];
      }
      for (index_t i = 0; i < inner; ++i) {
        std::array<index_t, K> offs;
        for (size_t j = 0; j < K; ++j) offs[j] = base[j] + i * st[j][N - 1];
        body(dbase + i * dst_strides[N - 1], offs);
      }
      int k = N - 2;
      for (; k >= 0; --k) {
        if (++idx[k] < shape[k]) break;
        idx[k] = 0;
      }
      if (k < 0) return;
    }
  }
}

template <class F, class Tuple, size_t... J>
inline auto apply_offs(F& f, const Tuple& ops, const std::array<index_t, sizeof...(J)>& offs, std::index_sequence<J...>) {
  return f(off_get(std::get<J>(ops), offs[J])...);
}

// One operand's view of the current row: a unit-stride pointer (its own data when the
// row is already contiguous, else a packed copy) or, for scalars, the value itself.
template <class A>
struct RowSrc {
  A v;
  explicit RowSrc(const A& a, index_t) : v(a) {}
  void load(const A&, index_t, index_t, index_t) {}
  A get(index_t) const { return v; }
};
template <class T, int M>
struct RowSrc<Array<T, M>> {
  const T* p = nullptr;
  std::unique_ptr<T[]> buf;  // not std::vector: vector<bool> has no data()
  index_t n = 0;
  explicit RowSrc(const Array<T, M>&, index_t len) : buf(new T[static_cast<size_t>(std::max<index_t>(len, 1))]), n(len) {}
  void load(const Array<T, M>& a, index_t base, index_t stride, index_t len) {
    if (stride == 1) {
      p = a.data + base;
    } else if (stride == 0) {
      std::fill(buf.get(), buf.get() + len, a.data[base]);
      p = buf.get();
    } else {
      for (index_t i = 0; i < len; ++i) buf[static_cast<size_t>(i)] = a.data[base + i * stride];
      p = buf.get();
    }
  }
  T get(index_t i) const { return load_elem(p, i); }
};

// Row-by-row evaluation for broadcasting and strided operands: the inner loop is the
// same unit-stride, vectorisable kernel as the contiguous path.
template <class Out, int N, class F, class Tup, size_t... J>
void map_rows(Out* dst, const std::array<index_t, N>& dst_strides, const std::array<index_t, N>& shape, F& f,
              const Tup& ops, std::index_sequence<J...>) {
  static_assert(N >= 1);
  const index_t len = shape[N - 1];
  for (int k = 0; k < N; ++k)
    if (shape[k] == 0) return;
  std::array<std::array<index_t, N>, sizeof...(J)> st{broadcast_strides<N>(std::get<J>(ops), shape)...};
  auto srcs = std::make_tuple(RowSrc<std::decay_t<std::tuple_element_t<J, Tup>>>(std::get<J>(ops), len)...);
  std::unique_ptr<Out[]> obuf(dst_strides[N - 1] == 1 ? nullptr : new Out[static_cast<size_t>(len)]);
  std::array<index_t, N> idx{};
  while (true) {
    index_t dbase = 0;
    std::array<index_t, sizeof...(J)> base{};
    for (int k = 0; k < N - 1; ++k) {
      dbase += idx[k] * dst_strides[k];
      ((base[J] += idx[k] * st[J][k]), ...);
    }
    (std::get<J>(srcs).load(std::get<J>(ops), base[J], st[J][N - 1], len), ...);
    Out* __restrict o = dst_strides[N - 1] == 1 ? dst + dbase : obuf.get();
#pragma GCC ivdep
    for (index_t i = 0; i < len; ++i) o[i] = static_cast<Out>(f(std::get<J>(srcs).get(i)...));
    if (dst_strides[N - 1] != 1)
      for (index_t i = 0; i < len; ++i) dst[dbase + i * dst_strides[N - 1]] = obuf[static_cast<size_t>(i)];
    int k = N - 2;
    for (; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

// Memory order (NumPy's and torch's K order): when the first operand of the full shape is a view
// whose axes are not laid out outermost-first (x.T), a fresh result takes its layout and every
// operand is walked through the same axis permutation, so reads and writes are in address order
// (the unit-stride kernels below) instead of striding across rows. Only for operands all of rank N
// (scalars aside): the permuted operands keep their types, so no code is instantiated twice.
template <class A>
constexpr int rank_of() {
  if constexpr (is_array_v<A>) return std::decay_t<A>::ndim;
  else return -1;
}

template <int N, class... Ops>
inline std::array<int, N> memory_order(const std::array<index_t, N>& shape, const Ops&... ops) {
  std::array<int, N> perm{};
  for (int k = 0; k < N; ++k) perm[k] = k;
  constexpr bool ranks = ((rank_of<Ops>() < 0 || rank_of<Ops>() == N) && ...);
  if constexpr (N >= 2 && ranks) {
    const std::array<index_t, N>* ref = nullptr;
    auto pick = [&](const auto& a) {
      if constexpr (is_array_v<std::decay_t<decltype(a)>>) {
        if (ref == nullptr && a.shape == shape) ref = &a.strides;
      }
    };
    (pick(ops), ...);
    if (ref == nullptr) return perm;
    // size-1 axes carry any stride: outermost; the rest by decreasing |stride| (stable)
    auto key = [&](int k) { return shape[k] == 1 ? std::numeric_limits<index_t>::max() : ((*ref)[k] < 0 ? -(*ref)[k] : (*ref)[k]); };
    for (int i = 1; i < N; ++i)
      for (int j = i; j > 0 && key(perm[j - 1]) < key(perm[j]); --j) std::swap(perm[j - 1], perm[j]);
  }
  return perm;
}

template <int N>
inline bool is_identity(const std::array<int, N>& perm) {
  for (int k = 0; k < N; ++k)
    if (perm[k] != k) return false;
  return true;
}

// a seen through perm (axis j of the result is axis perm[j] of a); scalars as they are
template <int N, class A>
inline A permuted(const A& a, const std::array<int, N>& perm) {
  if constexpr (is_array_v<A>) {
    A p = a;
    for (int j = 0; j < N; ++j) {
      p.shape[j] = a.shape[perm[j]];
      p.strides[j] = a.strides[perm[j]];
    }
    return p;
  } else {
    return a;
  }
}

template <int N>
inline std::array<index_t, N> permuted_shape(const std::array<index_t, N>& shape, const std::array<int, N>& perm) {
  std::array<index_t, N> p{};
  for (int j = 0; j < N; ++j) p[j] = shape[perm[j]];
  return p;
}

// the result computed in permuted order, seen in the caller's axis order
template <class T, int N>
inline Array<T, N> unpermuted(Array<T, N> a, const std::array<int, N>& perm) {
  const Array<T, N> p = a;
  for (int j = 0; j < N; ++j) {
    a.shape[perm[j]] = p.shape[j];
    a.strides[perm[j]] = p.strides[j];
  }
  return a;
}

template <class Out, int N, class F, class... Ops>
Array<Out, N> map_c(F f, const Ops&... ops);

template <class Out, int N, class F, class... Ops>
Array<Out, N> map(F f, const Ops&... ops) {
  if constexpr (N >= 2) {
    const std::array<int, N> perm = memory_order<N>(broadcast_shape<N>(ops...), ops...);
    if (!is_identity<N>(perm)) return unpermuted<Out, N>(ep::map_c<Out, N>(f, permuted<N>(ops, perm)...), perm);
  }
  return ep::map_c<Out, N>(f, ops...);
}

// map in the operands' axis order: a C-contiguous result
template <class Out, int N, class F, class... Ops>
Array<Out, N> map_c(F f, const Ops&... ops) {
  auto shape = broadcast_shape<N>(ops...);
  Array<Out, N> out = empty<Out, N>(shape);
  const index_t n = out.size();
  if ((same_contiguous<Ops, N>(ops, shape) && ...)) {
    Out* __restrict o = out.data;
    // fresh output: no operand can alias it, so skip the runtime alias checks
    // (GCC gives up vectorising beyond ~10 of them)
    [&](auto... src) {
#pragma GCC ivdep
      for (index_t i = 0; i < n; ++i) o[i] = static_cast<Out>(f(flat_at(src, i)...));
    }(flat_src(ops)...);
    return out;
  }
  if constexpr (N == 0) {
    out.data[0] = static_cast<Out>(f(flat_get(ops, 0)...));
  } else {
    map_rows<Out, N>(out.data, out.strides, shape, f, std::tie(ops...), std::index_sequence_for<Ops...>{});
  }
  return out;
}

template <class A, class D>
inline auto detach_if_overlapping(const A& a, const D& dst) {
  if constexpr (is_array_v<A>) {
    // NumPy gives as-if-copied semantics when an operand overlaps the output
    // in any other way than being exactly the output view itself.
    // (an operand of another dtype is never dst itself: u += 0.15 * ru with float32 u, float64 ru)
    bool same = false;
    if constexpr (std::decay_t<A>::ndim == D::ndim &&
                  std::is_same_v<typename std::decay_t<A>::value_type, typename D::value_type>)
      same = a.data == dst.data && a.strides == dst.strides;
    if (!same && overlaps(a, dst)) return copy(a);
    return a;
  } else {
    return a;
  }
}

template <class T, int N, class F, class... Ops>
void map_into_impl(const Array<T, N>& dst, F& f, const Ops&... ops) {
  auto shape = broadcast_shape<N>(dst, ops...);
  if (shape != dst.shape) {
    std::string s = shape_str(shape.data(), N);
    raise("ValueError", "non-broadcastable output operand with shape " + shape_str(dst) +
                            " doesn't match the broadcast shape " + s);
  }
  const index_t n = dst.size();
  if (dst.contiguous() && (same_contiguous<Ops, N>(ops, shape) && ...)) {
    // operands overlapping dst were copied (detach_if_overlapping) unless they are
    // dst itself, read and written at the same index: no loop-carried dependence
    T* const d = dst.data;
    [&](auto... src) {
#pragma GCC ivdep
      for (index_t i = 0; i < n; ++i) d[i] = static_cast<T>(f(flat_at(src, i)...));
    }(flat_src(ops)...);
    return;
  }
  if constexpr (N == 0) {
    dst.data[0] = static_cast<T>(f(flat_get(ops, 0)...));
  } else {
    map_rows<T, N>(dst.data, dst.strides, shape, f, std::tie(ops...), std::index_sequence_for<Ops...>{});
  }
}

template <class T, int N, class F, class... Ops>
void map_into(const Array<T, N>& dst, F f, const Ops&... ops) {
  map_into_impl(dst, f, detach_if_overlapping(ops, dst)...);
}

}  // namespace ep
