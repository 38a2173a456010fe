// What NumPy builds on the SVD and LU: lstsq, pinv, matrix_rank, cond, plus
// matrix_power and multi_dot (products in NumPy's order, via linalg.hpp).
#pragma once

#include "../linalg.hpp"
#include "lu.hpp"
#include "svd.hpp"

namespace ep {
namespace dec {

// x = V diag(1/s) U^H b over the singular values above the cutoff
template <class S>
Mat<S> svd_apply_pinv(const SVD<S>& d, const Mat<S>& b, double cutoff, index_t& rank) {
  const index_t k = static_cast<index_t>(d.s.size());
  const index_t n = d.vh.c, nrhs = b.c;
  rank = 0;
  Mat<S> x(n, nrhs);
  for (index_t q = 0; q < k; ++q) {
    const double sq = d.s[static_cast<size_t>(q)];
    if (!(sq > cutoff)) continue;
    ++rank;
    for (index_t c = 0; c < nrhs; ++c) {
      S acc = S(0);
      for (index_t r = 0; r < d.u.r; ++r) acc += conj_(d.u(r, q)) * b(r, c);
      acc /= sq;
      for (index_t i = 0; i < n; ++i) x(i, c) += conj_(d.vh(q, i)) * acc;
    }
  }
  return x;
}

template <class S>
double max_of(const std::vector<double>& s) {
  double m = 0.0;
  for (double v : s) m = std::max(m, v);
  return m;
}

}  // namespace dec

// np.linalg.lstsq(a, b, rcond): (x, residuals, rank, s); rcond=None (is_default) is
// eps * max(M, N), a negative rcond means machine precision (LAPACK gelsd)
template <class R, class TA, class TB, int NB>
auto linalg_lstsq(const Array<TA, 2>& a, const Array<TB, NB>& b, double rcond, bool is_default) {
  static_assert(NB == 1 || NB == 2, "lstsq: b must be 1-d or 2-d");
  using S = dec::work_t<R>;
  using RR = dec::real_t<R>;
  const index_t m = a.shape[0], n = a.shape[1];
  if (b.shape[0] != m) dec::linalg_error("Incompatible dimensions");
  const index_t nrhs = NB == 1 ? 1 : b.shape[1];
  const dec::Mat<S> am = dec::load<S>(a, 0);
  const dec::Mat<S> bm = NB == 1 ? dec::load_col<S>(b, 0) : dec::load<S>(b, 0);
  const dec::SVD<S> d = dec::svd_one(am, true, false);
  if (is_default) rcond = std::numeric_limits<double>::epsilon() * static_cast<double>(std::max(m, n));
  else if (rcond < 0) rcond = std::numeric_limits<double>::epsilon();
  index_t rank = 0;
  const dec::Mat<S> x = dec::svd_apply_pinv(d, bm, rcond * dec::max_of<S>(d.s), rank);
  std::array<index_t, NB> xs{};
  xs[0] = n;
  if constexpr (NB == 2) xs[1] = nrhs;
  Array<R, NB> xo = empty<R, NB>(xs);
  dec::store(x, xo.data);
  const bool resid = rank == n && m > n;
  Array<RR, 1> res = empty<RR, 1>({resid ? nrhs : 0});
  if (resid) {
    const dec::Mat<S> ax = dec::mat_mul(am, x);
    for (index_t c = 0; c < nrhs; ++c) {
      double acc = 0.0;
      for (index_t r = 0; r < m; ++r) acc += dec::abs2(bm(r, c) - ax(r, c));
      res.data[c] = static_cast<RR>(acc);
    }
  }
  const index_t k = static_cast<index_t>(d.s.size());
  Array<RR, 1> s = empty<RR, 1>({k});
  for (index_t q = 0; q < k; ++q) s.data[q] = static_cast<RR>(d.s[static_cast<size_t>(q)]);
  return std::make_tuple(xo, res, static_cast<int32_t>(rank), s);
}

// np.linalg.pinv(a, rcond): V diag(1/s) U^H, singular values <= rcond * max(s) dropped;
// per_dim > 0 (rtol=None): rcond = per_dim * max(M, N)
template <class R, class T, int N>
Array<R, N> linalg_pinv(const Array<T, N>& a, double rcond, double per_dim) {
  using S = dec::work_t<R>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1];
  if (per_dim > 0) rcond = per_dim * static_cast<double>(std::max(m, n));
  Array<R, N> out = empty<R, N>(dec::with_core<N>(a, {n, m}));
  if (m == 0 || n == 0) return out;
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) {
    const dec::SVD<S> d = dec::svd_one(dec::load<S>(a, offs[t]), true, false);
    index_t rank = 0;
    dec::store(dec::svd_apply_pinv(d, dec::Mat<S>::eye(m, m), rcond * dec::max_of<S>(d.s), rank),
               out.data + t * n * m);
  }
  return out;
}

