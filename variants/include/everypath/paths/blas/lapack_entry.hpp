// The numpy.linalg entry points of a LAPACK-backed path: the same names and
// template arguments as the loops path's (ep::linalg_det<R>(a), ...), so the
// lowering only swaps the namespace (ep::blas::, ep::accelerate::), and the
// results have the loops path's C++ types, as ep::dispatch needs.
#pragma once

#include "lapack_core.hpp"
#include "lapack_eig.hpp"
#include "lapack_factor.hpp"
#include "lapack_solve.hpp"

// one forwarding function template: name<R>(operands...) -> ep::lapack::name<L, R>(operands...)
#define EP_LAPACK_FORWARD(L, name)                    \
  template <class R, class... A>                      \
  auto name(const A&... a) {                          \
    return ::ep::lapack::name<L, R>(a...);            \
  }

// every operator, on the library L (a `Calls` struct of lapack_calls.inc)
#define EP_LAPACK_ENTRY_POINTS(L)          \
  EP_LAPACK_FORWARD(L, linalg_det)         \
  EP_LAPACK_FORWARD(L, linalg_slogdet)     \
  EP_LAPACK_FORWARD(L, linalg_inv)         \
  EP_LAPACK_FORWARD(L, linalg_solve)       \
  EP_LAPACK_FORWARD(L, linalg_cholesky)    \
  EP_LAPACK_FORWARD(L, linalg_qr)          \
  EP_LAPACK_FORWARD(L, linalg_qr_r)        \
  EP_LAPACK_FORWARD(L, linalg_svd)         \
  EP_LAPACK_FORWARD(L, linalg_svdvals)     \
  EP_LAPACK_FORWARD(L, linalg_eigh)        \
  EP_LAPACK_FORWARD(L, linalg_eigvalsh)    \
  EP_LAPACK_FORWARD(L, linalg_eig)         \
  EP_LAPACK_FORWARD(L, linalg_eigvals)     \
  EP_LAPACK_FORWARD(L, linalg_lstsq)       \
  EP_LAPACK_FORWARD(L, linalg_pinv)        \
  EP_LAPACK_FORWARD(L, linalg_matrix_rank)
