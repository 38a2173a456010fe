// Full reductions fused with the element-wise expression they consume:
// np.sum(np.log(x)) never writes the log array. Float sums replay NumPy's pairwise
// summation over the generated values, so results are bit-identical to summing the
// materialised array; anything else (strided operands, complex) materialises first.
#pragma once

#include "map.hpp"
#include "ops/reduce.hpp"

namespace ep {

// NumPy's pairwise_sum with a generator instead of a pointer (same splits, same order).
template <class R, class G>
R pairwise_gen(G& g, index_t lo, index_t n) {
  if (n < 8) {
    R res = R(0);
    for (index_t i = 0; i < n; ++i) res += g(lo + i);
    return res;
  }
  if (n <= 128) {
    R r[8];
    for (int k = 0; k < 8; ++k) r[k] = g(lo + k);
    index_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int k = 0; k < 8; ++k) r[k] += g(lo + i + k);
    R res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += g(lo + i);
    return res;
  }
  index_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_gen<R>(g, lo, n2) + pairwise_gen<R>(g, lo + n2, n - n2);
}

// sum of f over the broadcast operands; E is the expression's element dtype, R the sum's.
template <class R, class E, int N, class F, class... Ops>
R fused_sum_all(F f, const Ops&... ops) {
  auto shape = broadcast_shape<N>(ops...);
  if constexpr (std::is_floating_point_v<R> || (std::is_integral_v<R> && !std::is_same_v<R, bool>)) {
    if ((same_contiguous<Ops, N>(ops, shape) && ...)) {
      index_t n = 1;
      for (int k = 0; k < N; ++k) n *= shape[k];
      auto g = [&](index_t i) { return static_cast<R>(static_cast<E>(f(flat_get(ops, i)...))); };
      if constexpr (std::is_floating_point_v<R>) {
        return R(0) + pairwise_gen<R>(g, 0, n);  // as red::Sum: 0 + pairwise (so -0.0 sums to 0.0)
      } else {  // integer sums are exact in any order
        R acc = R(0);
        for (index_t i = 0; i < n; ++i) acc += g(i);
        return acc;
      }
    }
  }
  return sum_all<R>(map<E, N>(f, ops...));
}

}  // namespace ep