// np.linalg.matrix_rank(A, tol): singular values (in the result precision RR) above
// tol, by default S.max() * max(M, N) * eps(RR)
template <class RR, class T, int N>
auto linalg_matrix_rank(const Array<T, N>& a, double tol, bool default_tol) {
  if constexpr (N < 2) {
    bool any = false;
    for_each_offset(a, [&](index_t off) { any = any || a.data[off] != T(0); });
    return static_cast<int64_t>(any);
  } else {
    using S = std::conditional_t<is_complex_v<T>, dec::cd, double>;
    const index_t m = a.shape[N - 2], n = a.shape[N - 1];
    const auto offs = dec::stack_offsets(a, 2);
    std::vector<int64_t> ranks;
    for (index_t off : offs) {
      const dec::SVD<S> d = dec::svd_one(dec::load<S>(a, off), false, false);
      RR smax = RR(0);
      for (double v : d.s) smax = std::max(smax, static_cast<RR>(v));
      const RR rt = static_cast<RR>(std::max(m, n)) * std::numeric_limits<RR>::epsilon();
      const double cut = default_tol ? static_cast<double>(static_cast<RR>(smax * rt)) : tol;
      int64_t r = 0;
      for (double v : d.s) r += static_cast<double>(static_cast<RR>(v)) > cut;
      ranks.push_back(r);
    }
    return dec::per_matrix_result<int64_t, N - 2>(ranks, a.shape.data());
  }
}

// np.linalg.cond(x, p); p: 0 None/2, 1 -2, 2 'fro', 3 'nuc', 4 inf, 5 -inf, 6 1, 7 -1
template <class RR, int P, class T, int N>
auto linalg_cond(const Array<T, N>& a) {
  using S = std::conditional_t<is_complex_v<T>, dec::cd, double>;
  const index_t m = a.shape[N - 2], n = a.shape[N - 1];
  if (m * n == 0) dec::linalg_error("cond is not defined on empty arrays");
  if constexpr (P >= 2) dec::check_square(a);
  const auto offs = dec::stack_offsets(a, 2);
  std::vector<RR> out;
  auto mnorm = [](const dec::Mat<S>& x) -> double {
    if constexpr (P == 2) {
      double acc = 0.0;
      for (const S& v : x.v) acc += dec::abs2(v);
      return std::sqrt(acc);
    } else if constexpr (P == 3) {
      double acc = 0.0;
      for (double v : dec::svd_one(x, false, false).s) acc += v;
      return acc;
    } else {
      const bool rows = P == 4 || P == 5, want_max = P == 4 || P == 6;
      const index_t outer = rows ? x.r : x.c, inner = rows ? x.c : x.r;
      double best = want_max ? 0.0 : std::numeric_limits<double>::infinity();
      for (index_t i = 0; i < outer; ++i) {
        double acc = 0.0;
        for (index_t j = 0; j < inner; ++j) acc += dec::absv(rows ? x(i, j) : x(j, i));
        best = want_max ? std::max(best, acc) : std::min(best, acc);
      }
      return best;
    }
  };
  for (index_t off : offs) {
    const dec::Mat<S> x = dec::load<S>(a, off);
    bool has_nan = false;
    for (const S& v : x.v) has_nan = has_nan || std::isnan(dec::re(v)) || std::isnan(dec::im(v));
    RR r;
    if constexpr (P <= 1) {
      const auto s = dec::svd_one(x, false, false).s;
      const RR s0 = static_cast<RR>(s.front()), s1 = static_cast<RR>(s.back());
      r = P == 0 ? s0 / s1 : s1 / s0;
    } else {
      dec::Mat<S> lu = x;
      std::vector<index_t> piv;
      double nx = mnorm(x), ni;
      if (dec::lu_factor(lu, piv) != 0) {
        ni = std::numeric_limits<double>::quiet_NaN();
      } else {
        dec::Mat<S> e = dec::Mat<S>::eye(n, n);
        dec::lu_solve(lu, piv, e);
        ni = mnorm(e);
      }
      r = static_cast<RR>(nx * ni);
    }
    if (std::isnan(r) && !has_nan) r = std::numeric_limits<RR>::infinity();
    out.push_back(r);
  }
  return dec::per_matrix_result<RR, N - 2>(out, a.shape.data());
}

// np.linalg.matrix_power(a, n): NumPy's order of products (matmul)
template <class R, class T, int N>
Array<R, N> linalg_matrix_power(const Array<T, N>& a, int64_t n) {
  dec::check_square(a);
  if (n == 0) {
    Array<R, N> out = empty<R, N>(a.shape);
    const index_t m = a.shape[N - 1];
    for (index_t t = 0; t < out.size(); ++t) out.data[t] = (t / m) % m == t % m ? R(1) : R(0);
    return out;
  }
  Array<R, N> b;
  if (n < 0) {
    if constexpr (std::is_floating_point_v<R> || is_complex_v<R>) b = linalg_inv<R>(a);
    else raise("TypeError", "matrix_power: a negative power of an integer array needs a float result");
    n = -n;
  } else {
    if constexpr (std::is_same_v<R, T>) b = a;
    else b = as_dtype<R>(a);
  }
  if (n == 1) return b;
  if (n == 2) return matmul<R>(b, b);
  if (n == 3) return matmul<R>(matmul<R>(b, b), b);
  Array<R, N> z, result;
  bool have_z = false, have_r = false;
  while (n > 0) {
    z = have_z ? matmul<R>(z, z) : b;
    have_z = true;
    const bool bit = n % 2;
    n /= 2;
    if (bit) {
      result = have_r ? matmul<R>(result, z) : z;
      have_r = true;
    }
  }
  return result;
}

