// Generator.integers: NumPy's bounded integers (numpy/random/_bounded_integers.pyx and
// the random_bounded_*_fill functions of distributions.c). Generator always uses
// Lemire's multiply-shift rejection; ranges that fit 32 bits draw 32-bit words (PCG64
// halves its 64-bit words for those), 16- and 8-bit dtypes split 32-bit words further
// through a buffer local to each call.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "random_core.hpp"

namespace ep {
namespace rnd {

// Smallest bit mask >= max.
inline uint64_t gen_mask(uint64_t max) {
  uint64_t mask = max;
  mask |= mask >> 1;
  mask |= mask >> 2;
  mask |= mask >> 4;
  mask |= mask >> 8;
  mask |= mask >> 16;
  mask |= mask >> 32;
  return mask;
}

inline uint16_t buffered_uint16(PCG64& g, int& bcnt, uint32_t& buf) {
  if (!bcnt) {
    buf = g.next32();
    bcnt = 1;
  } else {
    buf >>= 16;
    bcnt -= 1;
  }
  return static_cast<uint16_t>(buf);
}

inline uint8_t buffered_uint8(PCG64& g, int& bcnt, uint32_t& buf) {
  if (!bcnt) {
    buf = g.next32();
    bcnt = 3;
  } else {
    buf >>= 8;
    bcnt -= 1;
  }
  return static_cast<uint8_t>(buf);
}

// Lemire's algorithm on [0, rng]; rng must not be the type's maximum (callers special-case it).
inline uint64_t lemire64(PCG64& g, uint64_t rng) {
  const uint64_t rng_excl = rng + 1;
  u128 m = u128(g.next64()) * rng_excl;
  uint64_t leftover = static_cast<uint64_t>(m);
  if (leftover < rng_excl) {
    const uint64_t threshold = (std::numeric_limits<uint64_t>::max() - rng) % rng_excl;
    while (leftover < threshold) {
      m = u128(g.next64()) * rng_excl;
      leftover = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

inline uint32_t lemire32(PCG64& g, uint32_t rng) {
  const uint32_t rng_excl = rng + 1;
  uint64_t m = uint64_t(g.next32()) * rng_excl;
  uint32_t leftover = static_cast<uint32_t>(m);
  if (leftover < rng_excl) {
    const uint32_t threshold = (std::numeric_limits<uint32_t>::max() - rng) % rng_excl;
    while (leftover < threshold) {
      m = uint64_t(g.next32()) * rng_excl;
      leftover = static_cast<uint32_t>(m);
    }
  }
  return static_cast<uint32_t>(m >> 32);
}

inline uint16_t lemire16(PCG64& g, uint16_t rng, int& bcnt, uint32_t& buf) {
  const uint16_t rng_excl = static_cast<uint16_t>(rng + 1);
  uint32_t m = uint32_t(buffered_uint16(g, bcnt, buf)) * rng_excl;
  uint16_t leftover = static_cast<uint16_t>(m & 0xFFFFu);
  if (leftover < rng_excl) {
    const uint16_t threshold = static_cast<uint16_t>((0xFFFFu - rng) % rng_excl);
    while (leftover < threshold) {
      m = uint32_t(buffered_uint16(g, bcnt, buf)) * rng_excl;
      leftover = static_cast<uint16_t>(m & 0xFFFFu);
    }
  }
  return static_cast<uint16_t>(m >> 16);
}

inline uint8_t lemire8(PCG64& g, uint8_t rng, int& bcnt, uint32_t& buf) {
  const uint8_t rng_excl = static_cast<uint8_t>(rng + 1);
  uint16_t m = static_cast<uint16_t>(uint16_t(buffered_uint8(g, bcnt, buf)) * rng_excl);
  uint8_t leftover = static_cast<uint8_t>(m & 0xFFu);
  if (leftover < rng_excl) {
    const uint8_t threshold = static_cast<uint8_t>((0xFFu - rng) % rng_excl);
    while (leftover < threshold) {
      m = static_cast<uint16_t>(uint16_t(buffered_uint8(g, bcnt, buf)) * rng_excl);
      leftover = static_cast<uint8_t>(m & 0xFFu);
    }
  }
  return static_cast<uint8_t>(m >> 8);
}

// random_bounded_uint64(state, off, rng, mask=0, use_masked=false): one draw on [off, off + rng].
inline uint64_t bounded_uint64(PCG64& g, uint64_t off, uint64_t rng) {
  if (rng == 0) return off;
  if (rng <= 0xFFFFFFFFull) {
    if (rng == 0xFFFFFFFFull) return off + g.next32();
    return off + lemire32(g, static_cast<uint32_t>(rng));
  }
  if (rng == std::numeric_limits<uint64_t>::max()) return off + g.next64();
  return off + lemire64(g, rng);
}

// random_bounded_uint{64,32,16,8}_fill / random_bounded_bool_fill: cnt draws on [off, off + rng].
template <class U>
void bounded_fill(PCG64& g, U off, U rng, index_t cnt, U* out) {
  if constexpr (std::is_same_v<U, uint64_t>) {
    for (index_t i = 0; i < cnt; ++i) out[i] = bounded_uint64(g, off, rng);
  } else if constexpr (std::is_same_v<U, uint32_t>) {
    for (index_t i = 0; i < cnt; ++i) {
      if (rng == 0) out[i] = off;
      else if (rng == 0xFFFFFFFFu) out[i] = off + g.next32();
      else out[i] = off + lemire32(g, rng);
    }
  } else if constexpr (std::is_same_v<U, bool>) {
    uint32_t buf = 0;
    int bcnt = 0;
    for (index_t i = 0; i < cnt; ++i) {
      if (!rng) {
        out[i] = off;
        continue;
      }
      if (!bcnt) {
        buf = g.next32();
        bcnt = 31;
      } else {
        buf >>= 1;
        bcnt -= 1;
      }
      out[i] = (buf & 1u) != 0;
    }
  } else {
    constexpr U top = std::numeric_limits<U>::max();
    uint32_t buf = 0;
    int bcnt = 0;
    for (index_t i = 0; i < cnt; ++i) {
      U v;
      if (rng == 0) v = 0;
      else if constexpr (std::is_same_v<U, uint16_t>) v = rng == top ? buffered_uint16(g, bcnt, buf) : lemire16(g, rng, bcnt, buf);
      else v = rng == top ? buffered_uint8(g, bcnt, buf) : lemire8(g, rng, bcnt, buf);
      out[i] = static_cast<U>(off + v);
    }
  }
}

template <class T>
struct unsigned_of : std::make_unsigned<T> {};
template <>
struct unsigned_of<bool> {
  using type = bool;
};

template <class T>
struct IntRange {
  using U = typename unsigned_of<T>::type;
  static constexpr i128 lb = std::is_same_v<T, bool> ? 0 : i128(std::numeric_limits<T>::min());
  static constexpr i128 ub = std::is_same_v<T, bool> ? 1 : i128(std::numeric_limits<T>::max());
};

// The checks of _rand_<dtype> on scalar bounds: [low, high) (or [low, high] with endpoint) must
// fit the dtype and be non-empty. Gives the offset and the inclusive range of the draws.
template <class T, class L, class H>
std::pair<typename IntRange<T>::U, typename IntRange<T>::U> int_bounds(L low, H high, bool endpoint, const char* name) {
  using U = typename IntRange<T>::U;
  const i128 lo = static_cast<i128>(low);
  const i128 hi = static_cast<i128>(high) - (endpoint ? 0 : 1);
  if (lo < IntRange<T>::lb) raise("ValueError", std::string("low is out of bounds for ") + name);
  if (hi > IntRange<T>::ub) raise("ValueError", std::string("high is out of bounds for ") + name);
  if (lo > hi) raise("ValueError", endpoint ? "low > high" : "low >= high");
  if constexpr (std::is_same_v<U, bool>) return {lo != 0, hi != lo};
  else return {static_cast<U>(static_cast<T>(lo)), static_cast<U>(hi - lo)};
}

}  // namespace rnd

// Generator.integers(low, high, size=None, dtype, endpoint): one value.
template <class T, class L, class H>
T rng_integers_scalar(const Generator& g, L low, H high, bool endpoint, const char* name) {
  using U = typename rnd::IntRange<T>::U;
  const auto [off, rng] = rnd::int_bounds<T>(low, high, endpoint, name);
  U out{};
  rnd::bounded_fill<U>(g.bg(), off, rng, 1, &out);
  return static_cast<T>(out);
}

// Generator.integers(low, high, size, dtype, endpoint): an array (an empty size skips every check).
template <class T, int N, class L, class H>
Array<T, N> rng_integers(const Generator& g, L low, H high, bool endpoint, const char* name,
                         const std::array<index_t, N>& shape) {
  using U = typename rnd::IntRange<T>::U;
  if (rnd::count<N>(shape) == 0) return empty<T, N>(shape);
  const auto [off, rng] = rnd::int_bounds<T>(low, high, endpoint, name);
  Array<T, N> out = empty<T, N>(shape);
  rnd::bounded_fill<U>(g.bg(), off, rng, out.size(), reinterpret_cast<U*>(out.data));
  return out;
}

}  // namespace ep
