// torch sorting and searching on tensors (variants/ops/torch_search.py): argmax/argmin, cumsum, sort,
// argsort, topk, with torch's order, dtypes and messages.
//   order   ascending puts NaN after every number, descending before (torch's comparators); equal
//           values keep their input order (stable), which is torch's stable=True order and one of the
//           orders stable=False allows (torch leaves ties unspecified there, and topk's too)
//   argmax  the first maximum; a NaN is the maximum (and the minimum): the first NaN wins
//   cumsum  accumulates in double for floating results, as ATen's CPU kernel (acc_type) does
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "reduce.hpp"
#include "torch_nn.hpp"

namespace ep {
namespace tch {

template <class T>
inline bool nan_of(T v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else return false;
}

// strict weak orders of torch's sort: Desc=false ascending (NaN last), Desc=true descending (NaN first)
template <bool Desc, class T>
inline bool before(T a, T b) {
  if constexpr (Desc) return (nan_of(a) && !nan_of(b)) || a > b;
  else return (!nan_of(a) && nan_of(b)) || a < b;
}

// the shape of a result along D: size k there, or the dim dropped (Keep=false, M == N - 1)
template <int M, int N>
inline std::array<index_t, M> with_dim(const std::array<index_t, N>& shape, int d, index_t k, bool keep) {
  std::array<index_t, M> out{};
  int j = 0;
  for (int i = 0; i < N; ++i) {
    if (i == d && !keep) continue;
    if (j < M) out[j++] = i == d ? k : shape[i];
  }
  for (; j < M; ++j) out[j] = 1;  // dim=None, keepdim=True: every dim kept as 1
  return out;
}

template <int D, class T, int N>
inline index_t dim_len(const Array<T, N>& x) {
  if constexpr (N == 0) return 1;  // a 0-d tensor sorts and searches as one element along dim 0 or -1
  else return x.shape[D];
}

// ---- argmax / argmin: D = -1 is dim=None (the flattened tensor) ---------------------------------
template <bool Max, class T>
inline bool better(T v, T best) {
  if (nan_of(best)) return false;
  if (nan_of(v)) return true;
  return Max ? v > best : v < best;
}

template <bool Max, int D, bool Keep, int M, class T, int N>
Array<int64_t, M> argext(const Array<T, N>& x) {
  const char* name = Max ? "argmax()" : "argmin()";
  const Array<T, N> xc = la::contiguous_as<T>(x);
  if constexpr (D < 0) {
    if (xc.size() == 0)
      raise("IndexError", std::string(name) + ": Expected reduction dim to be specified for input.numel() == 0.");
    index_t best = 0;
    if constexpr (red::argreduce_lanes_v<T>) {
      best = red::arg_row<Max>(xc.data, xc.size(), 1);  // torch's rule is NumPy's: first extreme, first NaN
    } else {
      for (index_t i = 1; i < xc.size(); ++i)
        if (better<Max>(xc.data[i], xc.data[best])) best = i;
    }
    return ep::full<int64_t, M>(with_dim<M, 0>({}, -1, 1, true), static_cast<int64_t>(best));
  } else {
    index_t outer, len, inner;
    split_dims<D, N>(xc.shape, outer, len, inner);
    if (len == 0)
      raise("IndexError", std::string(name) + ": Expected reduction dim " + std::to_string(D) +
                              " to have non-zero size.");
    Array<int64_t, M> out = ep::empty<int64_t, M>(with_dim<M, N>(xc.shape, N ? D : -1, 1, Keep));
    for (index_t o = 0; o < outer; ++o)
      for (index_t i = 0; i < inner; ++i) {
        const T* p = xc.data + o * len * inner + i;
        index_t best = 0;
        if constexpr (red::argreduce_lanes_v<T>) {
          best = red::arg_row<Max>(p, len, inner);
        } else {
          for (index_t j = 1; j < len; ++j)
            if (better<Max>(p[j * inner], p[best * inner])) best = j;
        }
        out.data[o * inner + i] = static_cast<int64_t>(best);
      }
    return out;
  }
}

// ---- cumsum along D, in the result dtype R ------------------------------------------------------
template <class R, int D, class T, int N>
Array<R, N> cumsum(const Array<T, N>& x) {
  const Array<R, N> xc = la::contiguous_as<R>(x);
  Array<R, N> out = ep::empty<R, N>(x.shape);
  index_t outer, len, inner;
  split_dims<D, N>(x.shape, outer, len, inner);
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      const R* p = xc.data + o * len * inner + i;
      R* q = out.data + o * len * inner + i;
      acc_t<R> s = 0;
      for (index_t j = 0; j < len; ++j) {
        s = static_cast<acc_t<R>>(s + static_cast<acc_t<R>>(p[j * inner]));
        q[j * inner] = static_cast<R>(s);
      }
    }
  return out;
}

// ---- sort / argsort / topk along D --------------------------------------------------------------
// Rows along D of the contiguous input, their first k in torch's order (stable): values and indices.
template <bool Desc, int D, class T, int N>
std::tuple<Array<T, N>, Array<int64_t, N>> ordered(const Array<T, N>& x, index_t k, bool full) {
  const Array<T, N> xc = la::contiguous_as<T>(x);
  index_t outer, len, inner;
  split_dims<D, N>(xc.shape, outer, len, inner);
  const auto shape = with_dim<N, N>(xc.shape, N ? D : -1, k, true);
  Array<T, N> vals = ep::empty<T, N>(shape);
  Array<int64_t, N> idx = ep::empty<int64_t, N>(shape);
  std::vector<index_t> order(static_cast<size_t>(len));
  for (index_t o = 0; o < outer; ++o)
    for (index_t i = 0; i < inner; ++i) {
      const T* p = xc.data + o * len * inner + i;
      std::iota(order.begin(), order.end(), index_t(0));
      auto cmp = [&](index_t a, index_t b) {
        const T va = p[a * inner], vb = p[b * inner];
        return before<Desc>(va, vb) || (!before<Desc>(vb, va) && a < b);  // ties by position: stable
      };
      if (full) std::stable_sort(order.begin(), order.end(), cmp);
      else std::partial_sort(order.begin(), order.begin() + k, order.end(), cmp);
      T* v = vals.data + o * k * inner + i;
      int64_t* q = idx.data + o * k * inner + i;
      for (index_t j = 0; j < k; ++j) {
        v[j * inner] = p[order[j] * inner];
        q[j * inner] = static_cast<int64_t>(order[j]);
      }
    }
  return {vals, idx};
}

template <int D, bool Desc, class T, int N>
std::tuple<Array<T, N>, Array<int64_t, N>> sort(const Array<T, N>& x) {
  return ordered<Desc, D>(x, dim_len<D>(x), true);
}

template <int D, bool Desc, class T, int N>
Array<int64_t, N> argsort(const Array<T, N>& x) {
  return std::get<1>(sort<D, Desc>(x));
}

template <int D, bool Largest, class T, int N, class K>
std::tuple<Array<T, N>, Array<int64_t, N>> topk(const Array<T, N>& x, K k) {
  const index_t len = dim_len<D>(x);
  if (k < 0 || static_cast<index_t>(k) > len) raise("RuntimeError", "selected index k out of range");
  return ordered<Largest, D>(x, static_cast<index_t>(k), false);
}

}  // namespace tch
}  // namespace ep
