// The threads path of fused element-wise expressions: the loops body split
// across threads (pool.hpp: OpenMP, or a std::thread pool). Contiguous operands
// split the flat index range; other layouts split the first axis (each thread
// maps its own slab of rows). Every element is computed by the same element
// lambda as on the loops path, so results agree bit for bit except transcendental
// functions of contiguous operands: which elements take libmvec's vector form
// depends on where a chunk starts, so a chunk's ends may differ by libmvec's few
// ulp (docs/semantics.md, "Floating point").
#pragma once

#include "../../map.hpp"

#if defined(EP_HAVE_THREADS)
#include "pool.hpp"

namespace ep::threads {

// below this many elements one core is faster than waking the team
inline constexpr index_t kMinParallel = index_t(1) << 15;

// rows [lo, hi) of operand a along axis 0, or a itself when it broadcasts there
template <int N, class A>
inline A slab(const A& a, index_t lo, index_t hi) {
  if constexpr (is_array_v<A>) {
    if constexpr (std::decay_t<A>::ndim == N) {
      if (a.shape[0] != 1) {
        A s = a;
        s.data = a.data + lo * a.strides[0];
        s.shape[0] = hi - lo;
        return s;
      }
    }
  }
  return a;
}

template <class Out, int N, class F, class... Ops>
void map_into_slabs(const Array<Out, N>& out, F& f, const Ops&... ops) {
  const index_t rows = out.shape[0];
  const int nt = static_cast<int>(std::min<index_t>(rows, max_threads()));
  parallel(nt, [&](int t) {
    const index_t lo = rows * t / nt, hi = rows * (t + 1) / nt;
    if (hi > lo) {
      Array<Out, N> dst = slab<N>(out, lo, hi);
      // operands by std::tie, as ep::map_c passes them: with the emitter handing the loops and threads
      // paths one closure, this is the loops path's map_rows instance, compiled once (issue 13)
      [&](const auto&... s) {
        map_rows<Out, N>(dst.data, dst.strides, dst.shape, f, std::tie(s...), std::index_sequence_for<Ops...>{});
      }(slab<N>(ops, lo, hi)...);
    }
  });
}

// in the operands' axis order (map below walks views in memory order first, as ep::map does)
template <class Out, int N, class F, class... Ops>
Array<Out, N> map_c(F f, const Ops&... ops) {
  auto shape = broadcast_shape<N>(ops...);
  index_t n = 1;
  for (int k = 0; k < N; ++k) n *= shape[k];
  const int nt = max_threads();
  if (n < kMinParallel || nt < 2) return ep::map_c<Out, N>(f, ops...);
  Array<Out, N> out = empty<Out, N>(shape);
  if ((same_contiguous<Ops, N>(ops, shape) && ...)) {
    Out* __restrict o = out.data;
    [&](auto... src) {  // data pointers in locals (map.hpp flat_src: 1-byte results alias everything)
      parallel_for_simd(0, n, nt, [&](index_t i) { o[i] = static_cast<Out>(f(flat_at(src, i)...)); });
    }(flat_src(ops)...);
    return out;
  }
  if constexpr (N == 0) {
    out.data[0] = static_cast<Out>(f(flat_get(ops, 0)...));
  } else {
    map_into_slabs<Out, N>(out, f, ops...);
  }
  return out;
}

template <class Out, int N, class F, class... Ops>
Array<Out, N> map(F f, const Ops&... ops) {
  if constexpr (N >= 2) {
    const std::array<int, N> perm = memory_order<N>(broadcast_shape<N>(ops...), ops...);
    if (!is_identity<N>(perm)) return unpermuted<Out, N>(ep::threads::map_c<Out, N>(f, permuted<N>(ops, perm)...), perm);
  }
  return ep::threads::map_c<Out, N>(f, ops...);
}

}  // namespace ep::threads
#endif
