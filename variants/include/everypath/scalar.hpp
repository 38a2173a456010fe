// Scalar semantics of every element-wise operator.
//   ep::sc::  NumPy semantics in the loop dtype NumPy itself picks (the
//             emitter casts operands to it first); integer wrap-around needs
//             -fwrapv, which every build passes.
//   ep::py::  Python semantics for Python scalars (ZeroDivisionError, floor
//             division and modulo signs, int() of NaN, ...).
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>

#include "array.hpp"
#include "simd_math.hpp"

namespace ep {

// Value conversion as NumPy casts: complex -> real keeps the real part.
template <class T, class S>
inline T to(S x) {
  if constexpr (is_complex_v<S> && !is_complex_v<T>) return static_cast<T>(x.real());
  else return static_cast<T>(x);
}

namespace sc {

template <class T>
inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
template <class T>
inline constexpr bool is_real_v = is_real_float_v<T>;  // float, double and ep::half (half.hpp)

// bool logic with & and | (not && and ||): no short-circuit branches, so loops vectorise
template <class T> inline T add(T a, T b) { if constexpr (std::is_same_v<T, bool>) return a | b; else return a + b; }
template <class T> inline T sub(T a, T b) { return a - b; }
template <class T>
inline T mul(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) return a & b;
  else if constexpr (is_complex_v<T>)  // NumPy's (and Python's) plain formula, no C99 inf recovery
    return T(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
  else return a * b;
}
template <class T>
inline T truediv(T a, T b) {
  if constexpr (is_complex_v<T>) {  // NumPy's Smith division, bit for bit (loops.c.src)
    using R = typename T::value_type;
    const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    const R abr = std::fabs(br), abi = std::fabs(bi);
    if (abr >= abi) {
      if (abr == 0 && abi == 0) return T(ar / abr, ai / abr);
      const R rat = bi / br, scl = R(1) / (br + bi * rat);
      return T((ar + ai * rat) * scl, (ai - ar * rat) * scl);
    }
    const R rat = br / bi, scl = R(1) / (bi + br * rat);
    return T((ar * rat + ai) * scl, (ai * rat - ar) * scl);
  } else {
    return a / b;
  }
}

// npy_divmod: floor division and modulo with Python's sign rules, NaN/inf like NumPy
template <class T>
inline T floordiv(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1 && a == std::numeric_limits<T>::min()) return a;
      T q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      return q;
    } else {
      return a / b;
    }
  } else {
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    if (div == 0) return std::copysign(T(0), a / b);
    T fl = std::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  }
}

template <class T>
inline T mod(T a, T b) {
  if constexpr (is_int_v<T>) {
    if (b == 0) return 0;
    if constexpr (std::is_signed_v<T>) {
      if (b == -1) return 0;
      T r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return r;
    } else {
      return a % b;
    }
  } else {
    if (b == 0) return std::fmod(a, b);
    T r = std::fmod(a, b);
    if (r != 0) {
      if ((b < 0) != (r < 0)) r += b;
    } else {
      r = std::copysign(T(0), b);
    }
    return r;
  }
}

template <class T>
inline T power(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || !b;
  } else if constexpr (is_int_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b < 0) raise("ValueError", "Integers to negative integer powers are not allowed.");
    }
    T r = 1;
    while (b) {
      if (b & 1) r = static_cast<T>(r * a);
      a = static_cast<T>(a * a);
      b >>= 1;
    }
    return r;
  } else if constexpr (is_real_v<T>) {
    // small integer exponents (x ** 2, d ** 3 in loops) without a libm call; each is
    // correctly rounded like pow: one multiply for 2, a double-double product for 3
    if (b == T(2)) return a * a;
    if (b == T(1)) return a;
    if (b == T(-1)) return T(1) / a;
    if (b == T(3)) {
      constexpr bool narrow = sizeof(T) == sizeof(float);
      const T m = std::fabs(a);
      // no overflow or underflow inside the error terms
      if (m > (narrow ? T(0x1p-20f) : T(0x1p-300)) && m < (narrow ? T(0x1p40f) : T(0x1p300))) {
        const T p = a * a, e = std::fma(a, a, -p);  // a*a = p + e exactly
        const T hi = p * a, lo = std::fma(p, a, -hi) + e * a;
        return hi + lo;
      }
    }
    return std::pow(a, b);
  } else {
    return std::pow(a, b);
  }
}

template <class T>
inline T maximum(T a, T b) {
  if constexpr (is_real_v<T>) return (a >= b || std::isnan(a)) ? a : b;
  else if constexpr (is_complex_v<T>) return (a.real() > b.real() || (a.real() == b.real() && a.imag() >= b.imag())) ? a : b;
  else return a >= b ? a : b;
}
template <class T>
inline T minimum(T a, T b) {
  if constexpr (is_real_v<T>) return (a <= b || std::isnan(a)) ? a : b;
  else if constexpr (is_complex_v<T>) return (a.real() < b.real() || (a.real() == b.real() && a.imag() <= b.imag())) ? a : b;
  else return a <= b ? a : b;
}
template <class T> inline T fmax(T a, T b) { if constexpr (is_real_v<T>) return std::fmax(a, b); else return maximum(a, b); }
template <class T> inline T fmin(T a, T b) { if constexpr (is_real_v<T>) return std::fmin(a, b); else return minimum(a, b); }
template <class T> inline T arctan2(T a, T b) { return std::atan2(a, b); }
template <class T> inline T hypot(T a, T b) { return std::hypot(a, b); }
template <class T> inline T copysign(T a, T b) { return std::copysign(a, b); }

