// Generator's continuous distributions with NumPy's algorithms (numpy/random/src/
// distributions/distributions.c): the 256-layer ziggurats of standard_normal and
// standard_exponential (NumPy's own tables, random_zig_*.hpp), uniform, normal and
// exponential. The libm calls are the scalar glibc functions NumPy calls (exp, log1p,
// expf, log1pf; std::log1p of a float is log1pf), so results are bit-identical.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "random_core.hpp"
#include "random_zig_double.hpp"
#include "random_zig_float.hpp"

namespace ep {
namespace rnd {

inline constexpr double kNorR = 3.6541528853610087963519472518;
inline constexpr double kNorInvR = 0.27366123732975827203338247596;  // 1 / kNorR
inline constexpr double kExpR = 7.6971174701310497140446280481;
inline constexpr float kNorRf = 3.6541528853610087963519472518f;
inline constexpr float kNorInvRf = 0.27366123732975827203338247596f;
inline constexpr float kExpRf = 7.6971174701310497140446280481f;

// random_standard_normal
inline double standard_normal(PCG64& g) {
  for (;;) {
    uint64_t r = g.next64();
    const int idx = static_cast<int>(r & 0xff);
    r >>= 8;
    const int sign = static_cast<int>(r & 0x1);
    const uint64_t rabs = (r >> 1) & 0x000fffffffffffffULL;
    double x = static_cast<double>(rabs) * zig::wi_double[idx];
    if (sign & 0x1) x = -x;
    if (rabs < zig::ki_double[idx]) return x;  // 99.3% of draws end here
    if (idx == 0) {
      for (;;) {
        const double xx = -kNorInvR * std::log1p(-g.next_double());
        const double yy = -std::log1p(-g.next_double());
        if (yy + yy > xx * xx) return ((rabs >> 8) & 0x1) ? -(kNorR + xx) : kNorR + xx;
      }
    }
    if ((zig::fi_double[idx - 1] - zig::fi_double[idx]) * g.next_double() + zig::fi_double[idx] < std::exp(-0.5 * x * x))
      return x;
  }
}

// random_standard_normal_f (the acceptance test is in double, as NumPy's)
inline float standard_normal_f(PCG64& g) {
  for (;;) {
    const uint32_t r = g.next32();
    const int idx = static_cast<int>(r & 0xff);
    const uint32_t sign = (r >> 8) & 0x1;
    const uint32_t rabs = (r >> 9) & 0x0007fffff;
    float x = static_cast<float>(rabs) * zig::wi_float[idx];
    if (sign & 0x1) x = -x;
    if (rabs < zig::ki_float[idx]) return x;
    if (idx == 0) {
      for (;;) {
        const float xx = -kNorInvRf * std::log1p(-g.next_float());
        const float yy = -std::log1p(-g.next_float());
        if (yy + yy > xx * xx) return ((rabs >> 8) & 0x1) ? -(kNorRf + xx) : kNorRf + xx;
      }
    }
    if (static_cast<double>((zig::fi_float[idx - 1] - zig::fi_float[idx]) * g.next_float() + zig::fi_float[idx]) <
        std::exp(-0.5 * static_cast<double>(x) * static_cast<double>(x)))
      return x;
  }
}

// random_standard_exponential (ziggurat); NumPy's tail call on rejection is the loop
inline double standard_exponential(PCG64& g) {
  for (;;) {
    uint64_t ri = g.next64();
    ri >>= 3;
    const uint8_t idx = static_cast<uint8_t>(ri & 0xFF);
    ri >>= 8;
    const double x = static_cast<double>(ri) * zig::we_double[idx];
    if (ri < zig::ke_double[idx]) return x;  // 98.9% of draws end here
    if (idx == 0) return kExpR - std::log1p(-g.next_double());
    if ((zig::fe_double[idx - 1] - zig::fe_double[idx]) * g.next_double() + zig::fe_double[idx] < std::exp(-x)) return x;
  }
}

inline float standard_exponential_f(PCG64& g) {
  for (;;) {
    uint32_t ri = g.next32();
    ri >>= 1;
    const uint8_t idx = static_cast<uint8_t>(ri & 0xFF);
    ri >>= 8;
    const float x = static_cast<float>(ri) * zig::we_float[idx];
    if (ri < zig::ke_float[idx]) return x;
    if (idx == 0) return kExpRf - std::log1p(-g.next_float());
    if ((zig::fe_float[idx - 1] - zig::fe_float[idx]) * g.next_float() + zig::fe_float[idx] < std::exp(-x)) return x;
  }
}

// standard_exponential(method='inv')
inline double standard_exponential_inv(PCG64& g) { return -std::log1p(-g.next_double()); }
inline float standard_exponential_inv_f(PCG64& g) {
  return static_cast<float>(-std::log1p(static_cast<double>(-g.next_float())));
}

// check_constraint(CONS_NON_NEGATIVE): a negative sign bit (even -0.0), NaN passes.
inline void check_non_negative(double v, const char* name) {
  if (!std::isnan(v) && std::signbit(v)) raise("ValueError", std::string(name) + " < 0");
}

}  // namespace rnd

// standard_normal / standard_exponential (size=None gives a Python float, also for float32).
template <class T>
double rng_standard_normal_scalar(const Generator& g) {
  if constexpr (std::is_same_v<T, float>) return rnd::standard_normal_f(g.bg());
  else return rnd::standard_normal(g.bg());
}
template <class T, int N>
Array<T, N> rng_standard_normal(const Generator& g, const std::array<index_t, N>& shape) {
  rnd::PCG64& bg = g.bg();
  if constexpr (std::is_same_v<T, float>) return rnd::fill<T, N>(shape, [&] { return rnd::standard_normal_f(bg); });
  else return rnd::fill<T, N>(shape, [&] { return rnd::standard_normal(bg); });
}

template <class T>
T rng_std_exp_draw(rnd::PCG64& bg, bool inv) {
  if constexpr (std::is_same_v<T, float>) return inv ? rnd::standard_exponential_inv_f(bg) : rnd::standard_exponential_f(bg);
  else return inv ? rnd::standard_exponential_inv(bg) : rnd::standard_exponential(bg);
}
template <class T>
double rng_standard_exponential_scalar(const Generator& g, bool inv) { return rng_std_exp_draw<T>(g.bg(), inv); }
template <class T, int N>
Array<T, N> rng_standard_exponential(const Generator& g, bool inv, const std::array<index_t, N>& shape) {
  rnd::PCG64& bg = g.bg();
  return rnd::fill<T, N>(shape, [&] { return rng_std_exp_draw<T>(bg, inv); });
}

// normal(loc, scale) = loc + scale * standard_normal
inline double rng_normal_scalar(const Generator& g, double loc, double scale) {
  rnd::check_non_negative(scale, "scale");
  return loc + scale * rnd::standard_normal(g.bg());
}
template <int N>
Array<double, N> rng_normal(const Generator& g, double loc, double scale, const std::array<index_t, N>& shape) {
  rnd::check_non_negative(scale, "scale");
  rnd::PCG64& bg = g.bg();
  return rnd::fill<double, N>(shape, [&] { return loc + scale * rnd::standard_normal(bg); });
}

// exponential(scale) = scale * standard_exponential
inline double rng_exponential_scalar(const Generator& g, double scale) {
  rnd::check_non_negative(scale, "scale");
  return scale * rnd::standard_exponential(g.bg());
}
template <int N>
Array<double, N> rng_exponential(const Generator& g, double scale, const std::array<index_t, N>& shape) {
  rnd::check_non_negative(scale, "scale");
  rnd::PCG64& bg = g.bg();
  return rnd::fill<double, N>(shape, [&] { return scale * rnd::standard_exponential(bg); });
}

// uniform(low, high) = low + (high - low) * next_double
inline double rng_uniform_range(double low, double high) {
  const double range = high - low;
  if (!std::isfinite(range)) raise("OverflowError", "high - low range exceeds valid bounds");
  rnd::check_non_negative(range, "high - low");
  return range;
}
inline double rng_uniform_scalar(const Generator& g, double low, double high) {
  const double range = rng_uniform_range(low, high);
  return low + range * g.bg().next_double();
}
template <int N>
Array<double, N> rng_uniform(const Generator& g, double low, double high, const std::array<index_t, N>& shape) {
  const double range = rng_uniform_range(low, high);
  rnd::PCG64& bg = g.bg();
  return rnd::fill<double, N>(shape, [&] { return low + range * bg.next_double(); });
}

}  // namespace ep
