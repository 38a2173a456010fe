// Linear algebra: matmul / dot / inner / outer / vdot, trace and norms.
// The GEMM kernel is a cache-blocked i-k-j loop over contiguous operands, so
// the innermost loop streams rows of B and C and vectorises.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <string>
#include <type_traits>

#include "../array.hpp"
#include "../dispatch.hpp"
#include "../map.hpp"
#include "../scalar.hpp"
#include "creation.hpp"
#include "reduce.hpp"
#include "shape.hpp"

namespace ep {
namespace la {

// contiguous operand in the compute type R (no copy when it already is)
template <class R, class T, int N>
Array<R, N> contiguous_as(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T>) {
    if (a.contiguous()) return a;
    return copy(a);
  } else {
    return as_dtype<R>(a);
  }
}

template <class R>
inline R fma_(R acc, R a, R b) {
  if constexpr (std::is_same_v<R, bool>) return acc || (a && b);
  else return static_cast<R>(acc + a * b);
}

// C[n, m] = A[n, k] @ B[k, m], all contiguous, C zero-initialised by the caller
template <class R>
void gemm(const R* __restrict A, const R* __restrict B, R* __restrict C, index_t n, index_t k, index_t m) {
  constexpr index_t KB = 256, JB = 1024;
  for (index_t jj = 0; jj < m; jj += JB) {
    const index_t je = std::min(m, jj + JB);
    for (index_t kk = 0; kk < k; kk += KB) {
      const index_t ke = std::min(k, kk + KB);
      for (index_t i = 0; i < n; ++i) {
        R* __restrict c = C + i * m;
        const R* __restrict a = A + i * k;
        for (index_t p = kk; p < ke; ++p) {
          const R aip = a[p];
          const R* __restrict b = B + p * m;
          if constexpr (std::is_same_v<R, bool>) {
            if (aip)
              for (index_t j = jj; j < je; ++j) c[j] = c[j] || b[j];
          } else {
            for (index_t j = jj; j < je; ++j) c[j] += aip * b[j];
          }
        }
      }
    }
  }
}

// The GEMM of one implementation path: C = A @ B over contiguous row-major
// operands, C zero-initialised. Other paths specialise this (paths/blas, paths/threads).
template <class R, class P>
struct Gemm {
  static void run(const R* A, const R* B, R* C, index_t n, index_t k, index_t m) { gemm<R>(A, B, C, n, k, m); }
};

// Dot product. Unit-stride floating point keeps four independent 256-bit vector
// accumulators in registers (GCC/Clang vector extensions, so the same source serves
// AVX2/AVX-512, NEON and wasm SIMD128): NumPy hands dots to BLAS, whose summation order
// is not sequential either, so results agree to rounding, not bit for bit. Integers
// and strided data stay sequential.
template <class R>
inline R dot_vectorised(const R* a, const R* b, index_t n) {
  typedef R vec __attribute__((vector_size(32)));
  constexpr index_t W = 32 / sizeof(R);
  auto load = [](const R* p) { vec v; std::memcpy(&v, p, sizeof v); return v; };
  vec s0 = {}, s1 = {}, s2 = {}, s3 = {};
  index_t i = 0;
  for (; i + 4 * W <= n; i += 4 * W) {
    s0 += load(a + i) * load(b + i);
    s1 += load(a + i + W) * load(b + i + W);
    s2 += load(a + i + 2 * W) * load(b + i + 2 * W);
    s3 += load(a + i + 3 * W) * load(b + i + 3 * W);
  }
  vec sv = (s0 + s1) + (s2 + s3);
  R t = R(0);
  for (index_t l = 0; l < W; ++l) t += sv[l];
  for (; i < n; ++i) t += a[i] * b[i];
  return t;
}

template <class R>
R dot_contig(const R* a, const R* b, index_t n, index_t sa = 1, index_t sb = 1) {
  if constexpr (std::is_same_v<R, double> || std::is_same_v<R, float>) {
    if (sa == 1 && sb == 1) return dot_vectorised<R>(a, b, n);
  }
  R acc = R(0);
  for (index_t i = 0; i < n; ++i) acc = fma_(acc, a[i * sa], b[i * sb]);
  return acc;
}

[[noreturn]] inline void matmul_mismatch(index_t got, index_t want) {
  raise("ValueError",
        "matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature "
        "(n?,k),(k,m?)->(n?,m?) (size " + std::to_string(got) + " is different from " + std::to_string(want) + ")");
}

template <class A, int NA, class B, int NB>
[[noreturn]] void dot_mismatch(const Array<A, NA>& a, const Array<B, NB>& b) {
  const int da = NA - 1, db = NB == 1 ? 0 : NB - 2;
  raise("ValueError", "shapes " + shape_str(a) + " and " + shape_str(b) + " not aligned: " +
                          std::to_string(a.shape[da]) + " (dim " + std::to_string(da) + ") != " +
                          std::to_string(b.shape[db]) + " (dim " + std::to_string(db) + ")");
}

// the 1-d / 2-d core shared by matmul and dot (shapes already checked)
template <class R, class P, class TA, int NA, class TB, int NB>
auto core(const Array<TA, NA>& a_, const Array<TB, NB>& b_) {
  static_assert(NA >= 1 && NA <= 2 && NB >= 1 && NB <= 2);
  if constexpr (NA == 1 && NB == 1) {
    if constexpr (std::is_same_v<R, TA> && std::is_same_v<R, TB>)
      if (a_.strides[0] == 1 && b_.strides[0] == 1) return dot_contig<R>(a_.data, b_.data, a_.shape[0]);
    // a strided dot needs no copy
    const index_t n = a_.shape[0];
    R acc = R(0);
    for (index_t i = 0; i < n; ++i) acc = fma_(acc, elem_cast<R>(a_.data[i * a_.strides[0]]), elem_cast<R>(b_.data[i * b_.strides[0]]));
    return acc;
  } else if constexpr (NA == 2 && NB == 1) {
    Array<R, 2> a = contiguous_as<R>(a_);
    Array<R, 1> b = contiguous_as<R>(b_);
    const index_t n = a.shape[0], k = a.shape[1];
    Array<R, 1> out = empty<R, 1>({n});
    if constexpr (std::is_same_v<P, path::loops>) {
      for (index_t i = 0; i < n; ++i) out.data[i] = dot_contig<R>(a.data + i * k, b.data, k);
    } else {  // a matrix-vector product is a GEMM with m = 1 on the other paths
      std::fill(out.data, out.data + n, R(0));
      Gemm<R, P>::run(a.data, b.data, out.data, n, k, 1);
    }
    return out;
  } else {
    // (n,k) @ (k,m); a 1-d left operand is a single row
    Array<R, NA> a = contiguous_as<R>(a_);
    Array<R, 2> b = contiguous_as<R>(b_);
    const index_t n = NA == 2 ? a.shape[0] : 1, k = a.shape[NA - 1], m = b.shape[1];
    std::array<index_t, NA> oshape{};
    if constexpr (NA == 2) oshape = {n, m};
    else oshape = {m};
    Array<R, NA> out = full<R, NA>(oshape, R(0));
    Gemm<R, P>::run(a.data, b.data, out.data, n, k, m);
    return out;
  }
}

}  // namespace la

