// float16 scalar semantics where the generic templates of scalar.hpp would round inside an operation.
// NumPy's float16 loops convert the operands to float32, run the float32 routine and round its result
// once (HALF_floor_divide, HALF_remainder, power and deg2rad through their float32 loops): these do the
// same. Every other operator is exact or rounds once already through ep::half's own operators.
#pragma once

#include <cmath>

#include "half.hpp"
#include "scalar.hpp"

namespace ep::sc {

template <>
inline half floordiv<half>(half a, half b) { return half(floordiv<float>(float(a), float(b))); }
template <>
inline half mod<half>(half a, half b) { return half(mod<float>(float(a), float(b))); }
// npy_powf: libm's powf, not scalar.hpp's small-exponent shortcuts (those round in the operand type)
template <>
inline half power<half>(half a, half b) { return half(std::pow(float(a), float(b))); }
template <>
inline half deg2rad<half>(half a) { return half(float(a) * (static_cast<float>(M_PI) / 180.0f)); }  // npy_deg2radf's constant
template <>
inline half rad2deg<half>(half a) { return half(float(a) * (180.0f / static_cast<float>(M_PI))); }

}  // namespace ep::sc
