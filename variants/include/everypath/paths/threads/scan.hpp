// The threads path of np.cumsum / np.cumprod. Along an axis the independent
// lanes are shared out (outer blocks, or column ranges when the outer count is
// small), each accumulated sequentially exactly as on the loops path, so results
// are identical. A single long lane of integers (1-d arrays, axis=None) uses a
// two-pass parallel prefix: integer + and * wrap modulo 2^bits and are
// associative, so regrouping is exact. Floats stay sequential there: a regrouped
// float prefix rounds differently from NumPy's left-to-right accumulation.
#pragma once

#include <type_traits>
#include <vector>

#include "../../ops/scan.hpp"
#include "lanes.hpp"

#if defined(EP_HAVE_THREADS)

namespace ep::threads {
namespace pscan {

template <class R>
inline constexpr bool exact_v = std::is_integral_v<R> && !std::is_same_v<R, bool>;

// The two-pass prefix reads the data twice: on the loaded 2-core test machine it lost to
// the sequential scan at every size measured (0.42x at 2^22, 0.79x at 2^24 int64), so one
// lane is split only from 2^25 elements; tests lower the macro to exercise the split.
#ifndef EP_THREADS_MIN_PREFIX
#define EP_THREADS_MIN_PREFIX (index_t(1) << 25)
#endif
inline constexpr index_t kMinPrefix = EP_THREADS_MIN_PREFIX;

// d[0, n) = the inclusive scan of src[0, n) converted to R, nt threads (R: an integer
// type). Pass 1 folds each thread's chunk, pass 2 scans it from the carry of the
// chunks before it: two reads and one write of the data.
template <class R, class Op, class S>
void prefix(const S* src, R* d, index_t n, int nt) {
  std::vector<R> total(static_cast<size_t>(nt)), carry(static_cast<size_t>(nt));
  parallel_ranges(n, nt, [&](int t, index_t lo, index_t hi) {
    R acc = elem_cast<R>(src[lo]);
    for (index_t i = lo + 1; i < hi; ++i) acc = Op::apply(acc, elem_cast<R>(src[i]));
    total[static_cast<size_t>(t)] = acc;
  });
  for (int t = 1; t < nt; ++t)  // carry[t]: the scan up to thread t's first element
    carry[static_cast<size_t>(t)] = t == 1 ? total[0] : Op::apply(carry[static_cast<size_t>(t) - 1], total[static_cast<size_t>(t) - 1]);
  parallel_ranges(n, nt, [&](int t, index_t lo, index_t hi) {
    R acc = elem_cast<R>(src[lo]);
    if (t > 0) acc = Op::apply(carry[static_cast<size_t>(t)], acc);
    d[lo] = acc;
    for (index_t i = lo + 1; i < hi; ++i) d[i] = acc = Op::apply(acc, elem_cast<R>(src[i]));
  });
}

// block o of the scan along an axis: n rows of `inner` elements; columns [jlo, jhi).
// in and out never overlap (restrict: the row loops vectorise).
template <class R, class Op, class S>
void block(const S* __restrict in, R* __restrict out, index_t n, index_t inner, index_t jlo, index_t jhi) {
  if (inner == 1) {  // one contiguous lane: the running value stays in a register
    R acc = elem_cast<R>(in[0]);
    out[0] = acc;
    for (index_t i = 1; i < n; ++i) out[i] = acc = Op::apply(acc, elem_cast<R>(in[i]));
    return;
  }
  for (index_t j = jlo; j < jhi; ++j) out[j] = elem_cast<R>(in[j]);
  for (index_t i = 1; i < n; ++i) {
    R* cur = out + i * inner;
    const R* prev = cur - inner;
    const S* x = in + i * inner;
    for (index_t j = jlo; j < jhi; ++j) cur[j] = Op::apply(prev[j], elem_cast<R>(x[j]));
  }
}

// out (C-contiguous) = the scan along Axis of src (C-contiguous, same shape, not out's memory)
template <class R, class Op, int Axis, int N, class S>
void lanes_from(const S* src, Array<R, N>& out, int P) {
  index_t outer = 1, inner = 1;
  for (int k = 0; k < Axis; ++k) outer *= out.shape[k];
  for (int k = Axis + 1; k < N; ++k) inner *= out.shape[k];
  const index_t n = out.shape[Axis], step = n * inner;
  R* d = out.data;
  if (outer >= 4 * P || (outer >= P && outer >= inner)) {
    parallel_ranges(outer, std::min(P, team(outer)), [&](int, index_t lo, index_t hi) {
      for (index_t o = lo; o < hi; ++o) block<R, Op>(src + o * step, d + o * step, n, inner, 0, inner);
    });
  } else if (inner >= 2) {
    for (index_t o = 0; o < outer; ++o)
      parallel_ranges(inner, std::min(P, team(inner / 16 + 1)), [&](int, index_t lo, index_t hi) {
        block<R, Op>(src + o * step, d + o * step, n, inner, lo, hi);
      });
  } else {
    for (index_t o = 0; o < outer; ++o) {  // few long lanes
      if constexpr (exact_v<R>) {
        if (n >= kMinPrefix) {
          prefix<R, Op>(src + o * n, d + o * n, n, P);
          continue;
        }
      }
      block<R, Op>(src + o * n, d + o * n, n, 1, 0, 1);
    }
  }
}

template <class R, class T>
struct Cast {
  R operator()(const T& x) const { return elem_cast<R>(x); }
};

template <class R, class Op, int Axis, class T, int N>
Array<R, N> along(const Array<T, N>& a) {
  const int P = team(a.size() / kMinParallel);
  if (P < 2) return scan::along<R, Op, Axis>(a);
  Array<R, N> out = empty<R, N>(a.shape);
  if (a.contiguous()) {  // read a directly: one pass over the data
    lanes_from<R, Op, Axis>(a.data, out, P);
  } else {
    const Array<R, N> packed = threads::map_c<R, N>(Cast<R, T>{}, a);  // C-contiguous, converted (in parallel)
    lanes_from<R, Op, Axis>(static_cast<const R*>(packed.data), out, P);
  }
  return out;
}

template <class R, class Op, class T, int N>
Array<R, 1> flat(const Array<T, N>& a) {
  const int P = team(a.size() / kMinParallel);
  if constexpr (!exact_v<R>) {
    return scan::flat<R, Op>(a);
  } else {
    if (P < 2 || !a.contiguous() || a.size() < kMinPrefix) return scan::flat<R, Op>(a);
    Array<R, 1> out = empty<R, 1>({a.size()});
    prefix<R, Op>(a.data, out.data, a.size(), P);
    return out;
  }
}

}  // namespace pscan

template <class R, class T, int N>
Array<R, 1> cumsum_flat(const Array<T, N>& a) { return pscan::flat<R, scan::Add<R>>(a); }
template <class R, class T, int N>
Array<R, 1> cumprod_flat(const Array<T, N>& a) { return pscan::flat<R, scan::Mul<R>>(a); }
template <class R, int Axis, class T, int N>
Array<R, N> cumsum_axis(const Array<T, N>& a) { return pscan::along<R, scan::Add<R>, Axis>(a); }
template <class R, int Axis, class T, int N>
Array<R, N> cumprod_axis(const Array<T, N>& a) { return pscan::along<R, scan::Mul<R>, Axis>(a); }

}  // namespace ep::threads
#endif
