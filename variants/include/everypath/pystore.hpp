// Python floats stored into integer arrays (a[i] = x, a[:] = x, a.fill(x)): NumPy 2 converts them
// with int() and range-checks the result like a Python int. NumPy scalars are C casts instead.
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

}  // namespace ep
