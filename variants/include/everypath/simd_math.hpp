// Vectorised transcendental math for the loops path: glibc's libmvec ships
// SIMD variants (SSE4/AVX2/AVX-512) of exp, log, sin, ... (<= 4 ulp, like
// NumPy's own SIMD loops). glibc only declares them under -ffast-math, which
// would break NaN/inf semantics; declaring them here lets g++ vectorise fused
// element-wise loops while keeping IEEE semantics everywhere else.
#pragma once

#include <cmath>

#if defined(__x86_64__) && defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) && \
    !defined(EP_NO_LIBMVEC)
#define EP_SIMD_DECL(name)                                                      \
  __attribute__((__simd__("notinbranch"))) double name(double) noexcept;        \
  __attribute__((__simd__("notinbranch"))) float name##f(float) noexcept;
extern "C" {
EP_SIMD_DECL(exp)
EP_SIMD_DECL(log)
EP_SIMD_DECL(sin)
EP_SIMD_DECL(cos)
EP_SIMD_DECL(tan)
EP_SIMD_DECL(exp2)
EP_SIMD_DECL(expm1)
EP_SIMD_DECL(log2)
EP_SIMD_DECL(log10)
EP_SIMD_DECL(log1p)
EP_SIMD_DECL(sinh)
EP_SIMD_DECL(cosh)
EP_SIMD_DECL(tanh)
EP_SIMD_DECL(asin)
EP_SIMD_DECL(acos)
EP_SIMD_DECL(atan)
EP_SIMD_DECL(asinh)
EP_SIMD_DECL(acosh)
EP_SIMD_DECL(atanh)
EP_SIMD_DECL(cbrt)
EP_SIMD_DECL(erf)
EP_SIMD_DECL(erfc)
__attribute__((__simd__("notinbranch"))) double pow(double, double) noexcept;
__attribute__((__simd__("notinbranch"))) float powf(float, float) noexcept;
__attribute__((__simd__("notinbranch"))) double atan2(double, double) noexcept;
__attribute__((__simd__("notinbranch"))) float atan2f(float, float) noexcept;
__attribute__((__simd__("notinbranch"))) double hypot(double, double) noexcept;
__attribute__((__simd__("notinbranch"))) float hypotf(float, float) noexcept;
}
#undef EP_SIMD_DECL
#define EP_HAVE_LIBMVEC 1
#endif
