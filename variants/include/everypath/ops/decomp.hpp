// numpy.linalg decompositions and solvers, loops path: one entry point per
// operator (ep::linalg_det, linalg_solve, linalg_svd, ...) taking ep::Array
// operands, so a BLAS/LAPACK path can sit beside it with the same signatures.
#pragma once

#include "decomp/common.hpp"
#include "decomp/lu.hpp"
#include "decomp/factor.hpp"
#include "decomp/svd.hpp"
#include "decomp/eigh.hpp"
#include "decomp/eig.hpp"
#include "decomp/solvers.hpp"
