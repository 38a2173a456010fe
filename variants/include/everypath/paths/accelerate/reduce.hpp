// The accelerate path of full reductions on Apple targets: vDSP's vectorised
// sum / max / min over contiguous float and double arrays (vDSP_sve, vDSP_maxv,
// vDSP_minv and their D variants). NaN: vDSP does not propagate NaN like np.max,
// so a NaN check (vDSP_maxv on x != x is not available) falls back to the loops
// kernel whenever the sum is NaN. Other layouts and dtypes: the loops kernel.
#pragma once

#include <cmath>

#include "../../ops/reduce.hpp"

#if defined(__APPLE__) && defined(EP_HAVE_ACCELERATE)
#include <Accelerate/Accelerate.h>

namespace ep::accelerate {

inline float vsum(const float* p, index_t n) { float s = 0; vDSP_sve(p, 1, &s, static_cast<vDSP_Length>(n)); return s; }
inline double vsum(const double* p, index_t n) { double s = 0; vDSP_sveD(p, 1, &s, static_cast<vDSP_Length>(n)); return s; }
inline float vmax(const float* p, index_t n) { float s = 0; vDSP_maxv(p, 1, &s, static_cast<vDSP_Length>(n)); return s; }
inline double vmax(const double* p, index_t n) { double s = 0; vDSP_maxvD(p, 1, &s, static_cast<vDSP_Length>(n)); return s; }
inline float vmin(const float* p, index_t n) { float s = 0; vDSP_minv(p, 1, &s, static_cast<vDSP_Length>(n)); return s; }
inline double vmin(const double* p, index_t n) { double s = 0; vDSP_minvD(p, 1, &s, static_cast<vDSP_Length>(n)); return s; }

template <class R, class T, int N>
R sum_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T> && std::is_floating_point_v<T>)
    if (a.contiguous()) return R(0) + vsum(a.data, a.size());
  return red::reduce_all<red::Sum<R>>(a);
}

template <class R, class T, int N>
R max_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T> && std::is_floating_point_v<T>)
    if (a.contiguous() && a.size() > 0 && !std::isnan(vsum(a.data, a.size()))) return vmax(a.data, a.size());
  return red::reduce_all<red::Max<R>>(a);
}

template <class R, class T, int N>
R min_all(const Array<T, N>& a) {
  if constexpr (std::is_same_v<R, T> && std::is_floating_point_v<T>)
    if (a.contiguous() && a.size() > 0 && !std::isnan(vsum(a.data, a.size()))) return vmin(a.data, a.size());
  return red::reduce_all<red::Min<R>>(a);
}

template <class R, class A, class T, int N>
R mean_all(const Array<T, N>& a) {
  A s = accelerate::sum_all<A>(a);
  return elem_cast<R>(red::div_count<A>(s, static_cast<double>(a.size())));
}

}  // namespace ep::accelerate
#endif
