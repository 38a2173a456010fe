// conv2d's blocked direct kernel (the simd path, and each block of the threads path): a register tile
// of OB output channels x JB vectors of output columns accumulates every (input channel, tap) with one
// vector load of the input per column vector and one broadcast weight per channel, so each load feeds
// OB fused multiply-adds (im2col + GEMM writes and re-packs a K x P column matrix instead; the axpy
// kernel reloaded each output row once per tap: 0.14x of torch at 16 channels).
//
// The input is copied once per call into a zero-padded, stride-phase-split layout: row r of channel c
// holds, for each phase s < sw, the columns s, s + sw, s + 2 sw, ... of the padded row, so output column
// j's tap q is element j + (q dw) / sw of phase (q dw) % sw: contiguous in j for any stride and dilation.
// Each phase row is wide enough for a whole last vector, which is stored through a lane buffer.
// Weights are repacked per channel block as [ci][p][q][OB], the order the tile reads them.
#pragma once

#include "../../ops/torch_nn.hpp"

#if defined(EP_HAVE_SIMD)
#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <memory>
#include <vector>

namespace ep::tch {
namespace vconv {

template <class R>
using V = xsimd::batch<R>;
template <class R>
inline constexpr index_t W = static_cast<index_t>(V<R>::size);

// output channels per tile (and 3 column vectors): 8 x 3 accumulators need 24 of the 32 vector registers of AVX-512 and
// AArch64; AVX2's 16 registers hold 4 x 3
#if defined(__AVX512F__) || defined(__aarch64__)
inline constexpr index_t kOB = 8;
#else
inline constexpr index_t kOB = 4;
#endif

// a fused multiply-add: xsimd 8's fma on AVX-512 is a multiply and an add (half the tile's throughput)
template <class R>
inline V<R> fmadd(V<R> a, V<R> b, V<R> c) {
#if defined(__AVX512F__)
  if constexpr (sizeof(V<R>) == 64) {
    if constexpr (std::is_same_v<R, float>) return _mm512_fmadd_ps(a, b, c);
    else return _mm512_fmadd_pd(a, b, c);
  }
#endif
  return xsimd::fma(a, b, c);
}

// the call's layout: the phase-split input and the repacked weights
template <class R>
struct Packed {
  index_t c, hp, sw, wq, K;  // channels, padded rows, phases, elements per phase row, taps per output channel
  // each (ci, p, q) tap's offset from its tile's first input: one flat loop over the taps keeps the
  // accumulators in registers (nested ci / p / q loops made GCC spill all 24 after every q loop)
  std::vector<index_t> tap;
  std::unique_ptr<R[]> x;  // every element is written by pack_planes
  std::vector<R> w;