// a @ b / np.matmul for operands of rank 1 or 2
template <class R, class P = path::loops, class TA, int NA, class TB, int NB>
auto matmul(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  const index_t ka = a.shape[NA - 1];
  const index_t kb = NB == 1 ? b.shape[0] : b.shape[NB - 2];
  if (ka != kb) la::matmul_mismatch(kb, ka);
  if constexpr (NA <= 2 && NB <= 2) {
    return la::core<R, P>(a, b);
  } else {
    // stacked matrices: broadcast the leading (batch) axes
    constexpr int BA = NA >= 2 ? NA - 2 : 0, BB = NB >= 2 ? NB - 2 : 0;
    constexpr int NBATCH = BA > BB ? BA : BB;
    std::array<index_t, NBATCH> bshape;
    bshape.fill(1);
    for (int q = 0; q < BA; ++q) bshape[NBATCH - BA + q] = a.shape[q];
    for (int q = 0; q < BB; ++q) {
      index_t& o = bshape[NBATCH - BB + q];
      const index_t d = b.shape[q];
      if (o == 1) o = d;
      else if (d != 1 && d != o) {
        std::array<index_t, BA + 2> ra;
        std::array<index_t, BB + 2> rb;
        for (int t = 0; t < BA; ++t) ra[t] = a.shape[t];
        for (int t = 0; t < BB; ++t) rb[t] = b.shape[t];
        ra[BA] = ra[BA + 1] = rb[BB] = rb[BB + 1] = -1;
        raise("ValueError", "operands could not be broadcast together with remapped shapes [original->remapped]: " +
                                shape_str(a) + "->" + shp::shape_text<BA + 2>(ra) + " " + shape_str(b) + "->" +
                                shp::shape_text<BB + 2>(rb) + "  and requested shape (" +
                                std::to_string(a.shape[NA - 2]) + "," + std::to_string(b.shape[NB - 1]) + ")");
      }
    }
    const index_t n = NA >= 2 ? a.shape[NA - 2] : 1, m = NB >= 2 ? b.shape[NB - 1] : 1;
    constexpr int NO = NBATCH + (NA >= 2 ? 1 : 0) + (NB >= 2 ? 1 : 0);
    std::array<index_t, NO> oshape{};
    for (int q = 0; q < NBATCH; ++q) oshape[q] = bshape[q];
    {
      int q = NBATCH;
      if constexpr (NA >= 2) oshape[q++] = n;
      if constexpr (NB >= 2) oshape[q++] = m;
    }
    Array<R, NO> out = full<R, NO>(oshape, R(0));
    index_t nb = 1;
    for (int q = 0; q < NBATCH; ++q) nb *= bshape[q];
    // per batch: a contiguous (n, k) and (k, m) slice in R
    Array<R, 2> as = empty<R, 2>({n, ka}), bs = empty<R, 2>({ka, m});
    std::array<index_t, NBATCH> bi{};
    for (index_t t = 0; t < nb; ++t) {
      index_t offa = 0, offb = 0;
      for (int q = 0; q < BA; ++q) {
        const index_t i = a.shape[q] == 1 ? 0 : bi[NBATCH - BA + q];
        offa += i * a.strides[q];
      }
      for (int q = 0; q < BB; ++q) {
        const index_t i = b.shape[q] == 1 ? 0 : bi[NBATCH - BB + q];
        offb += i * b.strides[q];
      }
      const index_t sar = NA >= 2 ? a.strides[NA - 2] : 0, sac = a.strides[NA - 1];
      for (index_t i = 0; i < n; ++i)
        for (index_t p = 0; p < ka; ++p) as.data[i * ka + p] = elem_cast<R>(a.data[offa + i * sar + p * sac]);
      const index_t sbr = NB >= 2 ? b.strides[NB - 2] : b.strides[0], sbc = NB >= 2 ? b.strides[NB - 1] : 0;
      for (index_t p = 0; p < ka; ++p)
        for (index_t j = 0; j < m; ++j) bs.data[p * m + j] = elem_cast<R>(b.data[offb + p * sbr + j * sbc]);
      la::Gemm<R, P>::run(as.data, bs.data, out.data + t * n * m, n, ka, m);
      for (int q = NBATCH - 1; q >= 0; --q) {
        if (++bi[q] < bshape[q]) break;
        bi[q] = 0;
      }
    }
    return out;
  }
}

