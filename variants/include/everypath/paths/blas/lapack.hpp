// The blas path of the numpy.linalg decompositions and solvers: LAPACK from
// OpenBLAS (PyPI scipy-openblas64: ILP64, symbols scipy_<name>_64_, built with
// gfortran, so char arguments take hidden lengths at the end). The algorithms
// are ep::lapack's (lapack_core.hpp ...), shared with the accelerate path; this
// header only maps LAPACK's symbols (lapack_calls.inc) to this library.
#pragma once

#include <complex>
#include <cstddef>

#include "lapack_entry.hpp"

#if defined(EP_HAVE_BLAS)
#ifndef LAPACK_ILP64
#define LAPACK_ILP64 1
#endif
#define LAPACK_GLOBAL(lcname, UCNAME) scipy_##lcname##_64_
#define lapack_complex_float std::complex<float>
#define lapack_complex_double std::complex<double>
#include <lapack.h>

namespace ep::blas {
namespace lp {
#define EP_LAPACK(name) scipy_##name##_64_
#define EP_LEN1 , size_t(1)
#define EP_LEN2 , size_t(1), size_t(1)
#define EP_LAPACK_INT lapack_int
#define EP_LAPACK_C std::complex<float>
#define EP_LAPACK_Z std::complex<double>
#include "lapack_calls.inc"
#undef EP_LAPACK
#undef EP_LEN1
#undef EP_LEN2
#undef EP_LAPACK_INT
#undef EP_LAPACK_C
#undef EP_LAPACK_Z
static_assert(sizeof(Calls::lint) == 8, "scipy-openblas64 is ILP64");
}  // namespace lp

EP_LAPACK_ENTRY_POINTS(lp::Calls)

}  // namespace ep::blas
#endif
