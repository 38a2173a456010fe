// The threads path of matmul / dot / inner: the loops GEMM split into row blocks
// across threads (pool.hpp; each thread owns whole rows of C, so no reduction is
// needed and results are bit-identical to the loops path). Below ~64 rows per
// thread the split does not pay: one thread runs it.
#pragma once

#include "../../ops/linalg.hpp"

#if defined(EP_HAVE_THREADS)
#include "pool.hpp"

namespace ep::la {

template <class R>
struct Gemm<R, path::threads> {
  static void run(const R* A, const R* B, R* C, index_t n, index_t k, index_t m) {
    const index_t rows = 64;
    const index_t blocks = (n + rows - 1) / rows;
    const int threads = static_cast<int>(std::min<index_t>(blocks, threads::max_threads()));
    if (threads <= 1 || n * k * m < (index_t(1) << 18)) {
      gemm<R>(A, B, C, n, k, m);
      return;
    }
    threads::parallel_for(0, blocks, threads, [&](index_t b) {
      const index_t lo = b * rows, hi = std::min(n, lo + rows);
      gemm<R>(A + lo * k, B, C + lo * m, hi - lo, k, m);
    });
  }
};

}  // namespace ep::la
#endif
