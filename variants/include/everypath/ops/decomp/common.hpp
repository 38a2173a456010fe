// Shared pieces of the numpy.linalg decompositions (loops path): the work
// scalar (every input is computed in double or complex<double>, as NumPy's
// _commonType computes in double/cdouble before casting back), batches of
// stacked matrices, loading a matrix into a contiguous work buffer and
// NumPy's LinAlgError.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "../../array.hpp"
#include "../creation.hpp"

namespace ep {
namespace dec {

using cd = std::complex<double>;

// the work scalar for a result element type R
template <class R>
using work_t = std::conditional_t<is_complex_v<R>, cd, double>;

template <class S>
struct real_of {
  using type = S;
};
template <class V>
struct real_of<std::complex<V>> {
  using type = V;
};
template <class S>
using real_t = typename real_of<S>::type;

inline double abs2(double x) { return x * x; }
inline double abs2(const cd& z) { return z.real() * z.real() + z.imag() * z.imag(); }
inline double absv(double x) { return std::fabs(x); }
inline double absv(const cd& z) { return std::hypot(z.real(), z.imag()); }
inline double conj_(double x) { return x; }
inline cd conj_(const cd& z) { return std::conj(z); }
inline double re(double x) { return x; }
inline double re(const cd& z) { return z.real(); }
inline double im(double) { return 0.0; }
inline double im(const cd& z) { return z.imag(); }
// LAPACK's pivot measure (i?amax): |re| + |im|
inline double cabs1(double x) { return std::fabs(x); }
inline double cabs1(const cd& z) { return std::fabs(z.real()) + std::fabs(z.imag()); }

// numpy.linalg.LinAlgError (the runtime imports dotted exception names)
[[noreturn]] inline void linalg_error(const std::string& msg) { raise("numpy.linalg.LinAlgError", msg); }

// A row-major matrix in work precision.
template <class S>
struct Mat {
  index_t r = 0, c = 0;
  std::vector<S> v;
  Mat() = default;
  Mat(index_t rows, index_t cols) : r(rows), c(cols), v(static_cast<size_t>(rows * cols), S(0)) {}
  S& operator()(index_t i, index_t j) { return v[static_cast<size_t>(i * c + j)]; }
  const S& operator()(index_t i, index_t j) const { return v[static_cast<size_t>(i * c + j)]; }
  static Mat eye(index_t n, index_t m) {
    Mat e(n, m);
    for (index_t i = 0; i < std::min(n, m); ++i) e(i, i) = S(1);
    return e;
  }
};

template <class S>
Mat<S> conj_transpose(const Mat<S>& a) {
  Mat<S> t(a.c, a.r);
  for (index_t i = 0; i < a.r; ++i)
    for (index_t j = 0; j < a.c; ++j) t(j, i) = conj_(a(i, j));
  return t;
}

template <class S>
Mat<S> mat_mul(const Mat<S>& a, const Mat<S>& b) {
  Mat<S> out(a.r, b.c);
  for (index_t i = 0; i < a.r; ++i)
    for (index_t p = 0; p < a.c; ++p) {
      const S x = a(i, p);
      if (x == S(0)) continue;
      for (index_t j = 0; j < b.c; ++j) out(i, j) += x * b(p, j);
    }
  return out;
}

// Offsets of the matrices of a stack: the leading axes of `shape` (its own `nb`
// batch axes, right-aligned against the broadcast batch shape `bs`).
template <int NB>
std::vector<index_t> batch_offsets(const std::array<index_t, NB>& bs, const index_t* shape, const index_t* strides,
                                   int nb) {
  index_t count = 1;
  for (int q = 0; q < NB; ++q) count *= bs[q];
  std::vector<index_t> out(static_cast<size_t>(count), 0);
  std::array<index_t, NB> idx{};
  for (index_t t = 0; t < count; ++t) {
    index_t off = 0;
    for (int q = 0; q < nb; ++q) {
      const int g = NB - nb + q;
      if (shape[q] != 1) off += idx[g] * strides[q];
    }
    out[static_cast<size_t>(t)] = off;
    for (int q = NB - 1; q >= 0; --q) {
      if (++idx[q] < bs[q]) break;
      idx[q] = 0;
    }
  }
  return out;
}

// the batch shape of one stack of matrices (all axes but the last `core`)
template <int NB, class T, int N>
std::array<index_t, NB> batch_shape(const Array<T, N>& a) {
  std::array<index_t, NB> bs{};
  for (int q = 0; q < NB; ++q) bs[q] = a.shape[q];
  return bs;
}

template <class T, int N>
std::vector<index_t> stack_offsets(const Array<T, N>& a, int core) {
  constexpr int NB = N >= 2 ? N - 2 : 0;
  if (core == 2) return batch_offsets<NB>(batch_shape<NB>(a), a.shape.data(), a.strides.data(), NB);
  constexpr int NB1 = N >= 1 ? N - 1 : 0;
  return batch_offsets<NB1>(batch_shape<NB1>(a), a.shape.data(), a.strides.data(), NB1);
}

// the matrix at `off` of a (axes N-2, N-1) converted to the work scalar
template <class S, class T, int N>
Mat<S> load(const Array<T, N>& a, index_t off) {
  const index_t r = a.shape[N - 2], c = a.shape[N - 1];
  const index_t sr = a.strides[N - 2], sc = a.strides[N - 1];
  Mat<S> m(r, c);
  for (index_t i = 0; i < r; ++i)
    for (index_t j = 0; j < c; ++j) m(i, j) = elem_cast<S>(a.data[off + i * sr + j * sc]);
  return m;
}

// a vector (last axis at `off`) as an (n, 1) matrix
template <class S, class T, int N>
Mat<S> load_col(const Array<T, N>& a, index_t off) {
  const index_t n = a.shape[N - 1], s = a.strides[N - 1];
  Mat<S> m(n, 1);
  for (index_t i = 0; i < n; ++i) m(i, 0) = elem_cast<S>(a.data[off + i * s]);
  return m;
}

template <class R, class S>
void store(const Mat<S>& m, R* dst) {
  for (size_t i = 0; i < m.v.size(); ++i) dst[i] = elem_cast<R>(m.v[i]);
}

template <class T, int N>
void check_square(const Array<T, N>& a) {
  if (a.shape[N - 2] != a.shape[N - 1]) linalg_error("Last 2 dimensions of the array must be square");
}

// out shape: the batch axes of a followed by the given core axes
template <int NO, class T, int N>
std::array<index_t, NO> with_core(const Array<T, N>& a, std::initializer_list<index_t> core) {
  std::array<index_t, NO> s{};
  constexpr int NB = N - 2;
  for (int q = 0; q < NB && q < NO; ++q) s[q] = a.shape[q];
  int q = NO - static_cast<int>(core.size());
  for (index_t d : core) s[q++] = d;
  return s;
}

// a scalar for a single matrix, an array of the batch shape for a stack
template <class R, int NB>
using per_matrix_t = std::conditional_t<NB == 0, R, Array<R, NB>>;

template <class R, int NB>
per_matrix_t<R, NB> per_matrix_result(const std::vector<R>& vals, const index_t* bshape) {
  if constexpr (NB == 0) {
    return vals[0];
  } else {
    std::array<index_t, NB> s{};
    for (int q = 0; q < NB; ++q) s[q] = bshape[q];
    Array<R, NB> out = empty<R, NB>(s);
    std::copy(vals.begin(), vals.end(), out.data);
    return out;
  }
}

}  // namespace dec
}  // namespace ep