template <class T> inline bool truthy(T a) { if constexpr (is_complex_v<T>) return a != T(0); else return a != T(0); }
template <class T> inline bool logical_and(T a, T b) { return truthy(a) & truthy(b); }
template <class T> inline bool logical_or(T a, T b) { return truthy(a) | truthy(b); }
template <class T> inline bool logical_xor(T a, T b) { return truthy(a) != truthy(b); }
template <class T> inline bool logical_not(T a) { return !truthy(a); }

template <class T> inline T band(T a, T b) { if constexpr (std::is_same_v<T, bool>) return a & b; else return a & b; }
template <class T> inline T bor(T a, T b) { if constexpr (std::is_same_v<T, bool>) return a | b; else return a | b; }
template <class T> inline T bxor(T a, T b) { if constexpr (std::is_same_v<T, bool>) return a != b; else return a ^ b; }
template <class T> inline T invert(T a) { if constexpr (std::is_same_v<T, bool>) return !a; else return static_cast<T>(~a); }
template <class T>
inline T lshift(T a, T b) {
  if (b < 0 || b >= T(sizeof(T) * 8)) return 0;
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) << b);
}
template <class T>
inline T rshift(T a, T b) {
  if (b < 0 || b >= T(sizeof(T) * 8)) return a < 0 ? T(-1) : T(0);
  return static_cast<T>(a >> b);
}

