// The blas path of torch.nn.functional: F.linear through OpenBLAS sgemm/dgemm with the weight read
// through the transpose flag (torch's [out, in] weight is W^T as BLAS sees it: no transposed copy per
// call, which cost the F.linear MLP half its time), and an input that is a transposed view passed the
// same way. conv2d's im2col product (torch_conv_paths.hpp) calls the same GEMM.
#pragma once

#include "../../ops/torch_nn.hpp"
#include "linalg.hpp"

#if defined(EP_HAVE_BLAS)

namespace ep::tch {

// a 2-d operand as BLAS reads it: one unit stride (row-major as is, or transposed), else a copy
template <class R>
struct BlasOperand {
  const R* p;
  bool trans;  // the memory holds the operand's transpose, row-major
  index_t ld;
  Array<R, 2> keep;  // owns the copy when one was needed
};

template <class R>
BlasOperand<R> blas_operand(const Array<R, 2>& a) {
  const index_t r = a.shape[0], c = a.shape[1];
  // a dimension of size one has no meaningful stride: take the one BLAS needs
  const index_t s0 = r == 1 ? std::max<index_t>(c, 1) : a.strides[0];
  const index_t s1 = c == 1 ? std::max<index_t>(r, 1) : a.strides[1];
  if (s1 == 1 && s0 >= std::max<index_t>(c, 1)) return {a.data, false, s0, a};
  if (s0 == 1 && s1 >= std::max<index_t>(r, 1)) return {a.data, true, s1, a};
  Array<R, 2> cp = copy(a);
  return {cp.data, false, std::max<index_t>(c, 1), cp};
}

// C[n, m] = op(A)[n, k] @ op(B)[k, m]; Bt: B is given as [m, k] (its transpose)
template <class R>
void blas_gemm(const Array<R, 2>& a, const Array<R, 2>& b, bool bt, R* C, index_t n, index_t k, index_t m) {
  const BlasOperand<R> A = blas_operand(a), B = blas_operand(b);
  const auto ta = A.trans ? CblasTrans : CblasNoTrans;
  const auto tb = (B.trans != bt) ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<R, float>)
    scipy_cblas_sgemm64_(CblasRowMajor, ta, tb, n, m, k, 1.0f, A.p, A.ld, B.p, B.ld, 0.0f, C, m);
  else
    scipy_cblas_dgemm64_(CblasRowMajor, ta, tb, n, m, k, 1.0, A.p, A.ld, B.p, B.ld, 0.0, C, m);
}

template <class R>
  requires(std::is_same_v<R, float> || std::is_same_v<R, double>)
struct LinearGemm<R, path::blas> {
  static void run(const Array<R, 2>& x, const Array<R, 2>& w, R* C) {
    blas_gemm<R>(x, w, true, C, x.shape[0], x.shape[1], w.shape[0]);
  }
};

// conv2d: im2col (each output position's receptive field as one column; zeros where it overhangs the
// padding) and one GEMM per (image, group): W_g[ocg, icg*kh*kw] @ cols[icg*kh*kw, oh*ow]. A 1x1 kernel
// with stride 1 and no padding is already its own column matrix: the input plane block, no copy.
template <class R>
  requires(std::is_same_v<R, float> || std::is_same_v<R, double>)
struct ConvKernel<R, path::blas> {
  static void run(const R* x, const R* w, const R* bias, R* y, const ConvShape& s) {
    const Geo& g = s.g;
    const index_t ocg = s.oc / s.groups, K = s.icg * s.kh * s.kw, P = s.oh * s.ow;
    const bool direct = s.kh == 1 && s.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph0 == 0 && g.pw0 == 0 &&
                        s.oh == s.h && s.ow == s.wd;
    Array<R, 2> cols = direct ? Array<R, 2>{} : ep::empty<R, 2>({K, P});
    for (index_t b = 0; b < s.n; ++b)
      for (index_t gi = 0; gi < s.groups; ++gi) {
        const R* in = x + (b * s.c + gi * s.icg) * s.h * s.wd;
        if (!direct) {
          for (index_t ci = 0; ci < s.icg; ++ci)
            for (index_t p = 0; p < s.kh; ++p)
              for (index_t q = 0; q < s.kw; ++q) {
                R* row = cols.data + ((ci * s.kh + p) * s.kw + q) * P;
                index_t lo, hi;
                tap_columns(s, q, lo, hi);
                for (index_t i = 0; i < s.oh; ++i) {
                  R* dst = row + i * s.ow;
                  const index_t r = i * g.sh + p * g.dh - g.ph0;
                  if (r < 0 || r >= s.h || lo >= hi) {
                    std::fill(dst, dst + s.ow, R(0));
                    continue;
                  }
                  const R* src = in + (ci * s.h + r) * s.wd + q * g.dw - g.pw0;
                  std::fill(dst, dst + lo, R(0));
                  if (g.sw == 1) std::copy(src + lo, src + hi, dst + lo);
                  else
                    for (index_t j = lo; j < hi; ++j) dst[j] = src[j * g.sw];
                  std::fill(dst + hi, dst + s.ow, R(0));
                }
              }
        }
        const R* B = direct ? in : cols.data;
        R* C = y + (b * s.oc + gi * ocg) * P;
        if (K == 0) std::fill(C, C + ocg * P, R(0));
        else if constexpr (std::is_same_v<R, float>)
          scipy_cblas_sgemm64_(CblasRowMajor, CblasNoTrans, CblasNoTrans, ocg, P, K, 1.0f, w + gi * ocg * K, K, B, P,
                               0.0f, C, P);
        else
          scipy_cblas_dgemm64_(CblasRowMajor, CblasNoTrans, CblasNoTrans, ocg, P, K, 1.0, w + gi * ocg * K, K, B, P,
                               0.0, C, P);
        if (bias)  // the epilogue: each output channel's plane plus its bias
          for (index_t o = 0; o < ocg; ++o) {
            const R v = bias[gi * ocg + o];
            for (index_t j = 0; j < P; ++j) C[o * P + j] += v;
          }
      }
  }
};

}  // namespace ep::tch
#endif