namespace dec {

// arrays of multi_dot as 2-d R arrays (1-d first: a row, 1-d last: a column)
template <class R, class T, int N>
Array<R, 2> chain_item(const Array<T, N>& x, bool first, bool last) {
  if constexpr (N == 1) {
    if (!first && !last) linalg_error("1-dimensional array given. Array must be two-dimensional");
    Array<R, 1> c = la::contiguous_as<R>(x);
    Array<R, 2> v;
    v.data = c.data;
    v.owner = c.owner;
    v.shape = first ? std::array<index_t, 2>{1, c.shape[0]} : std::array<index_t, 2>{c.shape[0], 1};
    v.strides = first ? std::array<index_t, 2>{0, 1} : std::array<index_t, 2>{1, 0};
    return v;
  } else if constexpr (N == 2) {
    return la::contiguous_as<R>(x);
  } else {
    linalg_error(std::to_string(N) + "-dimensional array given. Array must be two-dimensional");
  }
}

template <class R>
Array<R, 2> chain_product(const std::vector<Array<R, 2>>& a, const std::vector<index_t>& split, index_t n, index_t i,
                          index_t j) {
  if (i == j) return a[static_cast<size_t>(i)];
  const index_t k = split[static_cast<size_t>(i * n + j)];
  return dot<R>(chain_product(a, split, n, i, k), chain_product(a, split, n, k + 1, j));
}

}  // namespace dec

// np.linalg.multi_dot of three or more arrays (NF, NL: ranks of the first and last)
template <class R, int NF, int NL, class Seq>
auto linalg_multi_dot(const Seq& seq) {
  std::vector<Array<R, 2>> a;
  index_t count = 0;
  if constexpr (is_list<Seq>::value) count = seq.size();
  else count = static_cast<index_t>(std::tuple_size_v<Seq>);
  if (count < 2) raise("ValueError", "Expecting at least two arrays.");
  auto add = [&](const auto& x) {
    const index_t i = static_cast<index_t>(a.size());
    a.push_back(dec::chain_item<R>(x, i == 0, i == count - 1));
  };
  if constexpr (is_list<Seq>::value) {
    for (index_t i = 0; i < count; ++i) add(seq[i]);
  } else {
    std::apply([&](const auto&... xs) { (add(xs), ...); }, seq);
  }
  Array<R, 2> result;
  const index_t n = count;
  if (n == 2) {
    result = dot<R>(a[0], a[1]);
  } else if (n == 3) {
    const index_t a0 = a[0].shape[0], a1b0 = a[0].shape[1], b1c0 = a[2].shape[0], c1 = a[2].shape[1];
    const index_t cost1 = a0 * b1c0 * (a1b0 + c1), cost2 = a1b0 * c1 * (a0 + b1c0);
    result = cost1 < cost2 ? dot<R>(dot<R>(a[0], a[1]), a[2]) : dot<R>(a[0], dot<R>(a[1], a[2]));
  } else {
    std::vector<index_t> p;
    for (auto& x : a) p.push_back(x.shape[0]);
    p.push_back(a.back().shape[1]);
    std::vector<double> cost(static_cast<size_t>(n * n), 0.0);
    std::vector<index_t> split(static_cast<size_t>(n * n), 0);
    for (index_t l = 1; l < n; ++l)
      for (index_t i = 0; i < n - l; ++i) {
        const index_t j = i + l;
        double& best = cost[static_cast<size_t>(i * n + j)];
        best = std::numeric_limits<double>::infinity();
        for (index_t k = i; k < j; ++k) {
          const double q = cost[static_cast<size_t>(i * n + k)] + cost[static_cast<size_t>((k + 1) * n + j)] +
                           static_cast<double>(p[i] * p[k + 1] * p[j + 1]);
          if (q < best) best = q, split[static_cast<size_t>(i * n + j)] = k;
        }
      }
    result = dec::chain_product<R>(a, split, n, 0, n - 1);
  }
  if constexpr (NF == 1 && NL == 1) {
    return result.data[0];
  } else if constexpr (NF == 1 || NL == 1) {
    Array<R, 1> out = empty<R, 1>({result.size()});
    index_t j = 0;
    for_each_offset(result, [&](index_t off) { out.data[j++] = result.data[off]; });
    return out;
  } else {
    return result;
  }
}

}  // namespace ep
