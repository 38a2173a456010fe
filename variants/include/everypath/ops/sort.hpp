// Sorting: np.sort / ndarray.sort, argsort, partition / argpartition, lexsort
// (sort_lex.hpp) and sort_complex, on NumPy's order and the per-lane kernels of
// sort_order.hpp, which searching and set operations share (search.hpp, setops.hpp).
//
// Speed: an array of many short lanes (up to net_max elements) is sorted by a
// vectorised sorting network, a block of lanes at a time (sort_net.hpp): this
// also serves partition / argpartition (a sorted lane is a valid partition) and
// argsort (keys with the index as tie-break: the stable order). A single lane,
// and lanes longer than net_max, take the per-lane kernels (radix sort from
// radix_min elements for 2-8 byte types, counting sort for 1-byte types).
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"
#include "sort_net.hpp"
#include "sort_order.hpp"

namespace ep {
namespace ord {
// whether blocks of W lanes pay off for `count` lanes of n elements (a block costs about
// as much as W / 4 lanes sorted one by one when short lanes mispredict every branch)
template <class T>
inline bool use_net(index_t n, index_t count) {
  return n >= 8 && n <= net_max && count * 4 >= net_width<T>;
}

// partition: nth_element wins over a full network sort from about 64 elements (measured)
inline constexpr index_t net_part_max = 32;

template <int Axis, class T, int N>
std::vector<index_t> lane_offsets(const Array<T, N>& a) {
  std::vector<index_t> off;
  off.reserve(static_cast<size_t>(a.shape[Axis] ? a.size() / a.shape[Axis] : 0));
  for_each_lane<Axis>(a, [&](index_t o) { off.push_back(o); });
  return off;
}

// All lanes of a along Axis sorted by networks (unstable for floats: -0.0 / 0.0 in any order).
template <int Axis, class T, int N>
void net_sort_all(const Array<T, N>& a) {
  const index_t n = a.shape[Axis];
  const std::vector<index_t> off = lane_offsets<Axis>(a);
  std::unique_ptr<T[]> x(new T[static_cast<size_t>(n * net_width<T>)]);
  net_sort_lanes(a.data, off.data(), static_cast<index_t>(off.size()), n, a.strides[Axis], net_pairs(n), x.get());
}

// Stable argsort of every lane of a along Axis into out, by networks.
template <int Axis, class T, int N>
void net_argsort_all(const Array<T, N>& a, const Array<int64_t, N>& out) {
  const index_t n = a.shape[Axis];
  std::vector<index_t> ia, io;
  for_each_lane2<Axis>(a, out, [&](index_t x, index_t y) { ia.push_back(x), io.push_back(y); });
  net_argsort_lanes(a.data, ia.data(), a.strides[Axis], out.data, io.data(), out.strides[Axis],
                    static_cast<index_t>(ia.size()), n, net_pairs(n));
}
}  // namespace ord

// ---- np.sort / ndarray.sort -----------------------------------------------------------
template <int Axis, bool Stable, class T, int N>
void sort_inplace(const Array<T, N>& a) {
  const index_t n = a.shape[Axis], s = a.strides[Axis];
  if (n < 2) return;
  // stable float sorts keep -0.0 / 0.0 in input order, which networks do not
  if constexpr (ord::net_value_v<T> && !(Stable && std::is_floating_point_v<T>)) {
    if (ord::use_net<T>(n, a.size() / n)) return ord::net_sort_all<Axis>(a);
  }
  std::unique_ptr<T[]> buf(s == 1 ? nullptr : new T[static_cast<size_t>(n)]);
  ord::for_each_lane<Axis>(a, [&](index_t off) {
    T* p = a.data + off;
    if (s == 1) {
      ord::sort_buf<Stable>(p, n);
      return;
    }
    for (index_t i = 0; i < n; ++i) buf[i] = p[i * s];
    ord::sort_buf<Stable>(buf.get(), n);
    for (index_t i = 0; i < n; ++i) p[i * s] = buf[i];
  });
}

// Axis < 0: axis=None (the flattened array)
template <int Axis, bool Stable, class T, int N>
auto sort(const Array<T, N>& a) {
  if constexpr (Axis < 0) {
    Array<T, 1> out = flat_copy(a);
    ord::sort_buf<Stable>(out.data, out.shape[0]);
    return out;
  } else {
    Array<T, N> out = copy(a);
    sort_inplace<Axis, Stable>(out);
    return out;
  }
}

// ---- np.argsort -------------------------------------------------------------------------
template <int Axis, class T, int N>
auto argsort(const Array<T, N>& a) {
  if constexpr (Axis < 0) {
    Array<T, 1> f = flat_view(a);
    return argsort<0>(f);
  } else {
    Array<int64_t, N> out = empty<int64_t, N>(a.shape);
    const index_t n = a.shape[Axis];
    if constexpr (ord::net_arg_v<T>) {
      if (n > 0 && ord::use_net<T>(n, a.size() / n)) {
        ord::net_argsort_all<Axis>(a, out);
        return out;
      }
    }
    std::vector<ord::KI<T>> buf;
    ord::for_each_lane2<Axis>(a, out, [&](index_t ia, index_t io) {
      ord::argsort_lane(a.data + ia, a.strides[Axis], n, out.data + io, out.strides[Axis], buf);
    });
    return out;
  }
}

// ---- partition / argpartition ---------------------------------------------------------
namespace ord {
template <class K>
void kth_values(const K& k, std::vector<index_t>& out) {
  if constexpr (std::is_arithmetic_v<K>) {
    out.push_back(static_cast<index_t>(k));
  } else if constexpr (is_std_tuple_v<K>) {
    std::apply([&](const auto&... x) { (out.push_back(static_cast<index_t>(x)), ...); }, k);
  } else if constexpr (is_list<K>::value) {
    for (index_t i = 0; i < k.size(); ++i) out.push_back(static_cast<index_t>(k[i]));
  } else {
    for_each_offset(k, [&](index_t off) { out.push_back(static_cast<index_t>(k.data[off])); });
  }
}

// kth normalised against a lane length n (NumPy's checks and message), sorted
template <class K>
std::vector<index_t> kths(const K& k, index_t n, bool any) {
  std::vector<index_t> v;
  kth_values(k, v);
  for (auto& x : v) {
    if (x < 0) x += n;
    if (any && (x < 0 || x >= n))
      raise("ValueError", "kth(=" + std::to_string(x) + ") out of bounds (" + std::to_string(n) + ")");
  }
  std::sort(v.begin(), v.end());
  return v;
}

// Partition [0, good) so that each kth (below good) is in its sorted place.
template <class It, class Cmp>
void multi_select(It first, index_t good, const std::vector<index_t>& kth, Cmp cmp) {
  index_t lo = 0;
  for (index_t k : kth) {
    if (k >= good) break;  // in the NaN tail: already in place
    if (k < lo) continue;  // repeated kth
    std::nth_element(first + lo, first + k, first + good, cmp);
    lo = k + 1;
  }
}
}  // namespace ord

template <int Axis, class T, int N, class K>
void partition_inplace(const Array<T, N>& a, const K& kth) {
  const index_t n = a.shape[Axis], s = a.strides[Axis];
  const std::vector<index_t> ks = ord::kths(kth, n, a.size() != 0);
  if (n < 2) return;
  if constexpr (ord::net_value_v<T>) {  // short lanes: sorted is partitioned
    if (n <= ord::net_part_max && ord::use_net<T>(n, a.size() / n)) return ord::net_sort_all<Axis>(a);
  }
  std::unique_ptr<T[]> buf(new T[static_cast<size_t>(n)]);
  ord::for_each_lane<Axis>(a, [&](index_t off) {
    T* p = a.data + off;
    for (index_t i = 0; i < n; ++i) buf[i] = p[i * s];
    index_t good = n;
    if constexpr (std::is_floating_point_v<T>) {
      good = ord::nan_to_end(buf.get(), n);
      ord::multi_select(buf.get(), good, ks, std::less<T>{});
    } else {
      ord::multi_select(buf.get(), good, ks, ord::Less<T>{});
    }
    for (index_t i = 0; i < n; ++i) p[i * s] = buf[i];
  });
}

template <int Axis, class T, int N, class K>
auto partition(const Array<T, N>& a, const K& kth) {
  if constexpr (Axis < 0) {
    Array<T, 1> out = flat_copy(a);
    partition_inplace<0>(out, kth);
    return out;
  } else {
    Array<T, N> out = copy(a);
    partition_inplace<Axis>(out, kth);
    return out;
  }
}

template <int Axis, class T, int N, class K>
auto argpartition(const Array<T, N>& a, const K& kth) {
  if constexpr (Axis < 0) {
    Array<T, 1> f = flat_view(a);
    return argpartition<0>(f, kth);
  } else {
    const index_t n = a.shape[Axis];
    const std::vector<index_t> ks = ord::kths(kth, n, a.size() != 0);
    Array<int64_t, N> out = empty<int64_t, N>(a.shape);
    if constexpr (ord::net_arg_v<T>) {  // short lanes: a stable argsort is a valid argpartition
      if (n > 0 && n <= ord::net_part_max && ord::use_net<T>(n, a.size() / n)) {
        ord::net_argsort_all<Axis>(a, out);
        return out;
      }
    }
    std::vector<ord::KI<T>> buf;
    ord::for_each_lane2<Axis>(a, out, [&](index_t ia, index_t io) {
      const index_t good = ord::load_pairs(a.data + ia, a.strides[Axis], n, buf);
      ord::multi_select(buf.begin(), good, ks, ord::KILess<T>{});
      for (index_t j = 0; j < n; ++j) out.data[io + j * out.strides[Axis]] = buf[j].i;
    });
    return out;
  }
}

// ---- np.sort_complex --------------------------------------------------------------------
template <class R, class T, int N>
Array<R, N> sort_complex(const Array<T, N>& a) {
  Array<R, N> out = astype<R>(a);
  sort_inplace<N - 1, false>(out);
  return out;
}

}  // namespace ep

#include "sort_lex.hpp"
