// The threads path of torch.nn.functional: F.linear's rows in blocks across the pool, softmax /
// log_softmax rows (or, along a dim other than the last, blocks of inner lanes) and layer_norm rows
// across the pool. Each block runs the simd kernel when the unit builds the simd path too (the
// usual case: both are offered at a site), else the loops kernel, so results equal that path's.
#pragma once

#include "../../ops/torch_nn.hpp"
#include "../simd/torch_nn.hpp"
#include "linalg.hpp"

#if defined(EP_HAVE_THREADS)
#include "pool.hpp"

namespace ep::tch {
namespace tnn {

#if defined(EP_HAVE_SIMD)
using Inner = path::simd;
#else
using Inner = path::loops;
#endif

// the kernel path inside one block: simd only where it has a kernel for R
template <class R>
using inner_t = std::conditional_t<std::is_floating_point_v<R>, Inner, path::loops>;

// [0, n) in at most max_threads() blocks of at least `grain` items; fewer items run on this thread
template <class F>
void blocks(index_t n, index_t grain, F&& f) {
  const index_t nb = std::min<index_t>(threads::max_threads(), std::max<index_t>(1, n / std::max<index_t>(grain, 1)));
  if (nb <= 1) {
    f(index_t(0), n);
    return;
  }
  threads::parallel_for(0, nb, static_cast<int>(nb), [&](index_t t) { f(t * n / nb, (t + 1) * n / nb); });
}

}  // namespace tnn

template <class R>
struct LinearGemm<R, path::threads> {
  static void run(const Array<R, 2>& x_, const Array<R, 2>& w_, R* C) {
    const index_t n = x_.shape[0], k = x_.shape[1], m = w_.shape[0];
    Array<R, 2> x = la::contiguous_as<R>(x_), w = la::contiguous_as<R>(w_);
    // about 64k multiply-adds per block at least: a smaller split costs more than it saves
    tnn::blocks(n, std::max<index_t>(1, (index_t(1) << 16) / std::max<index_t>(1, k * m)), [&](index_t lo, index_t hi) {
      for (index_t i = lo; i < hi; ++i)
        for (index_t j = 0; j < m; ++j) C[i * m + j] = la::dot_contig<R>(x.data + i * k, w.data + j * k, k);
    });
  }
};

template <class R, bool Log>
struct SoftmaxKernel<R, Log, path::threads> {
  static void run(const R* x, R* y, index_t o0, index_t o1, index_t i0, index_t i1, index_t len, index_t inner) {
    using K = SoftmaxKernel<R, Log, tnn::inner_t<R>>;
    const index_t grain = std::max<index_t>(1, 4096 / std::max<index_t>(1, len));  // rows (or lanes) per block
    if (inner == 1 || o1 - o0 >= threads::max_threads()) {
      tnn::blocks(o1 - o0, std::max<index_t>(1, grain / inner), [&](index_t lo, index_t hi) {
        K::run(x, y, o0 + lo, o0 + hi, i0, i1, len, inner);
      });
    } else {  // few outer rows along a leading dim: split the lanes (in whole 16-lane groups)
      const index_t groups = (i1 - i0 + 15) / 16;
      tnn::blocks(groups, std::max<index_t>(1, grain / 16), [&](index_t lo, index_t hi) {
        K::run(x, y, o0, o1, i0 + lo * 16, std::min(i1, i0 + hi * 16), len, inner);
      });
    }
  }
};

template <class R>
struct LayerNormKernel<R, path::threads> {
  static void run(const R* x, R* y, index_t r0, index_t r1, index_t cols, const R* w, const R* b, double eps) {
    using K = LayerNormKernel<R, tnn::inner_t<R>>;
    tnn::blocks(r1 - r0, std::max<index_t>(1, 4096 / std::max<index_t>(1, cols)), [&](index_t lo, index_t hi) {
      K::run(x, y, r0 + lo, r0 + hi, cols, w, b, eps);
    });
  }
};

// conv2d: with the simd path, the blocked direct kernel's (image, channel block, row chunk) items across
// the pool after packing the input planes in parallel; without it, the scalar direct kernel's output
// planes
template <class R>
  requires(std::is_floating_point_v<R>)
struct ConvKernel<R, path::threads> {
  static void run(const R* x, const R* w, const R* bias, R* y, const ConvShape& s) {
    const index_t work = s.ow * s.icg * s.kh * s.kw;  // multiply-adds per output row and channel
#if defined(EP_HAVE_SIMD)
    if constexpr (std::is_same_v<R, float> || std::is_same_v<R, double>) {
      vconv::Packed<R> pk = vconv::prepare<R>(w, s);
      tnn::blocks(s.n * s.c, std::max<index_t>(1, (index_t(1) << 14) / std::max<index_t>(1, pk.hp * pk.wq)),
                  [&](index_t lo, index_t hi) { vconv::pack_planes<R>(x, s, pk, lo, hi); });
      const vconv::BlockIndex bi(s);
      // row chunks: enough items for every thread even with one image and one channel block
      const index_t chunks = std::min<index_t>(s.oh, std::max<index_t>(1, 4 * threads::max_threads() / bi.count(s)));
      tnn::blocks(bi.count(s) * chunks, std::max<index_t>(1, (index_t(1) << 16) / std::max<index_t>(1, work * vconv::kOB * s.oh / chunks)),
                  [&](index_t lo, index_t hi) {
                    for (index_t it = lo; it < hi; ++it) {
                      index_t b, o0, nb;
                      bi.at(it / chunks, b, o0, nb);
                      const index_t c = it % chunks;
                      vconv::run_block<R>(pk, s, bias, y, b, o0, nb, c * s.oh / chunks, (c + 1) * s.oh / chunks);
                    }
                  });
      return;
    }
#endif
    tnn::blocks(s.n * s.oc, std::max<index_t>(1, (index_t(1) << 16) / std::max<index_t>(1, work * s.oh)),
                [&](index_t lo, index_t hi) {
                  for (index_t pl = lo; pl < hi; ++pl) conv_plane<R>(x, w, bias, y, s, pl / s.oc, pl % s.oc, ScalarAxpy{});
                });
  }
};

}  // namespace ep::tch
#endif