#define EP_CMP(name, op)                                                           \
  template <class T>                                                               \
  inline bool name(T a, T b) {                                                     \
    if constexpr (is_complex_v<T>) {                                               \
      if constexpr (std::string_view(#op) == "==") return a == b;                  \
      else if constexpr (std::string_view(#op) == "!=") return a != b;             \
      else return (a.real() op b.real()) ||                                        \
                  (a.real() == b.real() && a.imag() op b.imag());                  \
    } else {                                                                       \
      return a op b;                                                               \
    }                                                                              \
  }
EP_CMP(eq, ==)
EP_CMP(ne, !=)
EP_CMP(lt, <)
EP_CMP(le, <=)
EP_CMP(gt, >)
EP_CMP(ge, >=)
#undef EP_CMP

#define EP_UNARY_STD(name, fn) \
  template <class T>           \
  inline T name(T a) { return fn(a); }
EP_UNARY_STD(exp, std::exp)
EP_UNARY_STD(log, std::log)
EP_UNARY_STD(log10, std::log10)
EP_UNARY_STD(sqrt, std::sqrt)
EP_UNARY_STD(sin, std::sin)
EP_UNARY_STD(cos, std::cos)
EP_UNARY_STD(tan, std::tan)
EP_UNARY_STD(arcsin, std::asin)
EP_UNARY_STD(arccos, std::acos)
EP_UNARY_STD(arctan, std::atan)
EP_UNARY_STD(sinh, std::sinh)
EP_UNARY_STD(cosh, std::cosh)
EP_UNARY_STD(tanh, std::tanh)
EP_UNARY_STD(arcsinh, std::asinh)
EP_UNARY_STD(arccosh, std::acosh)
EP_UNARY_STD(arctanh, std::atanh)
EP_UNARY_STD(exp2, std::exp2)
EP_UNARY_STD(expm1, std::expm1)
EP_UNARY_STD(log2, std::log2)
EP_UNARY_STD(log1p, std::log1p)
EP_UNARY_STD(cbrt, std::cbrt)
EP_UNARY_STD(floor, std::floor)
EP_UNARY_STD(ceil, std::ceil)
EP_UNARY_STD(trunc, std::trunc)
EP_UNARY_STD(rint, std::nearbyint)
#undef EP_UNARY_STD

template <class T> inline T square(T a) { if constexpr (std::is_same_v<T, bool>) return a; else return a * a; }
template <class T> inline T negative(T a) { return static_cast<T>(-a); }
template <class T> inline T positive(T a) { return a; }
template <class T>
inline auto absolute(T a) {
  // cabs is hypot(re, im); spelled out so the vector hypot (simd_math.hpp) applies
  if constexpr (is_complex_v<T>) return std::hypot(a.real(), a.imag());
  else if constexpr (std::is_same_v<T, bool> || std::is_unsigned_v<T>) return a;
  else if constexpr (is_half_v<T>) return half::from_bits(static_cast<uint16_t>(a.bits & 0x7fffu));  // NumPy clears the bit
  else if constexpr (is_real_v<T>) return std::fabs(a);
  else return static_cast<T>(a < 0 ? -a : a);
}
template <class T> inline T fabs(T a) { return std::fabs(a); }
template <class T>
inline T sign(T a) {
  if constexpr (is_complex_v<T>) { auto m = std::abs(a); return m == 0 ? T(0) : a / m; }
  else if constexpr (is_real_v<T>) { return std::isnan(a) ? a : (a > T(0) ? T(1) : (a < T(0) ? T(-1) : T(0))); }
  else return static_cast<T>((a > 0) - (a < 0));
}
template <class T>
inline T reciprocal(T a) {
  if constexpr (is_int_v<T>) return a == 0 ? T(0) : static_cast<T>(T(1) / a);
  else return T(1) / a;
}
template <class T> inline bool isnan(T a) { if constexpr (is_real_v<T>) return std::isnan(a); else if constexpr (is_complex_v<T>) return std::isnan(a.real()) || std::isnan(a.imag()); else return false; }
template <class T> inline bool isinf(T a) { if constexpr (is_real_v<T>) return std::isinf(a); else if constexpr (is_complex_v<T>) return std::isinf(a.real()) || std::isinf(a.imag()); else return false; }
template <class T> inline bool isfinite(T a) { if constexpr (is_real_v<T>) return std::isfinite(a); else if constexpr (is_complex_v<T>) return std::isfinite(a.real()) && std::isfinite(a.imag()); else return true; }
template <class T> inline bool signbit(T a) { return std::signbit(a); }
template <class T> inline T conjugate(T a) { if constexpr (is_complex_v<T>) return std::conj(a); else return a; }
template <class T> inline T deg2rad(T a) { return a * T(M_PI / 180.0); }
template <class T> inline T rad2deg(T a) { return a * T(180.0 / M_PI); }

// np.clip and np.where are element-wise too
template <class T> inline T clip(T a, T lo, T hi) { return minimum(maximum(a, lo), hi); }
template <class T> inline T where(bool c, T a, T b) { return c ? a : b; }

}  // namespace sc

namespace py {

template <class T>
inline constexpr bool is_float_v = std::is_floating_point_v<T>;

template <class T>
inline auto truediv(T a, T b) {
  if constexpr (is_complex_v<T>) {  // CPython's _Py_c_quot
    const double ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    const double abr = std::fabs(br), abi = std::fabs(bi);
    if (abr >= abi) {
      if (abr == 0.0) raise("ZeroDivisionError", "complex division by zero");
      const double ratio = bi / br, denom = br + bi * ratio;
      return T((ar + ai * ratio) / denom, (ai - ar * ratio) / denom);
    }
    if (abi >= abr) {
      const double ratio = br / bi, denom = br * ratio + bi;
      return T((ar * ratio + ai) / denom, (ai * ratio - ar) / denom);
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    return T(nan, nan);
  } else if constexpr (is_float_v<T>) {
    if (b == 0) raise("ZeroDivisionError", "float division by zero");
    return a / b;
  } else {
    if (b == 0) raise("ZeroDivisionError", "division by zero");
    return static_cast<double>(a) / static_cast<double>(b);
  }
}
template <class T>
inline T floordiv(T a, T b) {
  if (b == 0) {
    if constexpr (is_float_v<T>) raise("ZeroDivisionError", "float floor division by zero");
    else raise("ZeroDivisionError", "integer division or modulo by zero");
  }
  return sc::floordiv(a, b);
}
template <class T>
inline T mod(T a, T b) {
  if (b == 0) {
    if constexpr (is_float_v<T>) raise("ZeroDivisionError", "float modulo by zero");
    else raise("ZeroDivisionError", "integer modulo by zero");
  }
  return sc::mod(a, b);
}
template <class T>
inline T power(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if (b < 0) raise("ValueError", "negative integer exponent needs a float result; write x ** float(n) in compiled code");
    return sc::power(a, b);
  } else if constexpr (is_float_v<T>) {
    if (a == 0 && b < 0) raise("ZeroDivisionError", "0.0 cannot be raised to a negative power");
    if (a < 0 && std::floor(b) != b)
      raise("ValueError", "negative number raised to a fractional power is complex; use complex operands in compiled code");
    T r = std::pow(a, b);
    if (std::isinf(r) && std::isfinite(a) && std::isfinite(b)) raise("OverflowError", "(34, 'Numerical result out of range')");
    return r;
  } else {
    return std::pow(a, b);
  }
}
template <class T> inline T negative(T a) { return static_cast<T>(-a); }
template <class T> inline T positive(T a) { return a; }
template <class T> inline T invert(T a) { return static_cast<T>(~a); }
template <class T> inline bool not_(T a) { return !sc::truthy(a); }

// int(x) for a float: truncation, with Python's errors
inline int64_t to_int(double x) {
  if (std::isnan(x)) raise("ValueError", "cannot convert float NaN to integer");
  if (std::isinf(x)) raise("OverflowError", "cannot convert float infinity to integer");
  // CPython's int holds any float's integer part; outside int64 the cast would be undefined behaviour
  if (!(x >= -0x1p63 && x < 0x1p63))
    raise("OverflowError", "int() of a float beyond ±2**63 exceeds 64 bits (everypath ints are int64)");
  return static_cast<int64_t>(x);
}

}  // namespace py
}  // namespace ep

#include "half_scalar.hpp"  // float16 where computing in half itself would round differently from NumPy