// a @= b: the product written back into a's memory (NumPy's in-place matmul)
template <class T, int N, class R>
Array<T, N> assign_result(const Array<T, N>& a, const Array<R, N>& r) {
  if (a.shape != r.shape)
    raise("ValueError", "matmul: Output operand 0 has a mismatch in its core dimension " + std::to_string(N - 1) +
                            ", with gufunc signature (n?,k),(k,m?)->(n?,m?) (size " +
                            std::to_string(r.shape[N - 1]) + " is different from " + std::to_string(a.shape[N - 1]) + ")");
  index_t j = 0;
  for_each_offset(a, [&](index_t off) { a.data[off] = elem_cast<T>(r.data[j++]); });
  return a;
}

// np.dot for operands of rank 1 or 2
template <class R, class P = path::loops, class TA, int NA, class TB, int NB>
auto dot(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  static_assert(NA <= 2 && NB <= 2, "np.dot of arrays of rank > 2 is not supported");
  const index_t ka = a.shape[NA - 1];
  const index_t kb = NB == 1 ? b.shape[0] : b.shape[NB - 2];
  if (ka != kb) la::dot_mismatch(a, b);
  return la::core<R, P>(a, b);
}

// np.inner: sum over the last axes of both
template <class R, class P = path::loops, class TA, int NA, class TB, int NB>
auto inner(const Array<TA, NA>& a, const Array<TB, NB>& b) {
  static_assert(NA <= 2 && NB <= 2, "np.inner of arrays of rank > 2 is not supported");
  if constexpr (NB == 1) {
    if (a.shape[NA - 1] != b.shape[0]) la::dot_mismatch(a, b);
    return la::core<R, P>(a, b);
  } else {
    Array<TB, 2> bt = b;  // b.T as a view; NumPy reports mismatches against it
    bt.shape = {b.shape[1], b.shape[0]};
    bt.strides = {b.strides[1], b.strides[0]};
    if (a.shape[NA - 1] != bt.shape[0]) la::dot_mismatch(a, bt);
    return la::core<R, P>(a, bt);
  }
}

