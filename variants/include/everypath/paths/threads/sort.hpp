// The threads path of np.sort / ndarray.sort / np.argsort. Many lanes along the
// axis: lanes are shared out and each is sorted by the loops kernels
// (ord::sort_buf, ord::argsort_lane). One long lane: NaNs go to the end first
// (as on the loops path), then one chunk per thread is sorted by the loops
// kernel and the sorted runs are merged pairwise, every merge split across
// the team by merge-path co-ranks. Merges take the left run first on ties, so
// stable chunk sorts give a stable sort. argsort sorts (key, index) items and
// breaks key ties by index: a total order, so the result is NumPy's stable order
// exactly, whatever the chunking.
#pragma once

#include <memory>
#include <vector>

#include "../../ops/sort.hpp"
#include "lanes.hpp"

#if defined(EP_HAVE_THREADS)

namespace ep::threads {
namespace psort {

inline constexpr index_t kMinSort = index_t(1) << 14;  // per thread: below this one core sorts faster

// how many of A[0, na) are among the first k items of the stable merge of A and B
template <class T, class Less>
index_t co_rank(index_t k, const T* A, index_t na, const T* B, index_t nb, Less lt) {
  index_t lo = std::max<index_t>(0, k - nb), hi = std::min(k, na);
  while (lo < hi) {
    const index_t i = lo + (hi - lo) / 2;
    if (!lt(B[k - i - 1], A[i])) lo = i + 1;  // A[i] goes before B[k - i - 1]: more of A
    else hi = i;
  }
  return lo;
}

// out[0, na + nb) = the stable merge of the sorted runs A and B, nt threads
template <class T, class Less>
void merge(const T* A, index_t na, const T* B, index_t nb, T* out, int nt, Less lt) {
  const index_t total = na + nb;
  parallel_ranges(total, nt, [&](int, index_t k0, index_t k1) {
    const index_t i0 = co_rank(k0, A, na, B, nb, lt), i1 = co_rank(k1, A, na, B, nb, lt);
    std::merge(A + i0, A + i1, B + (k0 - i0), B + (k1 - i1), out + k0, lt);
  });
}

// p[0, n): one chunk per thread sorted by sort_chunk(ptr, len), then merged in rounds
template <class T, class SortChunk, class Less>
void chunk_sort(T* p, index_t n, int nt, SortChunk sort_chunk, Less lt) {
  std::vector<index_t> b(static_cast<size_t>(nt) + 1);
  for (int t = 0; t <= nt; ++t) b[static_cast<size_t>(t)] = n * t / nt;
  parallel_ranges(n, nt, [&](int, index_t lo, index_t hi) { sort_chunk(p + lo, hi - lo); });
  std::unique_ptr<T[]> tmp(new T[static_cast<size_t>(n)]);
  T* src = p;
  T* dst = tmp.get();
  while (b.size() > 2) {
    std::vector<index_t> nb{0};
    for (size_t r = 0; r + 1 < b.size(); r += 2) {
      if (r + 2 < b.size()) {
        merge(src + b[r], b[r + 1] - b[r], src + b[r + 1], b[r + 2] - b[r + 1], dst + b[r], nt, lt);
        nb.push_back(b[r + 2]);
      } else {
        std::copy(src + b[r], src + b[r + 1], dst + b[r]);
        nb.push_back(b[r + 1]);
      }
    }
    std::swap(src, dst);
    b.swap(nb);
  }
  if (src != p)
    parallel_ranges(n, nt, [&](int, index_t lo, index_t hi) { std::copy(src + lo, src + hi, p + lo); });
}

// the threads worth using for one lane of n elements
inline int lane_team(index_t n) { return team(n / kMinSort); }

// value sort of a contiguous buffer, NumPy's order (NaNs last)
template <bool Stable, class T>
void sort_buf(T* p, index_t n) {
  const int nt = lane_team(n);
  if (nt < 2) return ord::sort_buf<Stable>(p, n);
  index_t good = n;
  if constexpr (std::is_floating_point_v<T>) {
    for (index_t i = 0; i < n; ++i)
      if (p[i] != p[i]) {
        good = ord::nan_to_end<Stable>(p, n);
        break;
      }
  }
  if (lane_team(good) < 2) return ord::sort_buf<Stable>(p, good);
  chunk_sort(p, good, lane_team(good), [](T* q, index_t m) { ord::sort_buf<Stable>(q, m); }, ord::Less<T>{});
}

// stable argsort of the n values at p[0], p[s], ... into out[0, n) (contiguous)
template <class T>
void argsort_long(const T* p, index_t s, index_t n, int64_t* out) {
  if constexpr (ord::radixable_v<T>) {
    if (n < (index_t(1) << 32)) {
      using K = typename ord::uint_of<sizeof(T)>::type;
      struct Item {
        K k;
        uint32_t i;
      };
      std::unique_ptr<Item[]> a(new Item[static_cast<size_t>(n)]);
      index_t m = 0;
      for (index_t i = 0; i < n; ++i) {
        const T x = p[i * s];
        if (x == x) a[m++] = {ord::radix_key(x), static_cast<uint32_t>(i)};
      }
      auto by_key = [](const Item& x, const Item& y) { return x.k < y.k || (x.k == y.k && x.i < y.i); };
      auto radix = [](Item* q, index_t len) {  // stable: ties stay in index order
        std::unique_ptr<Item[]> tmp(new Item[static_cast<size_t>(len)]);
        ord::radix_sort(q, tmp.get(), len, [](const Item& x) { return x.k; });
      };
      if (m > 0) chunk_sort(a.get(), m, std::max(2, lane_team(m)), radix, by_key);
      for (index_t j = 0; j < m; ++j) out[j] = a[j].i;
      for (index_t i = 0; i < n && m < n; ++i)
        if (p[i * s] != p[i * s]) out[m++] = i;  // NaNs last, in index order
      return;
    }
  }
  std::vector<ord::KI<T>> buf;
  const index_t good = ord::load_pairs(p, s, n, buf);
  if (good > 0)
    chunk_sort(buf.data(), good, std::max(2, lane_team(good)),
               [](ord::KI<T>* q, index_t m) { std::sort(q, q + m, ord::KILess<T>{}); }, ord::KILess<T>{});
  for (index_t j = 0; j < n; ++j) out[j] = buf[static_cast<size_t>(j)].i;
}

}  // namespace psort

// ---- np.sort / ndarray.sort ------------------------------------------------------
template <int Axis, bool Stable, class T, int N>
void sort_inplace(const Array<T, N>& a) {
  if constexpr (N == 0) {
    return;
  } else {
    const index_t n = a.shape[Axis], s = a.strides[Axis];
    const LaneSpace<N> ls = lanes<Axis, N>(a.shape, a.strides, a.strides);
    const int P = team(a.size() / psort::kMinSort);
    if (P < 2 || n < 2) return ep::sort_inplace<Axis, Stable>(a);
    if (ls.count >= 2 * P) {  // lanes in parallel, each by the loops kernel
      parallel_ranges(ls.count, std::min(P, team(ls.count)), [&](int, index_t lo, index_t hi) {
        std::unique_ptr<T[]> buf(s == 1 ? nullptr : new T[static_cast<size_t>(n)]);
        for (index_t q = lo; q < hi; ++q) {
          T* p = a.data + ls.at(q).first;
          if (s == 1) {
            ord::sort_buf<Stable>(p, n);
            continue;
          }
          for (index_t i = 0; i < n; ++i) buf[i] = p[i * s];
          ord::sort_buf<Stable>(buf.get(), n);
          for (index_t i = 0; i < n; ++i) p[i * s] = buf[i];
        }
      });
      return;
    }
    std::unique_ptr<T[]> buf(s == 1 ? nullptr : new T[static_cast<size_t>(n)]);
    for (index_t q = 0; q < ls.count; ++q) {  // few long lanes: each sorted by the whole team
      T* p = a.data + ls.at(q).first;
      if (s == 1) {
        psort::sort_buf<Stable>(p, n);
        continue;
      }
      for (index_t i = 0; i < n; ++i) buf[i] = p[i * s];
      psort::sort_buf<Stable>(buf.get(), n);
      for (index_t i = 0; i < n; ++i) p[i * s] = buf[i];
    }
  }
}

template <int Axis, bool Stable, class T, int N>
auto sort(const Array<T, N>& a) {
  if constexpr (Axis < 0) {
    Array<T, 1> out = flat_copy(a);
    psort::sort_buf<Stable>(out.data, out.shape[0]);
    return out;
  } else {
    Array<T, N> out = copy(a);
    threads::sort_inplace<Axis, Stable>(out);
    return out;
  }
}

// ---- np.argsort (always stable, as on the loops path) -------------------------------
template <int Axis, class T, int N>
auto argsort(const Array<T, N>& a) {
  if constexpr (Axis < 0) {
    Array<T, 1> f = flat_view(a);
    return threads::argsort<0>(f);
  } else {
    const int P = team(a.size() / psort::kMinSort);
    if (P < 2) return ep::argsort<Axis>(a);
    Array<int64_t, N> out = empty<int64_t, N>(a.shape);
    const index_t n = a.shape[Axis], sa = a.strides[Axis], so = out.strides[Axis];
    const LaneSpace<N> ls = lanes<Axis, N>(a.shape, a.strides, out.strides);
    if (ls.count >= 2 * P) {
      parallel_ranges(ls.count, std::min(P, team(ls.count)), [&](int, index_t lo, index_t hi) {
        std::vector<ord::KI<T>> buf;
        for (index_t q = lo; q < hi; ++q) {
          const auto [ia, io] = ls.at(q);
          ord::argsort_lane(a.data + ia, sa, n, out.data + io, so, buf);
        }
      });
      return out;
    }
    std::unique_ptr<int64_t[]> tmp(so == 1 ? nullptr : new int64_t[static_cast<size_t>(n)]);
    for (index_t q = 0; q < ls.count; ++q) {
      const auto [ia, io] = ls.at(q);
      int64_t* o = so == 1 ? out.data + io : tmp.get();
      psort::argsort_long(a.data + ia, sa, n, o);
      if (so != 1)
        for (index_t j = 0; j < n; ++j) out.data[io + j * so] = tmp[j];
    }
    return out;
  }
}

}  // namespace ep::threads
#endif