  // [image][row][channel][phase][wq]: the channels' rows under one output row lie together (a plane per
  // channel spread the taps of a 64-channel tile over 64 planes: 0.86x of torch then)
  R* row(index_t b, index_t ch, index_t r) const { return x.get() + ((b * hp + r) * c + ch) * sw * wq; }
};

// [lo, hi) of the n*c input planes, phase split (threads pack in parallel)
template <class R>
void pack_planes(const R* x, const ConvShape& s, Packed<R>& pk, index_t lo, index_t hi) {
  const Geo& g = s.g;
  for (index_t pl = lo; pl < hi; ++pl)
    for (index_t r = 0; r < pk.hp; ++r) {
      const index_t src = r - g.ph0;
      const bool inside = src >= 0 && src < s.h;
      const R* in = x + (pl * s.h + (inside ? src : 0)) * s.wd;
      R* dst = pk.row(pl / s.c, pl % s.c, r);
      for (index_t ph = 0; ph < pk.sw; ++ph, dst += pk.wq) {
        // element k holds padded column k sw + ph: input column k sw + ph - pw0, inside for k in [lo, hi)
        const index_t first = g.pw0 - ph, end = s.wd + g.pw0 - ph;
        const index_t k0 = std::clamp<index_t>(first <= 0 ? 0 : (first + pk.sw - 1) / pk.sw, 0, pk.wq);
        const index_t k1 = inside ? std::clamp<index_t>(end <= 0 ? 0 : (end + pk.sw - 1) / pk.sw, k0, pk.wq) : k0;
        std::fill(dst, dst + k0, R(0));
        if (k1 > k0) {
          const R* from = in + k0 * pk.sw + ph - g.pw0;
          if (pk.sw == 1) std::copy(from, from + (k1 - k0), dst + k0);
          else
            for (index_t k = k0; k < k1; ++k) dst[k] = from[(k - k0) * pk.sw];
        }
        std::fill(dst + k1, dst + pk.wq, R(0));
      }
    }
}

// the layout's sizes and the repacked weights; the input is packed by pack_planes
template <class R>
Packed<R> prepare(const R* w, const ConvShape& s) {
  const Geo& g = s.g;
  Packed<R> pk;
  pk.c = s.c;
  pk.hp = (s.oh - 1) * g.sh + (s.kh - 1) * g.dh + 1;  // the rows any output reads
  pk.sw = g.sw;
  const index_t ow_up = (s.ow + W<R> - 1) / W<R> * W<R>;
  pk.wq = ow_up + ((s.kw - 1) * g.dw) / g.sw;
  pk.K = s.icg * s.kh * s.kw;
  for (index_t ci = 0; ci < s.icg; ++ci)
    for (index_t p = 0; p < s.kh; ++p)
      for (index_t q = 0; q < s.kw; ++q)  // phase (q dw) % sw, element (q dw) / sw of it
        pk.tap.push_back(((p * g.dh * s.c + ci) * g.sw + (q * g.dw) % g.sw) * pk.wq + (q * g.dw) / g.sw);
  pk.x.reset(new R[static_cast<size_t>(s.n * s.c * pk.hp * pk.sw * pk.wq)]);
  // blocks of kOB channels inside each group, the group's last block smaller (ocg % kOB channels)
  pk.w.resize(static_cast<size_t>(s.oc * pk.K));
  const index_t ocg = s.oc / s.groups;
  for (index_t gi = 0; gi < s.groups; ++gi)
    for (index_t ob = 0; ob < ocg; ob += kOB) {
      const index_t o0 = gi * ocg + ob, nb = std::min(kOB, ocg - ob);
      for (index_t t = 0; t < nb; ++t)
        for (index_t k = 0; k < pk.K; ++k) pk.w[o0 * pk.K + k * nb + t] = w[(o0 + t) * pk.K + k];
    }
  return pk;
}

// one tile: channels [o0, o0 + OB) of image b at JB output vectors, numbered row-major over the
// plane (pos = i * nv + v: a tile may span two rows, so a 4-vector row still fills 3-vector tiles);
// wt: the channels' first weights in their block's packed table, whose rows hold ldw channels. Taps
// [k0, k1) only (a run of input channels): the first run starts from the bias, a later one from the
// sums stored so far
template <class R, index_t OB, index_t JB>
inline void tile(const Packed<R>& pk, const ConvShape& s, const R* bias, R* y, index_t b, index_t o0, index_t pos,
                 index_t nv, const R* wt, index_t ldw, index_t k0, index_t k1) {
  const index_t gi = o0 / (s.oc / s.groups);
  index_t at[JB], col[JB];  // each vector's offset in its plane (input, then output) and first column
  const R* base = pk.row(b, gi * s.icg, 0);
  for (index_t u = 0; u < JB; ++u) {
    const index_t i = (pos + u) / nv;
    col[u] = (pos + u) % nv * W<R>;
    at[u] = i * s.g.sh * s.c * pk.sw * pk.wq + col[u];
  }
  const index_t plane = s.oh * s.ow;
  R* out = y + (b * s.oc + o0) * plane;
  V<R> acc[OB][JB];
  for (index_t u = 0; u < JB; ++u) {
    const index_t j = col[u], o = (pos + u) / nv * s.ow + j;
    for (index_t t = 0; t < OB; ++t) {
      if (k0 == 0) {
        acc[t][u] = V<R>(bias ? bias[o0 + t] : R(0));
      } else if (j + W<R> <= s.ow) {
        acc[t][u] = V<R>::load_unaligned(out + t * plane + o);
      } else {
        alignas(64) R lanes[W<R>] = {};
        std::copy(out + t * plane + o, out + t * plane + o + (s.ow - j), lanes);
        acc[t][u] = V<R>::load_aligned(lanes);
      }
    }
  }
  const index_t* tap = pk.tap.data();
  wt += k0 * ldw;
  for (index_t k = k0; k < k1; ++k, wt += ldw) {
    const R* src = base + tap[k];
    V<R> xv[JB];
    for (index_t u = 0; u < JB; ++u) xv[u] = V<R>::load_unaligned(src + at[u]);
    for (index_t t = 0; t < OB; ++t) {
      const V<R> wb(wt[t]);
      for (index_t u = 0; u < JB; ++u) acc[t][u] = fmadd<R>(wb, xv[u], acc[t][u]);
    }
  }
  for (index_t u = 0; u < JB; ++u) {
    const index_t j = col[u], o = (pos + u) / nv * s.ow + j;
    for (index_t t = 0; t < OB; ++t) {
      if (j + W<R> <= s.ow) {
        acc[t][u].store_unaligned(out + t * plane + o);
      } else {  // the row's last, partial vector
        alignas(64) R lanes[W<R>];
        acc[t][u].store_aligned(lanes);
        std::copy(lanes, lanes + (s.ow - j), out + t * plane + o);
      }
    }
  }
}

// output rows [i0, i1) of OB channels: tiles of 3 vectors, the last one or two vectors in a smaller
// tile, over runs of input channels whose rows under one output row fit in L1 (16 KiB: at 64 channels
// the whole set, 50 KiB, streamed from L2 for every tile)
template <class R, index_t OB>
void tile_rows(const Packed<R>& pk, const ConvShape& s, const R* bias, R* y, index_t b, index_t o0, index_t i0,
               index_t i1, const R* wt, index_t ldw) {
  const index_t nv = (s.ow + W<R> - 1) / W<R>, end = i1 * nv, taps = s.kh * s.kw;
  const index_t fit = std::max<index_t>(1, (16 << 10) / (s.kh * pk.sw * pk.wq * index_t(sizeof(R))));
  const index_t runs = std::max<index_t>(1, (s.icg + fit - 1) / fit), run = (s.icg + runs - 1) / runs;  // even runs
  for (index_t c0 = 0; c0 < s.icg || c0 == 0; c0 += run) {
    const index_t k0 = c0 * taps, k1 = std::min(s.icg, c0 + run) * taps;
    index_t pos = i0 * nv;
    for (; pos + 3 <= end; pos += 3) tile<R, OB, 3>(pk, s, bias, y, b, o0, pos, nv, wt, ldw, k0, k1);
    if (pos + 2 == end) tile<R, OB, 2>(pk, s, bias, y, b, o0, pos, nv, wt, ldw, k0, k1);
    else if (pos + 1 == end) tile<R, OB, 1>(pk, s, bias, y, b, o0, pos, nv, wt, ldw, k0, k1);
  }
}

// rows [i0, i1) of image b's channel block at o0 (nb = min(kOB, channels left in the group)): a full
// block in kOB-channel tiles, a remainder block in tiles of 4 then 1 channels
template <class R>
void run_block(const Packed<R>& pk, const ConvShape& s, const R* bias, R* y, index_t b, index_t o0, index_t nb,
               index_t i0, index_t i1) {
  const R* wt = pk.w.data() + o0 * pk.K;
  if (nb == kOB) return tile_rows<R, kOB>(pk, s, bias, y, b, o0, i0, i1, wt, nb);
  index_t t = 0;
  for (; t + 4 <= nb; t += 4) tile_rows<R, 4>(pk, s, bias, y, b, o0 + t, i0, i1, wt + t, nb);
  for (; t < nb; ++t) tile_rows<R, 1>(pk, s, bias, y, b, o0 + t, i0, i1, wt + t, nb);
}

// the (image, channel block) pairs of a call, in order: item -> (b, o0, nb)
struct BlockIndex {
  index_t per_group, ocg, groups;

