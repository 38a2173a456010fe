// Splitting and stacking: np.split / array_split / hsplit / vsplit / dsplit
// (a List of views, as NumPy's list of views), np.column_stack and np.dstack.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "../array.hpp"
#include "../index.hpp"
#include "arrange.hpp"
#include "creation.hpp"
#include "shape.hpp"

namespace ep {

namespace man {
// a[start:stop] along axis with Python's slice rules (a view).
template <class T, int N>
Array<T, N> axis_slice(const Array<T, N>& a, int axis, index_t start, index_t stop) {
  const Slice s{start, stop, 1, true, true};
  index_t b;
  const index_t len = adjust(s, a.shape[axis], b);
  Array<T, N> out = a;
  if (len > 0) out.data = a.data + b * a.strides[axis];  // an empty piece keeps a pointer inside its base
  out.shape[axis] = len;
  return out;
}
}  // namespace man

// spec: a number of sections (an integer) or the split points (tuple, List or array).
// Equal: np.split, which insists on equal sections.
template <bool Equal, class T, int N, class S>
List<Array<T, N>> array_split(const Array<T, N>& a, const S& spec, int axis) {
  const index_t total = a.shape[axis];
  std::vector<index_t> div{0};
  if constexpr (std::is_arithmetic_v<S> && !is_array_v<S>) {
    const index_t sections = static_cast<index_t>(spec);
    if constexpr (Equal) {
      if (sections == 0) raise("ZeroDivisionError", "integer modulo by zero");
      if (total % sections != 0) raise("ValueError", "array split does not result in an equal division");
    }
    if (sections <= 0) raise("ValueError", "number sections must be larger than 0.");
    const index_t each = total / sections, extras = total % sections;
    for (index_t i = 0; i < sections; ++i) div.push_back(div.back() + each + (i < extras ? 1 : 0));
  } else {
    for (index_t p : man::int_seq(spec)) div.push_back(p);
    div.push_back(total);
  }
  List<Array<T, N>> out;
  for (size_t i = 0; i + 1 < div.size(); ++i) out.append(man::axis_slice(a, axis, div[i], div[i + 1]));
  return out;
}

// ---- column_stack / dstack ----------------------------------------------------------
namespace man {
// Each item of a tuple or List, as an array of dtype R, through f; joined along axis.
template <class R, int M, class Seq, class F>
Array<R, M> join_each(const Seq& seq, F&& f, int axis) {
  std::vector<Array<R, M>> v;
  if constexpr (is_list<Seq>::value) {
    for (index_t i = 0; i < seq.size(); ++i) v.push_back(f(as_dtype<R>(as_array(seq[i]))));
  } else {
    std::apply([&](const auto&... xs) { (v.push_back(f(as_dtype<R>(as_array(xs)))), ...); }, seq);
  }
  return concat_vec<R, M>(v, axis);
}
}  // namespace man

// np.column_stack: 0-/1-d items become columns, the rest are joined as they are.
template <class R, int M, class Seq>
Array<R, M> column_stack(const Seq& seq) {
  return man::join_each<R, M>(seq, [](const auto& x) {
    using A = std::decay_t<decltype(x)>;
    if constexpr (A::ndim == 0) return expand_dims<M, (1u << M) - 1>(x);
    else if constexpr (A::ndim == 1) return expand_dims<M, ((1u << M) - 1) & ~1u>(x);  // (n,) -> (n, 1, ...)
    else return x;
  }, 1);
}

// np.dstack: every item seen as at least 3-d ((n,) -> (1, n, 1), (m, n) -> (m, n, 1)), joined on axis 2.
template <class R, int M, class Seq>
Array<R, M> dstack(const Seq& seq) {
  return man::join_each<R, M>(seq, [](const auto& x) {
    using A = std::decay_t<decltype(x)>;
    if constexpr (A::ndim == 0) return expand_dims<3, 0b111u>(x);
    else if constexpr (A::ndim == 1) return expand_dims<3, 0b101u>(x);
    else if constexpr (A::ndim == 2) return expand_dims<3, 0b100u>(x);
    else return x;
  }, 2);
}

}  // namespace ep
