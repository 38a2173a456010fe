// The threads path of full reductions (np.sum / prod / max / min / mean / nansum /
// nanmax / nanmin over every axis): the first axis is cut into one slab per
// thread, each slab is reduced by the loops kernel (NumPy's pairwise order within
// the slab), and the per-thread partials are combined in thread order, so results
// are deterministic for a given thread count.
#pragma once

#include <vector>

#include "../../ops/reduce.hpp"
#include "map.hpp"

#if defined(EP_HAVE_THREADS)
#include "pool.hpp"

namespace ep::threads {

template <class Op, class T, int N>
typename Op::result reduce_all(const Array<T, N>& a) {
  using R = typename Op::result;
  if constexpr (N == 0) {
    return red::reduce_all<Op>(a);
  } else {
    const index_t rows = a.shape[0];
    const int nt = static_cast<int>(std::min<index_t>(rows, max_threads()));
    if (a.size() < kMinParallel * 4 || nt < 2) return red::reduce_all<Op>(a);
    std::vector<R> part(static_cast<size_t>(nt));
    parallel(nt, [&](int t) {
      const index_t lo = rows * t / nt, hi = rows * (t + 1) / nt;
      part[static_cast<size_t>(t)] = red::reduce_all<Op>(slab<N>(a, lo, hi));
    });
    R acc = part[0];
    for (int t = 1; t < nt; ++t) acc = Op::combine(acc, part[static_cast<size_t>(t)]);
    return acc;
  }
}

#define EP_THREADS_REDUCTION(fname, OP) \
  template <class R, class T, int N>    \
  R fname##_all(const Array<T, N>& a) { return threads::reduce_all<OP>(a); }

EP_THREADS_REDUCTION(sum, red::Sum<R>)
EP_THREADS_REDUCTION(nansum, red::NanSum<R>)
EP_THREADS_REDUCTION(prod, red::Prod<R>)
EP_THREADS_REDUCTION(max, red::Max<R>)
EP_THREADS_REDUCTION(min, red::Min<R>)
EP_THREADS_REDUCTION(nanmax, red::FMax<R>)
EP_THREADS_REDUCTION(nanmin, red::FMin<R>)
#undef EP_THREADS_REDUCTION

template <class R, class A, class T, int N>
R mean_all(const Array<T, N>& a) {
  A s = threads::reduce_all<red::Sum<A>>(a);
  return elem_cast<R>(red::div_count<A>(s, static_cast<double>(a.size())));
}

}  // namespace ep::threads
#endif
