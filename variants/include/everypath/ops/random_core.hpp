// The core of np.random.default_rng inside compiled code: SeedSequence
// (numpy/random/bit_generator.pyx, pool size 4) seeding PCG64 (XSL-RR 128/64,
// numpy/random/src/pcg64/pcg64.h) exactly as NumPy does, the shared Generator handle,
// and Generator.random. See random.hpp for the rest.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "../array.hpp"
#include "creation.hpp"

namespace ep {
namespace rnd {

using u128 = unsigned __int128;
using i128 = __int128;

// ---- SeedSequence ----------------------------------------------------------------
inline constexpr uint32_t kInitA = 0x43b0d7e5u, kMultA = 0x931e8875u, kInitB = 0x8b51f9ddu,
                          kMultB = 0x58f38dedu, kMixL = 0xca01f9ddu, kMixR = 0x4973f715u;
inline constexpr int kXShift = 16;  // half the bits of a uint32 word

inline uint32_t hashmix(uint32_t value, uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> kXShift;
  return value;
}

inline uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t r = kMixL * x - kMixR * y;
  r ^= r >> kXShift;
  return r;
}

// SeedSequence(entropy) with the default pool of 4 words and no spawn key.
struct SeedSequence {
  std::array<uint32_t, 4> pool{};

  explicit SeedSequence(const std::vector<uint32_t>& entropy) {
    uint32_t hc = kInitA;
    for (size_t i = 0; i < pool.size(); ++i) pool[i] = hashmix(i < entropy.size() ? entropy[i] : 0u, hc);
    for (size_t src = 0; src < pool.size(); ++src)
      for (size_t dst = 0; dst < pool.size(); ++dst)
        if (src != dst) pool[dst] = mix(pool[dst], hashmix(pool[src], hc));
    for (size_t src = pool.size(); src < entropy.size(); ++src)
      for (size_t dst = 0; dst < pool.size(); ++dst) pool[dst] = mix(pool[dst], hashmix(entropy[src], hc));
  }

  // generate_state(n, np.uint64): 2n uint32 words paired little-endian.
  std::vector<uint64_t> generate_state64(size_t n) const {
    uint32_t hc = kInitB;
    std::vector<uint64_t> out(n, 0);
    for (size_t i = 0; i < 2 * n; ++i) {
      uint32_t v = pool[i % pool.size()];
      v ^= hc;
      hc *= kMultB;
      v *= hc;
      v ^= v >> kXShift;
      out[i / 2] |= static_cast<uint64_t>(v) << (32 * (i % 2));
    }
    return out;
  }
};

// A non-negative seed as NumPy's _int_to_uint32_array: 32-bit words, lowest first ([0] for 0).
inline std::vector<uint32_t> seed_words(u128 n) {
  std::vector<uint32_t> w;
  if (n == 0) w.push_back(0);
  for (; n > 0; n >>= 32) w.push_back(static_cast<uint32_t>(n & 0xffffffffu));
  return w;
}

// ---- PCG64 ----------------------------------------------------------------------
struct PCG64 {
  static constexpr u128 kMult = (u128(2549297995355413924ULL) << 64) + 4865540595714422341ULL;
  u128 state = 0, inc = 0;
  bool has_uint32 = false;  // the upper half of the last 64-bit word, kept for next32 (pcg64_next32)
  uint32_t uinteger = 0;

  void step() { state = state * kMult + inc; }
  // pcg64_set_seed -> pcg_setseq_128_srandom_r
  void seed(u128 initstate, u128 initseq) {
    state = 0;
    inc = (initseq << 1) | 1u;
    step();
    state += initstate;
    step();
    has_uint32 = false;
    uinteger = 0;
  }
  uint64_t next64() {
    step();
    const uint64_t x = static_cast<uint64_t>(state >> 64) ^ static_cast<uint64_t>(state);
    const unsigned rot = static_cast<unsigned>(state >> 122);
    return (x >> rot) | (x << ((-rot) & 63u));
  }
  uint32_t next32() {
    if (has_uint32) {
      has_uint32 = false;
      return uinteger;
    }
    const uint64_t next = next64();
    has_uint32 = true;
    uinteger = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next & 0xffffffffu);
  }
  double next_double() { return static_cast<double>(next64() >> 11) * (1.0 / 9007199254740992.0); }
  float next_float() { return static_cast<float>(next32() >> 8) * (1.0f / 16777216.0f); }
};

// Generator._binomial: the set-up of the last (n, p) (a cache only; values never depend on it).
struct BinomialCache {
  bool has = false;
  int64_t nsave = 0, m = 0;
  double psave = 0, r = 0, q = 0, fm = 0, p1 = 0, xm = 0, xl = 0, xr = 0, c = 0, laml = 0, lamr = 0,
         p2 = 0, p3 = 0, p4 = 0;
};

struct State {
  PCG64 pcg;
  BinomialCache binomial;
};

}  // namespace rnd

// A Generator value: copies share one state, as Python names bound to one object do.
struct Generator {
  std::shared_ptr<rnd::State> st;
  rnd::PCG64& bg() const { return st->pcg; }
};

inline Generator make_generator(const std::vector<uint32_t>& entropy) {
  Generator g{std::make_shared<rnd::State>()};
  const std::vector<uint64_t> v = rnd::SeedSequence(entropy).generate_state64(4);
  g.st->pcg.seed((rnd::u128(v[0]) << 64) | v[1], (rnd::u128(v[2]) << 64) | v[3]);
  return g;
}

// np.random.default_rng(seed) for an integer seed (NumPy refuses negative ones).
template <class S>
Generator default_rng(S seed) {
  static_assert(std::is_integral_v<S>, "default_rng needs an integer seed");
  if constexpr (std::is_signed_v<S>) {
    if (seed < 0) raise("ValueError", "expected non-negative integer");
  }
  return make_generator(rnd::seed_words(static_cast<rnd::u128>(seed)));
}

// np.random.default_rng() / default_rng(None): 128 bits of fresh OS entropy.
inline Generator default_rng(None) {
  std::random_device dev;
  std::vector<uint32_t> words(4);
  for (auto& w : words) w = static_cast<uint32_t>(dev());
  return make_generator(words);
}

namespace rnd {

template <class T, int N, class F>
Array<T, N> fill(const std::array<index_t, N>& shape, F&& draw) {
  Array<T, N> out = empty<T, N>(shape);
  T* d = out.data;
  const index_t n = out.size();
  for (index_t i = 0; i < n; ++i) d[i] = draw();
  return out;
}

template <int N>
index_t count(const std::array<index_t, N>& shape) {
  index_t n = 1;
  for (int k = 0; k < N; ++k) n *= shape[k];
  return n;
}

}  // namespace rnd

// Generator.random(size, dtype): float64 (next_double) or float32 (next_float).
template <class T>
double rng_random_scalar(const Generator& g) {
  if constexpr (std::is_same_v<T, float>) return static_cast<double>(g.bg().next_float());
  else return g.bg().next_double();
}

template <class T, int N>
Array<T, N> rng_random(const Generator& g, const std::array<index_t, N>& shape) {
  rnd::PCG64& bg = g.bg();
  if constexpr (std::is_same_v<T, float>) return rnd::fill<T, N>(shape, [&] { return bg.next_float(); });
  else return rnd::fill<T, N>(shape, [&] { return bg.next_double(); });
}

}  // namespace ep
