// Shared helpers of the threads path's axis kernels (reduce_axis.hpp, scan.hpp,
// sort.hpp): team sizes, splitting an index range into per-thread ranges, and
// walking the lanes of an array along one axis from any flat lane number, so a
// thread can start in the middle of the lane space.
#pragma once

#include <algorithm>
#include <array>

#include "map.hpp"

#if defined(EP_HAVE_THREADS)
#include "pool.hpp"

namespace ep::threads {

// threads worth starting for `items` independent pieces of work
inline int team(index_t items) {
  return static_cast<int>(std::max<index_t>(1, std::min<index_t>(items, max_threads())));
}

// f(t, lo, hi) on thread t for its share [lo, hi) of [0, count); no exception may leave f
template <class F>
void parallel_ranges(index_t count, int nt, F&& f) {
  parallel(nt, [&](int t) {
    const index_t lo = count * t / nt, hi = count * (t + 1) / nt;
    if (hi > lo) f(t, lo, hi);
  });
}

// The lanes of an N-d shape along Axis: an (N-1)-d space of lane starts in two layouts
// (the input's strides and the output's), numbered in C order.
template <int N>
struct LaneSpace {
  static constexpr int M = N > 1 ? N - 1 : 1;
  std::array<index_t, M> shape{}, sa{}, sb{};
  int m = 0;
  index_t count = 1;

  // offsets of lane q's first element in both layouts
  std::pair<index_t, index_t> at(index_t q) const {
    index_t oa = 0, ob = 0;
    for (int k = m - 1; k >= 0; --k) {
      const index_t i = q % shape[k];
      q /= shape[k];
      oa += i * sa[k];
      ob += i * sb[k];
    }
    return {oa, ob};
  }
};

template <int Axis, int N>
LaneSpace<N> lanes(const std::array<index_t, N>& shape, const std::array<index_t, N>& sa,
                   const std::array<index_t, N>& sb) {
  LaneSpace<N> s;
  for (int k = 0; k < N; ++k)
    if (k != Axis) {
      s.shape[s.m] = shape[k];
      s.sa[s.m] = sa[k];
      s.sb[s.m] = sb[k];
      s.count *= shape[k];
      ++s.m;
    }
  return s;
}

// f(offset in layout a, offset in layout b) for every index of shape, in C order
template <int N, class F>
void walk2(const std::array<index_t, N>& shape, const std::array<index_t, N>& sa,
           const std::array<index_t, N>& sb, F&& f) {
  if constexpr (N == 0) {
    f(index_t{0}, index_t{0});
  } else {
    for (int k = 0; k < N; ++k)
      if (shape[k] == 0) return;
    std::array<index_t, N> idx{};
    index_t oa = 0, ob = 0;
    while (true) {
      f(oa, ob);
      int k = N - 1;
      for (; k >= 0; --k) {
        oa += sa[k];
        ob += sb[k];
        if (++idx[k] < shape[k]) break;
        oa -= sa[k] * shape[k];
        ob -= sb[k] * shape[k];
        idx[k] = 0;
      }
      if (k < 0) return;
    }
  }
}

// rows [lo, hi) of a along axis k (a view)
template <class T, int N>
Array<T, N> cut(const Array<T, N>& a, int k, index_t lo, index_t hi) {
  Array<T, N> s = a;
  s.data = a.data + lo * a.strides[k];
  s.shape[k] = hi - lo;
  return s;
}

}  // namespace ep::threads
#endif
