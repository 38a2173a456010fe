// `int ** int` whose exponent may be negative, and pow(a, b, m), with CPython's answers (lowering/int_pow.py).
//
// CPython's int ** int is an int for an exponent >= 0 and float(a) ** float(b) otherwise (2 ** -1 is 0.5,
// 0 ** -1 raises ZeroDivisionError), so where the compiler cannot prove the exponent >= 0 the result is a
// tagged union (union.hpp) of an int and a float. pow(a, b, m) is CPython 3.8+'s modular power: a negative
// exponent takes the modular inverse of a, the result has the sign of m. Products are 128-bit: exact for any
// int64 modulus, so pow never overflows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "pyint.hpp"
#include "union.hpp"

namespace ep::pyint {

// U is the union (members float and int at FloatAt and IntAt): the int member by squaring, checked for
// int64 overflow as `**` always is; the float member is libm's pow of the converted operands, as float_pow
template <class U, std::size_t IntAt, std::size_t FloatAt>
inline U power_or_float(int64_t a, int64_t b) {
  if (b < 0) return U(std::in_place_index<FloatAt>, py::power<double>(static_cast<double>(a), static_cast<double>(b)));
  return U(std::in_place_index<IntAt>, power(a, b));
}

// the inverse of x modulo c (0 <= x < c, c >= 2): extended Euclid; CPython's ValueError when gcd(x, c) != 1
inline unsigned __int128 invmod(unsigned __int128 x, unsigned __int128 c) {
  __int128 r0 = static_cast<__int128>(c), r1 = static_cast<__int128>(x), t0 = 0, t1 = 1;
  while (r1 != 0) {
    const __int128 q = r0 / r1;
    const __int128 r2 = r0 - q * r1, t2 = t0 - q * t1;
    r0 = r1, r1 = r2, t0 = t1, t1 = t2;
  }
  if (r0 != 1) raise("ValueError", "base is not invertible for the given modulus");
  return static_cast<unsigned __int128>(t0 < 0 ? t0 + static_cast<__int128>(c) : t0);
}

// pow(a, b, m) in CPython's order of checks: m == 0 raises, |m| == 1 gives 0 before any inverse is taken
inline int64_t powmod(int64_t a, int64_t b, int64_t m) {
  if (m == 0) raise("ValueError", "pow() 3rd argument cannot be 0");
  const bool negative_out = m < 0;
  const unsigned __int128 c = negative_out ? 0ULL - static_cast<uint64_t>(m) : static_cast<uint64_t>(m);
  if (c == 1) return 0;
  __int128 r = static_cast<__int128>(a) % static_cast<__int128>(c);
  unsigned __int128 x = static_cast<unsigned __int128>(r < 0 ? r + static_cast<__int128>(c) : r);
  uint64_t e = static_cast<uint64_t>(b);
  if (b < 0) {
    x = invmod(x, c);
    e = 0ULL - static_cast<uint64_t>(b);  // |INT64_MIN| = 2**63 is an uint64
  }
  unsigned __int128 out = 1;
  while (e) {  // every product is below c * c < 2**126
    if (e & 1) out = out * x % c;
    x = x * x % c;
    e >>= 1;
  }
  // 0 <= out < c <= 2**63: out - c >= 1 - 2**63 for a negative modulus
  return negative_out && out != 0 ? static_cast<int64_t>(static_cast<__int128>(out) - static_cast<__int128>(c))
                                  : static_cast<int64_t>(out);
}

}  // namespace ep::pyint
