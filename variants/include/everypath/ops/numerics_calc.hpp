// np.gradient (uniform spacing, edge_order 1 or 2), np.trapezoid and np.ediff1d
// (included by numerics.hpp). Differences are taken in the input's dtype, the
// division or weighting in the dtype NumPy promotes to, as in NumPy's code.
#pragma once

#include "numerics.hpp"
#include "scan.hpp"

namespace ep {
namespace num {

// the coefficients of np.gradient's second-order one-sided edges for uniform spacing
template <class C>
struct Edge2 {
  C a0, b0, c0, a1, b1, c1;
};

// np.gradient along Axis: O the result dtype, F the (converted) input's, CI the interior
// division's (f[2:] - f[:-2]) / (2 * dx), CE the first-order edges' (f[1] - f[0]) / dx,
// CA the second-order edges' a * f[0] + b * f[1] + c * f[2]
template <class O, class CI, class CE, class CA, int EdgeOrder, int Axis, class F, int N>
Array<O, N> gradient_axis(const Array<F, N>& f, CI two_dx, CE dx, const Edge2<CA>& e2) {
  const index_t n = f.shape[Axis];
  if (n < EdgeOrder + 1)
    raise("ValueError", "Shape of array too small to calculate a numerical gradient, at least (edge_order + 1) "
                        "elements are required.");
  Array<O, N> out = empty<O, N>(f.shape);
  Array<F, N> lines = f;
  lines.shape[Axis] = 1;
  const index_t s = f.strides[Axis], t = out.strides[Axis];
  walk<N>(lines.shape, out.strides, [&](index_t oo, const std::array<index_t, 1>& offs) {
    const F* p = f.data + offs[0];
    O* q = out.data + oo;
    for (index_t i = 1; i + 1 < n; ++i)
      q[i * t] = elem_cast<O>(sc::truediv<CI>(elem_cast<CI>(sc::sub<F>(p[(i + 1) * s], p[(i - 1) * s])), two_dx));
    if constexpr (EdgeOrder == 1) {
      q[0] = elem_cast<O>(sc::truediv<CE>(elem_cast<CE>(sc::sub<F>(p[s], p[0])), dx));
      q[(n - 1) * t] = elem_cast<O>(sc::truediv<CE>(elem_cast<CE>(sc::sub<F>(p[(n - 1) * s], p[(n - 2) * s])), dx));
    } else {
      auto term = [&](CA c, index_t i) { return sc::mul<CA>(c, elem_cast<CA>(p[i * s])); };
      q[0] = elem_cast<O>(sc::add<CA>(sc::add<CA>(term(e2.a0, 0), term(e2.b0, 1)), term(e2.c0, 2)));
      q[(n - 1) * t] = elem_cast<O>(sc::add<CA>(sc::add<CA>(term(e2.a1, n - 3), term(e2.b1, n - 2)), term(e2.c1, n - 1)));
    }
  }, lines);
  return out;
}

// ---- trapezoid --------------------------------------------------------------------------
// y[1:] / y[:-1] along Axis
template <int Axis, class T, int N>
Array<T, N> shifted(const Array<T, N>& y, bool upper) {
  Array<T, N> v = y;
  if (y.shape[Axis] == 0) return v;
  v.shape[Axis] -= 1;
  if (upper) v.data += y.strides[Axis];
  return v;
}

// d as NumPy uses it: a scalar, diff(x) reshaped along Axis (1-d x), or diff(x, axis=Axis)
template <int Axis, int N, class X>
auto spacing_of(const Array<X, 1>& x, std::integral_constant<int, N>) {
  Array<X, 1> d = diff<0>(x, 1);
  if constexpr (N == 1) {
    return d;
  } else {
    Array<X, N> v;
    v.data = d.data;
    v.owner = d.owner;
    for (int k = 0; k < N; ++k) v.shape[k] = 1, v.strides[k] = 0;
    v.shape[Axis] = d.shape[0];
    v.strides[Axis] = d.strides[0];
    return v;
  }
}
template <int Axis, int N, class X, int M>
auto spacing_of(const Array<X, M>& x, std::integral_constant<int, N>) {
  return diff<(Axis + M - N)>(x, 1);
}
template <int Axis, int N, class X>
X spacing_of(const X& dx, std::integral_constant<int, N>) {
  return dx;
}

// M: the dtype of d * (y[1:] + y[:-1]); C: of that / 2.0 (also the sum's)
template <class M, class C, int Axis, class Y, int N, class D>
auto trapezoid(const Array<Y, N>& y, const D& dx) {
  auto d = spacing_of<Axis, N>(dx, std::integral_constant<int, N>{});
  const Array<Y, N> y1 = shifted<Axis>(y, true), y0 = shifted<Axis>(y, false);
  (void)broadcast_shape<N>(d, y1);  // NumPy's first operation: d * (y1 + y0), and its error
  auto term = [](auto dv, Y hi, Y lo) {
    const M prod = sc::mul<M>(elem_cast<M>(dv), elem_cast<M>(sc::add<Y>(hi, lo)));
    return sc::truediv<C>(elem_cast<C>(prod), C(2.0));
  };
  if constexpr (N == 1) {
    return fused_sum_all<C, C, 1>(term, d, y1, y0);  // pairwise, without the temporary
  } else {
    return sum_axes<C, (1u << Axis), false>(map<C, N>(term, d, y1, y0));
  }
}

// ---- ediff1d ------------------------------------------------------------------------------
template <class T, class E>
void put_extra(std::vector<T>& v, const E& e) {
  if constexpr (std::is_same_v<E, None>) {
  } else if constexpr (is_array_v<E>) {
    for_each_offset(e, [&](index_t off) { v.push_back(elem_cast<T>(e.data[off])); });
  } else {
    v.push_back(elem_cast<T>(e));
  }
}

template <class T, int N, class E, class B>
Array<T, 1> ediff1d(const Array<T, N>& a, const E& to_end, const B& to_begin) {
  std::vector<T> head, tail;
  put_extra(head, to_begin);
  put_extra(tail, to_end);
  const index_t n = a.size(), nd = n > 0 ? n - 1 : 0, nb = static_cast<index_t>(head.size());
  Array<T, 1> out = empty<T, 1>({nb + nd + static_cast<index_t>(tail.size())});
  std::copy(head.begin(), head.end(), out.data);
  T prev{};
  index_t i = 0;
  for_each_offset(a, [&](index_t off) {
    const T x = a.data[off];
    if (i > 0) out.data[nb + i - 1] = sc::sub<T>(x, prev);
    prev = x;
    ++i;
  });
  std::copy(tail.begin(), tail.end(), out.data + nb + nd);
  return out;
}

}  // namespace num
}  // namespace ep
