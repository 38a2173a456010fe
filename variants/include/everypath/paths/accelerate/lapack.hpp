// The accelerate path of the numpy.linalg decompositions and solvers on Apple
// targets: Accelerate's LAPACK through its new interface (ACCELERATE_NEW_LAPACK:
// LAPACK 3.9+ routines, no hidden string lengths; ACCELERATE_LAPACK_ILP64: 64-bit
// integers). The algorithms are ep::lapack's, shared with the blas path; only the
// symbol mapping differs. Generated code includes headers in sorted order, so this
// one precedes accelerate/linalg.hpp and reduce.hpp, and the macros below are set
// before Accelerate.h is first read. Not buildable off macOS (variants.paths).
#pragma once

#include <complex>

#include "../blas/lapack_entry.hpp"

#if defined(__APPLE__) && defined(EP_HAVE_ACCELERATE)
#ifndef ACCELERATE_NEW_LAPACK
#define ACCELERATE_NEW_LAPACK
#endif
#ifndef ACCELERATE_LAPACK_ILP64
#define ACCELERATE_LAPACK_ILP64
#endif
#include <Accelerate/Accelerate.h>

namespace ep::accelerate {
namespace lp {
#define EP_LAPACK(name) name##_
#define EP_LEN1
#define EP_LEN2
#define EP_LAPACK_INT __LAPACK_int
#define EP_LAPACK_C __LAPACK_float_complex
#define EP_LAPACK_Z __LAPACK_double_complex
#include "../blas/lapack_calls.inc"
#undef EP_LAPACK
#undef EP_LEN1
#undef EP_LEN2
#undef EP_LAPACK_INT
#undef EP_LAPACK_C
#undef EP_LAPACK_Z
static_assert(sizeof(Calls::lint) == 8, "Accelerate's LAPACK is used with ACCELERATE_LAPACK_ILP64");
}  // namespace lp

EP_LAPACK_ENTRY_POINTS(lp::Calls)

}  // namespace ep::accelerate
#endif
