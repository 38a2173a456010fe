// Python floats stored into integer arrays (a[i] = x, a[:] = x, a.fill(x)): NumPy 2 converts them
// with int() and range-checks the result like a Python int. NumPy scalars stored into signed integer
// arrays through an integer index or a basic slice take the same path (int(), C long, the dtype's
// range); into unsigned arrays, and through masks or index arrays, they are C casts.
#pragma once

#include <cmath>
#include <cstdint>

#include "everypath/everypath.hpp"

namespace ep {

template <class T>
inline void check_pyfloat_store(double x) {
  if (std::isnan(x)) raise("ValueError", "cannot convert float NaN to integer");
  if (std::isinf(x)) raise("OverflowError", "cannot convert float infinity to integer");
  const double t = std::trunc(x);
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (t >= 0.0 && t < 18446744073709551616.0) return;
  }
  // int(x) beyond int64 does not fit NumPy's C long conversion
  if (!(t >= -9223372036854775808.0 && t < 9223372036854775808.0)) {
    raise("OverflowError", "Python int too large to convert to C long");
  }
  (void)checked_int<T>(static_cast<int64_t>(t));
}

// np.uint64 into a signed array: int(v) first, which a C long holds only up to INT64_MAX
template <class T>
inline void check_npuint_store(uint64_t x) {
  if (x > static_cast<uint64_t>(INT64_MAX)) raise("OverflowError", "Python int too large to convert to C long");
  (void)checked_int<T>(static_cast<int64_t>(x));
}

}  // namespace ep
