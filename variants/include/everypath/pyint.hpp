// Python int arithmetic in int64 with CPython's answer or a loud OverflowError, never a wrapped value.
//
// A Python int in compiled code is an int64_t. CPython's ints grow without bound; where an exact result
// does not fit 64 bits these raise OverflowError naming the operator (ep::raise records the user's line,
// so the traceback points there) instead of wrapping as NumPy integers do. The emitter calls them only
// for Python int operands whose range it cannot bound (lowering/int_ranges.py); NumPy integers keep
// ep::sc's wrapping. With EP_UNCHECKED (@compile(boundscheck=False)) they are the unchecked
// operations, as index checks are: the C-like build.
#pragma once

#include <cstdint>
#include <limits>
#include <tuple>

#include "builtins.hpp"
#include "scalar.hpp"

namespace ep::pyint {

[[noreturn]] inline void overflow(const char* op) {
  raise("OverflowError", std::string("integer result of ") + op + " exceeds 64 bits (everypath ints are int64)");
}

#ifdef EP_UNCHECKED
inline constexpr bool kChecked = false;
#else
inline constexpr bool kChecked = true;
#endif

inline int64_t add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r) && kChecked) overflow("+");
  return r;
}
inline int64_t sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r) && kChecked) overflow("-");
  return r;
}
inline int64_t mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r) && kChecked) overflow("*");
  return r;
}
// -a and abs(a) overflow only at INT64_MIN (2**63 is one past int64's largest)
inline int64_t negative(int64_t a) {
  if (a == std::numeric_limits<int64_t>::min() && kChecked) overflow("unary -");
  return static_cast<int64_t>(0ULL - static_cast<uint64_t>(a));
}
inline int64_t abs(int64_t a) {
  if (a == std::numeric_limits<int64_t>::min() && kChecked) overflow("abs()");
  return a < 0 ? static_cast<int64_t>(0ULL - static_cast<uint64_t>(a)) : a;
}
// a // b: ZeroDivisionError as CPython; INT64_MIN // -1 is 2**63 (a % b never overflows: py::mod)
inline int64_t floordiv(int64_t a, int64_t b) {
  if (b == -1 && a == std::numeric_limits<int64_t>::min() && kChecked) overflow("//");
  return py::floordiv<int64_t>(a, b);
}
inline std::tuple<int64_t, int64_t> divmod(int64_t a, int64_t b) { return {floordiv(a, b), py::mod<int64_t>(a, b)}; }
// a ** b by squaring; the square is taken only while exponent bits remain, and each one it feeds is a
// factor of the result, so a square that overflows means the result does (2**63 is not a square).
// Called only where the exponent is proven >= 0 (else pyint_pow.hpp's power_or_float: a float result).
inline int64_t power(int64_t a, int64_t b) {
  if (b < 0) raise("ValueError", "internal error: int ** negative int reached the int-only power");
  int64_t r = 1;
  while (b) {
    if (b & 1 && __builtin_mul_overflow(r, a, &r) && kChecked) overflow("**");
    b >>= 1;
    if (b) {
      if (__builtin_mul_overflow(a, a, &a) && kChecked) overflow("**");
    }
  }
  return r;
}
inline int64_t lshift(int64_t a, int64_t b) {
  if (b < 0) raise("ValueError", "negative shift count");
  if (a == 0) return 0;
  if (b >= 63) {
    if (b == 63 && a == -1) return std::numeric_limits<int64_t>::min();
    if (kChecked) overflow("<<");
    return 0;
  }
  const int64_t r = static_cast<int64_t>(static_cast<uint64_t>(a) << b);
  if ((r >> b) != a && kChecked) overflow("<<");  // bits (or the sign) shifted out
  return r;
}
// a >> b never overflows; a negative count is CPython's ValueError, a count of 64 or more gives 0 or -1
inline int64_t rshift(int64_t a, int64_t b) {
  if (b < 0) raise("ValueError", "negative shift count");
  return b >= 63 ? (a < 0 ? -1 : 0) : (a >> b);
}
// int() of a NumPy uint64 above int64's largest: CPython's int holds it, an int64 cannot
inline int64_t from_u64(uint64_t x) {
  if (x > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) && kChecked)
    raise("OverflowError", "int() of a uint64 above 2**63 - 1 exceeds 64 bits (everypath ints are int64)");
  return static_cast<int64_t>(x);
}

// sum() of Python ints: exact in 128 bits (2**64 items would be needed to leave them), so only the total
// must fit, as CPython's sum([MAX, 1, -5]) shows; a partial sum beyond int64 is no error
template <class S>
int64_t sum(const S& seq, int64_t start) {
  __int128 acc = start;
  each(seq, [&](auto v) { acc += static_cast<int64_t>(v); });
  if ((acc > std::numeric_limits<int64_t>::max() || acc < std::numeric_limits<int64_t>::min()) && kChecked)
    overflow("sum()");
  return static_cast<int64_t>(acc);
}

}  // namespace ep::pyint