// np.outer: a.ravel()[:, None] * b.ravel()[None, :]
template <class R, class TA, int NA, class TB, int NB>
Array<R, 2> outer(const Array<TA, NA>& a_, const Array<TB, NB>& b_) {
  Array<R, NA> a = la::contiguous_as<R>(a_);
  Array<R, NB> b = la::contiguous_as<R>(b_);
  const index_t n = a.size(), m = b.size();
  Array<R, 2> out = empty<R, 2>({n, m});
  for (index_t i = 0; i < n; ++i) {
    const R x = a.data[i];
    R* __restrict o = out.data + i * m;
    for (index_t j = 0; j < m; ++j) o[j] = sc::mul<R>(x, b.data[j]);
  }
  return out;
}

// np.vdot: conj(a).ravel() . b.ravel()
template <class R, class TA, int NA, class TB, int NB>
R vdot(const Array<TA, NA>& a_, const Array<TB, NB>& b_) {
  Array<R, NA> a = la::contiguous_as<R>(a_);
  Array<R, NB> b = la::contiguous_as<R>(b_);
  if (a.size() != b.size()) raise("ValueError", "cannot reshape array of size " + std::to_string(b.size()) + " into shape (" + std::to_string(a.size()) + ",)");
  R acc = R(0);
  for (index_t i = 0; i < a.size(); ++i) acc = la::fma_(acc, sc::conjugate(a.data[i]), b.data[i]);
  return acc;
}

// np.trace of a 2-d array: the (offset) diagonal summed as NumPy's sum does
template <class R, class T>
R trace(const Array<T, 2>& a, index_t offset) {
  Array<T, 1> d;
  d.owner = a.owner;
  index_t r0 = offset >= 0 ? 0 : -offset, c0 = offset >= 0 ? offset : 0;
  index_t len = std::min(a.shape[0] - r0, a.shape[1] - c0);
  if (len < 0) len = 0;
  d.data = a.data + (len > 0 ? r0 * a.strides[0] + c0 * a.strides[1] : 0);
  d.shape = {len};
  d.strides = {a.strides[0] + a.strides[1]};
  return sum_all<R>(d);
}

// |x| in the real type R (norms): an element-wise map
template <class R, class T, int N>
Array<R, N> abs_as(const Array<T, N>& a) {
  return map<R, N>([](T x) -> R {
    if constexpr (is_complex_v<T>) return static_cast<R>(std::abs(x));
    else if constexpr (std::is_same_v<T, bool>) return x ? R(1) : R(0);
    else return static_cast<R>(x < T(0) ? -static_cast<R>(x) : static_cast<R>(x));
  }, a);
}

// (x.conj() * x).real in R
template <class R, class T, int N>
Array<R, N> abs2_as(const Array<T, N>& a) {
  return map<R, N>([](T x) -> R {
    if constexpr (is_complex_v<T>) return static_cast<R>(x.real() * x.real() + x.imag() * x.imag());
    else {
      const R y = elem_cast<R>(x);
      return y * y;
    }
  }, a);
}

// x != 0 as R (ord=0 norms)
template <class R, class T, int N>
Array<R, N> nonzero_as(const Array<T, N>& a) {
  Array<R, N> out = empty<R, N>(a.shape);
  index_t j = 0;
  for_each_offset(a, [&](index_t off) { out.data[j++] = sc::truthy(a.data[off]) ? R(1) : R(0); });
  return out;
}

// |x| ** p in R
template <class R, class T, int N>
Array<R, N> abspow_as(const Array<T, N>& a, double p) {
  Array<R, N> out = abs_as<R>(a);
  for (index_t i = 0; i < out.size(); ++i) out.data[i] = static_cast<R>(std::pow(out.data[i], static_cast<R>(p)));
  return out;
}

// Frobenius / 2-norm of everything: sqrt(x.dot(x)) as NumPy (float dot)
template <class R, class T, int N>
R norm_fro(const Array<T, N>& a) {
  R acc = R(0);
  for_each_offset(a, [&](index_t off) {
    const T x = a.data[off];
    if constexpr (is_complex_v<T>) acc += static_cast<R>(x.real() * x.real() + x.imag() * x.imag());
    else {
      const R y = elem_cast<R>(x);
      acc += y * y;
    }
  });
  return std::sqrt(acc);
}

template <class R, int N>
Array<R, N> sqrt_array(Array<R, N> a) {
  for (index_t i = 0; i < a.size(); ++i) a.data[i] = std::sqrt(a.data[i]);
  return a;
}

template <class R, int N>
Array<R, N> pow_array(Array<R, N> a, double p) {
  for (index_t i = 0; i < a.size(); ++i) a.data[i] = static_cast<R>(std::pow(a.data[i], static_cast<R>(p)));
  return a;
}

template <class R>
R pow_scalar(R a, double p) { return static_cast<R>(std::pow(a, static_cast<R>(p))); }

}  // namespace ep
