// ep::half: NumPy's float16 (IEEE binary16) as an element type.
//
// NumPy's float16 loops convert each operand to float32, compute in float32
// and round the result to float16 (round to nearest even) once per ufunc. The
// operators below do exactly that, so a fused expression a * b + c rounds the
// product to float16 before the addition, as NumPy's two ufunc calls do: no
// excess precision survives from one operation to the next (half is a class,
// never a wider register type the compiler could keep).
//
// Conversions use the compiler's _Float16 where it has one (GCC >= 12 and
// Clang on x86-64/AArch64: F16C or AVX512-FP16 instructions under
// -march=native, libgcc's bit-exact __truncsfhf2 otherwise) and a portable
// bit-exact software conversion elsewhere (npy_floatbits_to_halfbits'
// algorithm). float -> half and double -> half both round once, directly
// (NumPy's npy_double_to_half does not go through float32).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ep {

namespace half_bits {

// half bits -> float bits: exact (every binary16 value is a binary32 value)
constexpr uint32_t to_float_bits(uint16_t h) noexcept {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t man = h & 0x3ffu;
  if (exp == 0x1fu) return sign | 0x7f800000u | (man << 13);  // inf / NaN (payload kept)
  if (exp != 0) return sign | ((exp + 112u) << 23) | (man << 13);
  if (man == 0) return sign;  // signed zero
  int e = 113;  // subnormal: normalise
  while ((man & 0x400u) == 0) {
    man <<= 1;
    --e;
  }
  return sign | (static_cast<uint32_t>(e) << 23) | ((man & 0x3ffu) << 13);
}

// float bits -> half bits, round to nearest even (npy_floatbits_to_halfbits)
constexpr uint16_t from_float_bits(uint32_t f) noexcept {
  const uint16_t sign = static_cast<uint16_t>((f >> 16) & 0x8000u);
  const uint32_t fe = f & 0x7f800000u;
  uint32_t fm = f & 0x007fffffu;
  if (fe >= 0x47800000u) {  // overflow, inf or NaN
    if (fe == 0x7f800000u && fm != 0) {
      uint16_t r = static_cast<uint16_t>(0x7c00u + (fm >> 13));
      if (r == 0x7c00u) ++r;  // keep it a NaN
      return static_cast<uint16_t>(sign | r);
    }
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (fe <= 0x38000000u) {  // subnormal half or zero
    if (fe < 0x33000000u) return sign;
    const uint32_t e = fe >> 23;
    fm |= 0x00800000u;
    const uint32_t shift = 126u - e;  // 14 .. 24 bits dropped
    uint32_t hm = fm >> shift;
    const uint32_t rest = fm & ((1u << shift) - 1u), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (hm & 1u))) ++hm;
    return static_cast<uint16_t>(sign | hm);
  }
  const uint32_t he = (fe - 0x38000000u) >> 13;
  uint32_t hm = fm >> 13;
  const uint32_t rest = fm & 0x1fffu;
  uint32_t r = he + hm;
  if (rest > 0x1000u || (rest == 0x1000u && (hm & 1u))) ++r;  // may carry into the exponent (or to inf)
  return static_cast<uint16_t>(sign | r);
}

// double bits -> half bits, rounded once (npy_doublebits_to_halfbits)
constexpr uint16_t from_double_bits(uint64_t d) noexcept {
  const uint16_t sign = static_cast<uint16_t>((d >> 48) & 0x8000u);
  const uint64_t de = d & 0x7ff0000000000000ull;
  uint64_t dm = d & 0x000fffffffffffffull;
  if (de >= 0x40f0000000000000ull) {
    if (de == 0x7ff0000000000000ull && dm != 0) {
      uint16_t r = static_cast<uint16_t>(0x7c00u + (dm >> 42));
      if (r == 0x7c00u) ++r;
      return static_cast<uint16_t>(sign | r);
    }
    return static_cast<uint16_t>(sign | 0x7c00u);
  }
  if (de <= 0x3f00000000000000ull) {
    if (de < 0x3e60000000000000ull) return sign;
    const uint64_t e = de >> 52;
    dm |= 0x0010000000000000ull;
    const uint64_t shift = 1051u - e;  // 43 .. 53 bits dropped
    uint64_t hm = dm >> shift;
    const uint64_t rest = dm & ((1ull << shift) - 1ull), halfway = 1ull << (shift - 1);
    if (rest > halfway || (rest == halfway && (hm & 1u))) ++hm;
    return static_cast<uint16_t>(sign | hm);
  }
  const uint64_t he = (de - 0x3f00000000000000ull) >> 42;
  const uint64_t hm = dm >> 42, rest = dm & 0x3ffffffffffull, halfway = 0x20000000000ull;
  uint64_t r = he + hm;
  if (rest > halfway || (rest == halfway && (hm & 1u))) ++r;
  return static_cast<uint16_t>(sign | r);
}

}  // namespace half_bits

