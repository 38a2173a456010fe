// Generator.choice, Generator.permutation and Generator.shuffle as numpy/random/
// _generator.pyx: Fisher-Yates from the back with random_interval (masked rejection)
// for shuffle/permutation; choice draws integers (or searchsorted of the normalised
// cumulative p over random()) with replacement, Floyd's algorithm or a tail shuffle
// (random_bounded_uint64, Lemire) without.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "random_core.hpp"
#include "random_ints.hpp"

namespace ep {
namespace rnd {

// random_interval: a uniform value in [0, max] by masked rejection.
inline uint64_t random_interval(PCG64& g, uint64_t max) {
  if (max == 0) return 0;
  const uint64_t mask = gen_mask(max);
  uint64_t value;
  if (max <= 0xffffffffull) {
    while ((value = (g.next32() & mask)) > max) {
    }
  } else {
    while ((value = (g.next64() & mask)) > max) {
    }
  }
  return value;
}

// Row `i` of a (axis 0) as a view.
template <class T, int N>
Array<T, N - 1> row(const Array<T, N>& a, index_t i) {
  Array<T, N - 1> r;
  r.data = a.data + i * a.strides[0];
  for (int k = 1; k < N; ++k) {
    r.shape[k - 1] = a.shape[k];
    r.strides[k - 1] = a.strides[k];
  }
  return r;
}

// _shuffle_int: swaps from the back down to `first`, drawing with random_bounded_uint64.
inline void shuffle_int(PCG64& g, index_t n, index_t first, int64_t* data) {
  for (index_t i = n - 1; i >= first; --i) {
    const index_t j = static_cast<index_t>(bounded_uint64(g, 0, static_cast<uint64_t>(i)));
    std::swap(data[i], data[j]);
  }
}

template <class P>
std::vector<double> as_doubles(const Array<P, 1>& p) {
  std::vector<double> out;
  for_each_offset(p, [&](index_t off) { out.push_back(static_cast<double>(p.data[off])); });
  return out;
}
template <class P>
std::vector<double> as_doubles(const List<P>& p) {
  std::vector<double> out;
  for (index_t i = 0; i < p.size(); ++i) out.push_back(static_cast<double>(static_cast<P>(p[i])));
  return out;
}

// choice's checks on p (in NumPy's order) and the cumulative distribution it samples.
inline std::vector<double> choice_cdf(std::vector<double> p, int64_t pop_size, double atol) {
  if (static_cast<int64_t>(p.size()) != pop_size) raise("ValueError", "a and p must have same size");
  double sum = 0.0;  // kahan_sum of numpy/random/_common.pyx
  if (!p.empty()) {
    double c = 0.0;
    sum = p[0];
    for (size_t i = 1; i < p.size(); ++i) {
      const double y = p[i] - c;
      const double t = sum + y;
      c = (t - sum) - y;
      sum = t;
    }
  }
  if (std::isnan(sum)) raise("ValueError", "Probabilities contain NaN");
  for (double v : p)
    if (v < 0) raise("ValueError", "Probabilities are not non-negative");
  if (std::fabs(sum - 1.) > atol)
    raise("ValueError", "Probabilities do not sum to 1. See Notes section of docstring for more information.");
  for (size_t i = 1; i < p.size(); ++i) p[i] += p[i - 1];
  const double last = p.back();
  for (double& v : p) v /= last;
  return p;
}

// Floyd's algorithm (or a partial shuffle of the whole range when the sample is a large part
// of a large population): `size` distinct values of [0, pop_size).
inline void choice_distinct(PCG64& g, int64_t pop_size, int64_t size, bool shuffle, int64_t* out) {
  const int64_t cutoff = shuffle ? 50 : 20;
  if (pop_size > 10000 && size > pop_size / cutoff) {
    std::vector<int64_t> idx(static_cast<size_t>(pop_size));
    for (int64_t i = 0; i < pop_size; ++i) idx[static_cast<size_t>(i)] = i;
    shuffle_int(g, pop_size, std::max<int64_t>(pop_size - size, 1), idx.data());
    std::copy(idx.begin() + (pop_size - size), idx.end(), out);
    return;
  }
  const uint64_t mask = gen_mask(static_cast<uint64_t>(1.2 * static_cast<double>(size)));
  const uint64_t empty_slot = ~uint64_t(0);
  std::vector<uint64_t> hash_set(static_cast<size_t>(mask + 1), empty_slot);
  for (int64_t j = pop_size - size; j < pop_size; ++j) {
    const uint64_t val = bounded_uint64(g, 0, static_cast<uint64_t>(j));
    uint64_t loc = val & mask;
    while (hash_set[loc] != empty_slot && hash_set[loc] != val) loc = (loc + 1) & mask;
    if (hash_set[loc] == empty_slot) {  // val was not drawn before
      hash_set[loc] = val;
      out[j - pop_size + size] = static_cast<int64_t>(val);
    } else {  // it was: take j instead
      loc = static_cast<uint64_t>(j) & mask;
      while (hash_set[loc] != empty_slot) loc = (loc + 1) & mask;
      hash_set[loc] = static_cast<uint64_t>(j);
      out[j - pop_size + size] = j;
    }
  }
  if (shuffle) shuffle_int(g, size, 1, out);
}

}  // namespace rnd

// Generator.choice: the indices drawn into a (an int population or a 1-d array's length),
// shaped like `size` (rank 0 for size=None; `scalar` marks that case for the emptiness checks).
template <int N, class PA>
Array<int64_t, N> rng_choice_index(const Generator& g, int64_t pop_size, bool a_is_int, const PA& p, double atol,
                                   bool replace, bool shuffle, const std::array<index_t, N>& shape) {
  const index_t size = rnd::count<N>(shape);
  if (a_is_int && pop_size <= 0 && size != 0)
    raise("ValueError", "a must be a positive integer unless no samples are taken");
  if (!a_is_int && pop_size == 0 && size != 0) raise("ValueError", "a cannot be empty unless no samples are taken");
  constexpr bool has_p = !std::is_same_v<PA, None>;
  std::vector<double> cdf;
  if constexpr (has_p) cdf = rnd::choice_cdf(rnd::as_doubles(p), pop_size, atol);
  if (replace) {
    if constexpr (has_p) {
      Array<int64_t, N> idx = empty<int64_t, N>(shape);
      for (index_t i = 0; i < size; ++i) {
        const double u = g.bg().next_double();
        idx.data[i] = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();  // searchsorted(side='right')
      }
      return idx;
    } else {
      return rng_integers<int64_t, N>(g, int64_t(0), pop_size, false, "int64", shape);
    }
  }
  if (size > pop_size) raise("ValueError", "Cannot take a larger sample than population when replace is False");
  if (size < 0) raise("ValueError", "negative dimensions are not allowed");
  Array<int64_t, N> idx = empty<int64_t, N>(shape);
  rnd::choice_distinct(g.bg(), pop_size, size, shuffle, idx.data);
  return idx;
}

// a.take(idx) for a 1-d a.
template <class T, int N>
Array<T, N> rng_take(const Array<T, 1>& a, const Array<int64_t, N>& idx) {
  Array<T, N> out = empty<T, N>(idx.shape);
  const index_t n = out.size();
  for (index_t i = 0; i < n; ++i) out.data[i] = a.data[idx.data[i] * a.strides[0]];
  return out;
}

// Generator.shuffle(x): in place along axis 0.
template <class T, int N>
None rng_shuffle(const Generator& g, const Array<T, N>& x) {
  if (x.size() == 0) return None{};
  rnd::PCG64& bg = g.bg();
  for (index_t i = x.shape[0] - 1; i >= 1; --i) {
    const index_t j = static_cast<index_t>(rnd::random_interval(bg, static_cast<uint64_t>(i)));
    if constexpr (N == 1) {
      std::swap(x.data[i * x.strides[0]], x.data[j * x.strides[0]]);
    } else {
      if (i == j) continue;
      const Array<T, N - 1> ri = rnd::row(x, i), rj = rnd::row(x, j);
      for_each_offset(ri, [&](index_t off) { std::swap(ri.data[off], rj.data[off]); });
    }
  }
  return None{};
}

// Generator.permutation(n): np.arange(n) shuffled.
inline Array<int64_t, 1> rng_permutation_int(const Generator& g, int64_t n) {
  Array<int64_t, 1> out = empty<int64_t, 1>({std::max<int64_t>(n, 0)});
  for (int64_t i = 0; i < out.shape[0]; ++i) out.data[i] = i;
  rng_shuffle(g, out);
  return out;
}

// Generator.permutation(x): a shuffled copy of a 1-d array; rows of an n-d array taken in the
// order of a shuffled arange (NumPy draws for it even when the rows are empty).
template <class T, int N>
Array<T, N> rng_permutation(const Generator& g, const Array<T, N>& x) {
  if constexpr (N == 1) {
    Array<T, N> out = copy(x);
    rng_shuffle(g, out);
    return out;
  } else {
    const Array<int64_t, 1> idx = rng_permutation_int(g, x.shape[0]);
    Array<T, N> out = empty<T, N>(x.shape);
    T* d = out.data;
    for (index_t i = 0; i < x.shape[0]; ++i) {
      const Array<T, N - 1> r = rnd::row(x, idx.data[i]);
      for_each_offset(r, [&](index_t off) { *d++ = r.data[off]; });
    }
    return out;
  }
}

}  // namespace ep
