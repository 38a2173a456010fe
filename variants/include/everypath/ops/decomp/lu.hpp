// LU with partial pivoting (LAPACK getf2's algorithm) and what NumPy builds on
// it: det, slogdet, inv, solve. det is sign * exp(logabsdet), as NumPy's
// umath_linalg computes it, so the rounding matches NumPy's.
#pragma once

#include "common.hpp"

namespace ep {
namespace dec {

// In-place LU of a square matrix; piv[k] is the row swapped with k. Returns
// LAPACK's info: 0, or 1 + the first column with an exactly zero pivot.
template <class S>
index_t lu_factor(Mat<S>& a, std::vector<index_t>& piv) {
  const index_t n = a.r;
  piv.assign(static_cast<size_t>(n), 0);
  index_t info = 0;
  for (index_t k = 0; k < n; ++k) {
    index_t p = k;
    double best = cabs1(a(k, k));
    for (index_t i = k + 1; i < n; ++i) {
      const double v = cabs1(a(i, k));
      if (v > best) best = v, p = i;
    }
    piv[static_cast<size_t>(k)] = p;
    if (a(p, k) != S(0)) {
      if (p != k)
        for (index_t j = 0; j < n; ++j) std::swap(a(k, j), a(p, j));
      const S d = a(k, k);
      for (index_t i = k + 1; i < n; ++i) a(i, k) /= d;
    } else if (info == 0) {
      info = k + 1;
    }
    for (index_t i = k + 1; i < n; ++i) {
      const S l = a(i, k);
      if (l == S(0)) continue;
      for (index_t j = k + 1; j < n; ++j) a(i, j) -= l * a(k, j);
    }
  }
  return info;
}

// Solves (LU) x = b in place for every column of b.
template <class S>
void lu_solve(const Mat<S>& lu, const std::vector<index_t>& piv, Mat<S>& b) {
  const index_t n = lu.r, k = b.c;
  for (index_t i = 0; i < n; ++i) {
    const index_t p = piv[static_cast<size_t>(i)];
    if (p != i)
      for (index_t j = 0; j < k; ++j) std::swap(b(i, j), b(p, j));
  }
  for (index_t i = 0; i < n; ++i)
    for (index_t q = 0; q < i; ++q) {
      const S l = lu(i, q);
      if (l == S(0)) continue;
      for (index_t j = 0; j < k; ++j) b(i, j) -= l * b(q, j);
    }
  for (index_t i = n - 1; i >= 0; --i) {
    for (index_t q = i + 1; q < n; ++q) {
      const S u = lu(i, q);
      if (u == S(0)) continue;
      for (index_t j = 0; j < k; ++j) b(i, j) -= u * b(q, j);
    }
    const S d = lu(i, i);
    for (index_t j = 0; j < k; ++j) b(i, j) /= d;
  }
}

// (sign, log|det|) of one matrix, NumPy's slogdet_single_element
template <class S>
std::pair<S, double> slogdet_one(Mat<S> a) {
  std::vector<index_t> piv;
  const index_t info = lu_factor(a, piv);
  if (info != 0) return {S(0), -std::numeric_limits<double>::infinity()};
  S sign = S(1);
  double logdet = 0.0;
  for (index_t i = 0; i < a.r; ++i) {
    if (piv[static_cast<size_t>(i)] != i) sign = -sign;
    const S d = a(i, i);
    if constexpr (is_complex_v<S>) {
      const double ad = std::abs(d);
      sign = sign * (d / ad);
      logdet += std::log(ad);
    } else {
      if (d < 0) sign = -sign;
      logdet += std::log(std::fabs(d));
    }
  }
  return {sign, logdet};
}

// inverse of one matrix (LinAlgError on an exactly singular one)
template <class S>
Mat<S> inv_one(Mat<S> a) {
  std::vector<index_t> piv;
  if (lu_factor(a, piv) != 0) linalg_error("Singular matrix");
  Mat<S> e = Mat<S>::eye(a.r, a.r);
  lu_solve(a, piv, e);
  return e;
}

}  // namespace dec

// np.linalg.slogdet: (sign, logabsdet); scalars for one matrix, arrays for a stack
template <class R, class T, int N>
auto linalg_slogdet(const Array<T, N>& a) {
  using S = dec::work_t<R>;
  using RR = dec::real_t<R>;
  constexpr int NB = N - 2;
  dec::check_square(a);
  const auto offs = dec::stack_offsets(a, 2);
  std::vector<R> signs;
  std::vector<RR> logs;
  for (index_t off : offs) {
    auto [s, l] = dec::slogdet_one(dec::load<S>(a, off));
    signs.push_back(elem_cast<R>(s));
    logs.push_back(static_cast<RR>(l));
  }
  return std::make_tuple(dec::per_matrix_result<R, NB>(signs, a.shape.data()),
                         dec::per_matrix_result<RR, NB>(logs, a.shape.data()));
}

// np.linalg.det: sign * exp(logabsdet) as NumPy computes it
template <class R, class T, int N>
auto linalg_det(const Array<T, N>& a) {
  using S = dec::work_t<R>;
  constexpr int NB = N - 2;
  dec::check_square(a);
  const auto offs = dec::stack_offsets(a, 2);
  std::vector<R> dets;
  for (index_t off : offs) {
    auto [s, l] = dec::slogdet_one(dec::load<S>(a, off));
    dets.push_back(elem_cast<R>(s * std::exp(l)));
  }
  return dec::per_matrix_result<R, NB>(dets, a.shape.data());
}

// np.linalg.inv
template <class R, class T, int N>
Array<R, N> linalg_inv(const Array<T, N>& a) {
  using S = dec::work_t<R>;
  dec::check_square(a);
  Array<R, N> out = empty<R, N>(a.shape);
  const index_t n = a.shape[N - 1];
  const auto offs = dec::stack_offsets(a, 2);
  for (size_t t = 0; t < offs.size(); ++t) dec::store(dec::inv_one(dec::load<S>(a, offs[t])), out.data + t * n * n);
  return out;
}

namespace dec {

// np.linalg.solve's shapes: a (..., M, M); b (M,) when 1-d, else (..., M, K); batch axes
// broadcast; NumPy's errors for mismatches. Shared by every path's solve.
template <int NA, int NB>
struct SolvePlan {
  static constexpr bool vec = NB == 1;
  static constexpr int BA = NA - 2, BB = vec ? 0 : NB - 2;
  static constexpr int NBAT = BA > BB ? BA : BB;
  static constexpr int NO = NBAT + (vec ? 1 : 2);
  std::array<index_t, NBAT> bs{};  // broadcast batch shape
  std::array<index_t, NO> os{};    // result shape
  index_t m = 0, k = 0;
};

template <class TA, int NA, class TB, int NB>
SolvePlan<NA, NB> plan_solve(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  using P = SolvePlan<NA, NB>;
  constexpr bool vec = P::vec;
  constexpr int BA = P::BA, BB = P::BB, NBAT = P::NBAT;
  P p;
  const index_t m = a.shape[NA - 1];
  const index_t mb = vec ? b.shape[0] : b.shape[NB - 2];
  const index_t k = vec ? 1 : b.shape[NB - 1];
  std::array<index_t, NBAT>& bs = p.bs;
  bs.fill(1);
  for (int q = 0; q < BA; ++q) bs[NBAT - BA + q] = a.shape[q];
  for (int q = 0; q < BB; ++q) {
    index_t& o = bs[NBAT - BB + q];
    const index_t d = b.shape[q];
    if (o == 1) o = d;
    else if (d != 1 && d != o) {
      auto remapped = [](const index_t* sh, int nb) {
        std::string t = "(";
        for (int i = 0; i < nb; ++i) t += std::to_string(sh[i]) + ",";
        return t + "newaxis,newaxis)";
      };
      raise("ValueError", "operands could not be broadcast together with remapped shapes [original->remapped]: " +
                              shape_str(a) + "->" + remapped(a.shape.data(), BA) + " " + shape_str(b) + "->" +
                              remapped(b.shape.data(), BB) + "  and requested shape (" + std::to_string(m) + "," +
                              std::to_string(k) + ")");
    }
  }
  if (mb != m)
    raise("ValueError", std::string(vec ? "solve1" : "solve") +
                            ": Input operand 1 has a mismatch in its core dimension 0, with gufunc signature " +
                            (vec ? "(m,m),(m)->(m)" : "(m,m),(m,n)->(m,n)") + " (size " + std::to_string(mb) +
                            " is different from " + std::to_string(m) + ")");
  for (int q = 0; q < NBAT; ++q) p.os[q] = bs[q];
  p.os[NBAT] = m;
  if constexpr (!vec) p.os[NBAT + 1] = k;
  p.m = m;
  p.k = k;
  return p;
}

}  // namespace dec

// np.linalg.solve: a (..., M, M); b (M,) when 1-d, else (..., M, K); batch axes broadcast
template <class R, class TA, int NA, class TB, int NB>
auto linalg_solve(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  using S = dec::work_t<R>;
  dec::check_square(a);
  const auto p = dec::plan_solve(a, b);
  using P = std::remove_cvref_t<decltype(p)>;
  constexpr bool vec = P::vec;
  const index_t m = p.m, k = p.k;
  Array<R, P::NO> out = empty<R, P::NO>(p.os);
  const auto oa = dec::batch_offsets<P::NBAT>(p.bs, a.shape.data(), a.strides.data(), P::BA);
  const auto ob = dec::batch_offsets<P::NBAT>(p.bs, b.shape.data(), b.strides.data(), P::BB);
  for (size_t t = 0; t < oa.size(); ++t) {
    dec::Mat<S> lu = dec::load<S>(a, oa[t]);
    std::vector<index_t> piv;
    if (dec::lu_factor(lu, piv) != 0) dec::linalg_error("Singular matrix");
    dec::Mat<S> x = vec ? dec::load_col<S>(b, ob[t]) : dec::load<S>(b, ob[t]);
    dec::lu_solve(lu, piv, x);
    dec::store(x, out.data + t * m * k);
  }
  return out;
}

}  // namespace ep
