// The threads path of axis reductions (np.sum / prod / mean / max / min / nansum /
// nanmax / nanmin / any / all / argmax / argmin with axis= and keepdims), plus the
// full reductions of reduce.hpp (this header is the variant's one header).
//
// Many output elements: the outermost kept axis is cut into one slab per thread
// and each slab is reduced by the loops kernel (red::fold_into), so every output
// element is computed by the same sequence of operations as on the loops path.
// Few output elements: a reduced axis is cut instead; each thread reduces its
// slab into its own partial result and the partials are combined in thread
// order (deterministic for a given thread count). Integer, bool, max/min and
// arg* results are exact; float sums/products/means of a split reduced axis
// differ from NumPy's pairwise rounding by a few ulp times log2(threads)
// (tests use rtol 1e-12 for float64 and 1e-5 for float32).
#pragma once

#include <vector>

#include "../../ops/reduce.hpp"
#include "lanes.hpp"
#include "reduce.hpp"

#if defined(EP_HAVE_THREADS)

namespace ep::threads {
namespace redax {

// how partial results combine: sums add plainly (NanSum's NaN-to-zero is for inputs:
// a NaN partial comes from inf - inf and must stay NaN)
template <class Op>
struct Merge {
  using type = Op;
};
template <class R, class Cv>
struct Merge<red::Sum<R, Cv>> {
  using type = red::Sum<R>;
};

// out (keepdims layout of a's slab, possibly a strided view) = the reduction of a over Mask
template <class Op, uint32_t Mask, class T, int N>
void keep_into(const Array<typename Op::result, N>& out, const Array<T, N>& a) {
  using R = typename Op::result;
  if constexpr (Op::has_identity) {
    walk2<N>(out.shape, out.strides, out.strides, [&](index_t o, index_t) { out.data[o] = Op::identity(); });
    red::fold_into<Op>(out.data, out.strides, a, Mask, false);
  } else {
    walk2<N>(out.shape, a.strides, out.strides,  // seed with the first element along the reduced axes
             [&](index_t ia, index_t io) { out.data[io] = elem_cast<R>(a.data[ia]); });
    red::fold_into<Op>(out.data, out.strides, a, Mask, true);
  }
}

// the first axis in `pick` (kept or reduced axes) at least `len` long, else the longest
template <int N>
int pick_axis(const std::array<index_t, N>& shape, uint32_t mask, bool reduced, index_t len) {
  int best = -1;
  for (int k = 0; k < N; ++k) {
    if ((((mask >> k) & 1u) != 0) != reduced) continue;
    if (shape[k] >= len) return k;
    if (best < 0 || shape[k] > shape[best]) best = k;
  }
  return best;
}

template <class Op, uint32_t Mask, class T, int N>
Array<typename Op::result, N> reduce_keep(const Array<T, N>& a) {
  using R = typename Op::result;
  const int P = team(a.size() / kMinParallel);
  if constexpr (N == 0) {
    return red::reduce_keep<Op, Mask>(a);
  } else {
    // small, empty (NumPy's errors) or a single thread: the loops kernel
    if (P < 2 || a.size() == 0) return red::reduce_keep<Op, Mask>(a);
    std::array<index_t, N> oshape{};
    for (int k = 0; k < N; ++k) oshape[k] = ((Mask >> k) & 1u) ? 1 : a.shape[k];
    Array<R, N> out = empty<R, N>(oshape);
    const int ko = pick_axis<N>(a.shape, Mask, false, 4 * P);
    const int kr = pick_axis<N>(a.shape, Mask, true, P);
    const bool outer = ko >= 0 && (a.shape[ko] >= 4 * P || kr < 0 || a.shape[kr] < a.shape[ko]);
    if (outer) {
      if (a.shape[ko] < 2) return red::reduce_keep<Op, Mask>(a);
      const int nt = std::min(P, team(a.shape[ko]));
      parallel_ranges(a.shape[ko], nt, [&](int, index_t lo, index_t hi) {
        keep_into<Op, Mask>(cut(out, ko, lo, hi), cut(a, ko, lo, hi));
      });
      return out;
    }
    const int nt = std::min(P, team(a.shape[kr]));
    std::vector<Array<R, N>> part(static_cast<size_t>(nt));
    for (auto& p : part) p = empty<R, N>(oshape);
    parallel_ranges(a.shape[kr], nt, [&](int t, index_t lo, index_t hi) {
      keep_into<Op, Mask>(part[static_cast<size_t>(t)], cut(a, kr, lo, hi));
    });
    using M = typename Merge<Op>::type;
    const index_t osize = out.size();
    std::copy(part[0].data, part[0].data + osize, out.data);
    for (int t = 1; t < nt; ++t) {
      const R* __restrict q = part[static_cast<size_t>(t)].data;
      for (index_t i = 0; i < osize; ++i) out.data[i] = M::combine(out.data[i], q[i]);
    }
    return out;
  }
}

template <class Op, uint32_t Mask, bool Keep, class T, int N>
auto reduce(const Array<T, N>& a) {
  return red::drop_axes<red::kept_rank<N>(Mask, Keep)>(reduce_keep<Op, Mask>(a), Keep ? 0u : Mask);
}

// argmax / argmin along Axis: lanes split across threads, or (few long lanes)
// each lane cut into chunks whose first extremes are combined in order (exact:
// ties and NaNs resolve to the first occurrence, as NumPy's)
template <bool IsMax, int Axis, bool Keep, class T, int N>
auto arg_axis(const Array<T, N>& a) {
  const int P = team(a.size() / kMinParallel);
  if (P < 2 || a.size() == 0) return red::arg_axis<IsMax, Axis, Keep>(a);
  auto out = red::arg_axis<IsMax, Axis, Keep>(cut(a, Axis, 0, 1));  // the result's shape (lanes of length 1)
  const index_t n = a.shape[Axis], s = a.strides[Axis];
  const LaneSpace<N> ls = lanes<Axis, N>(a.shape, a.strides, a.strides);
  int64_t* o = out.data;  // C-contiguous: lane q's result is o[q]
  if (ls.count >= 4 * P) {
    parallel_ranges(ls.count, std::min(P, team(ls.count)), [&](int, index_t lo, index_t hi) {
      for (index_t q = lo; q < hi; ++q) o[q] = red::arg_row<IsMax>(a.data + ls.at(q).first, n, s);
    });
    return out;
  }
  const int nt = std::min(P, team(n));
  std::vector<index_t> best(static_cast<size_t>(nt));
  for (index_t q = 0; q < ls.count; ++q) {
    const T* p = a.data + ls.at(q).first;
    parallel_ranges(n, nt, [&](int t, index_t lo, index_t hi) {
      best[static_cast<size_t>(t)] = lo + red::arg_row<IsMax>(p + lo * s, hi - lo, s);
    });
    index_t bi = best[0];
    for (int t = 1; t < nt; ++t)
      if (red::better<IsMax>(p[best[static_cast<size_t>(t)] * s], p[bi * s])) bi = best[static_cast<size_t>(t)];
    o[q] = bi;
  }
  return out;
}

}  // namespace redax

#define EP_THREADS_AXIS_REDUCTION(fname, OP)   \
  template <class R, uint32_t Mask, bool Keep, class T, int N> \
  auto fname##_axes(const Array<T, N>& a) { return redax::reduce<OP, Mask, Keep>(a); }

EP_THREADS_AXIS_REDUCTION(sum, red::Sum<R>)
EP_THREADS_AXIS_REDUCTION(nansum, red::NanSum<R>)
EP_THREADS_AXIS_REDUCTION(prod, red::Prod<R>)
EP_THREADS_AXIS_REDUCTION(max, red::Max<R>)
EP_THREADS_AXIS_REDUCTION(min, red::Min<R>)
EP_THREADS_AXIS_REDUCTION(nanmax, red::FMax<R>)
EP_THREADS_AXIS_REDUCTION(nanmin, red::FMin<R>)
EP_THREADS_AXIS_REDUCTION(any, red::Any)
EP_THREADS_AXIS_REDUCTION(all, red::All)
#undef EP_THREADS_AXIS_REDUCTION

template <class R, class A, uint32_t Mask, bool Keep, class T, int N>
auto mean_axes(const Array<T, N>& a) {
  auto s = redax::reduce<red::Sum<A>, Mask, Keep>(a);
  const double c = static_cast<double>(red::reduced_count<N>(a.shape, Mask));
  using S = decltype(s);
  Array<R, S::ndim> out = empty<R, S::ndim>(s.shape);
  index_t j = 0;
  for_each_offset(s, [&](index_t off) { out.data[j++] = elem_cast<R>(red::div_count<A>(s.data[off], c)); });
  return out;
}

template <int Axis, bool Keep, class T, int N>
auto argmax_axis(const Array<T, N>& a) { return redax::arg_axis<true, Axis, Keep>(a); }
template <int Axis, bool Keep, class T, int N>
auto argmin_axis(const Array<T, N>& a) { return redax::arg_axis<false, Axis, Keep>(a); }

}  // namespace ep::threads
#endif