  BlockIndex(const ConvShape& s) : per_group((s.oc / s.groups + kOB - 1) / kOB), ocg(s.oc / s.groups), groups(s.groups) {}
  index_t count(const ConvShape& s) const { return s.n * groups * per_group; }
  void at(index_t item, index_t& b, index_t& o0, index_t& nb) const {
    const index_t blk = item % per_group, gi = (item / per_group) % groups;
    b = item / (per_group * groups);
    o0 = gi * ocg + blk * kOB;
    nb = std::min(kOB, ocg - blk * kOB);
  }
};

}  // namespace vconv

template <class R>
  requires(std::is_same_v<R, float> || std::is_same_v<R, double>)
struct ConvKernel<R, path::simd> {
  static void run(const R* x, const R* w, const R* bias, R* y, const ConvShape& s) {
    vconv::Packed<R> pk = vconv::prepare<R>(w, s);
    vconv::pack_planes<R>(x, s, pk, 0, s.n * s.c);
    const vconv::BlockIndex bi(s);
    for (index_t it = 0; it < bi.count(s); ++it) {
      index_t b, o0, nb;
      bi.at(it, b, o0, nb);
      vconv::run_block<R>(pk, s, bias, y, b, o0, nb, 0, s.oh);
    }
  }
};

}  // namespace ep::tch
#endif