struct half {
  uint16_t bits;  // no initialiser: trivially default-constructible, arrays of it are plain memory

  half() = default;
  half(float f) noexcept : bits(round(f)) {}   // NOLINT: implicit, as NumPy's casts are
  half(double d) noexcept : bits(round(d)) {}  // NOLINT
  template <class I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
  half(I i) noexcept : bits(round(static_cast<float>(i))) {}  // every int that is finite in float16 is exact in float

  static half from_bits(uint16_t b) noexcept {
    half h;
    h.bits = b;
    return h;
  }
  operator float() const noexcept {  // NOLINT: exact, so implicit
#if defined(__FLT16_MAX__)
    return static_cast<float>(std::bit_cast<_Float16>(bits));
#else
    return std::bit_cast<float>(half_bits::to_float_bits(bits));
#endif
  }

  static uint16_t round(float f) noexcept {
#if defined(__FLT16_MAX__)
    return std::bit_cast<uint16_t>(static_cast<_Float16>(f));
#else
    return half_bits::from_float_bits(std::bit_cast<uint32_t>(f));
#endif
  }
  static uint16_t round(double d) noexcept {
#if defined(__FLT16_MAX__)
    return std::bit_cast<uint16_t>(static_cast<_Float16>(d));
#else
    return half_bits::from_double_bits(std::bit_cast<uint64_t>(d));
#endif
  }

  // one rounding per operation: float32 computes +,-,*,/ of two halves then rounds once more, which is
  // the correctly rounded float16 result (24 >= 2 * 11 + 2 bits), as NumPy's HALF_add & co. give
  friend half operator+(half a, half b) noexcept { return half(float(a) + float(b)); }
  friend half operator-(half a, half b) noexcept { return half(float(a) - float(b)); }
  friend half operator*(half a, half b) noexcept { return half(float(a) * float(b)); }
  friend half operator/(half a, half b) noexcept { return half(float(a) / float(b)); }
  friend half operator-(half a) noexcept { return from_bits(static_cast<uint16_t>(a.bits ^ 0x8000u)); }  // NumPy flips the bit
  friend half operator+(half a) noexcept { return a; }
  half& operator+=(half b) noexcept { return *this = *this + b; }
  half& operator-=(half b) noexcept { return *this = *this - b; }
  half& operator*=(half b) noexcept { return *this = *this * b; }
  half& operator/=(half b) noexcept { return *this = *this / b; }
  friend bool operator==(half a, half b) noexcept { return float(a) == float(b); }
  friend bool operator!=(half a, half b) noexcept { return float(a) != float(b); }
  friend bool operator<(half a, half b) noexcept { return float(a) < float(b); }
  friend bool operator<=(half a, half b) noexcept { return float(a) <= float(b); }
  friend bool operator>(half a, half b) noexcept { return float(a) > float(b); }
  friend bool operator>=(half a, half b) noexcept { return float(a) >= float(b); }
  friend bool operator!(half a) noexcept { return (a.bits & 0x7fffu) == 0; }
};

static_assert(sizeof(half) == 2 && std::is_trivially_copyable_v<half> && std::is_trivially_default_constructible_v<half>);

template <class T>
inline constexpr bool is_half_v = std::is_same_v<std::decay_t<T>, half>;

// A real floating element type (float, double or half): the NaN-aware branches of the scalar semantics.
template <class T>
inline constexpr bool is_real_float_v = std::is_floating_point_v<T> || is_half_v<T>;

}  // namespace ep
