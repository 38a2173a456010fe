// Extra element-wise functions with NumPy's scalar semantics (ep::sc::, used by
// fused element-wise loops like scalar.hpp's): logaddexp, logaddexp2, heaviside,
// ldexp, fmod, float_power, gcd, lcm, nextafter, spacing, sinc, i0, fix,
// isposinf, isneginf, isreal, iscomplex; and the two-output ufuncs modf, frexp
// and divmod (ep::ufx::map2: one pass writing both result arrays).
// Each function computes in the loop dtype NumPy picks (the emitter casts first).
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>

#include "../array.hpp"
#include "../map.hpp"
#include "../scalar.hpp"

namespace ep {
namespace sc {

// npy_logaddexp: equal arguments (also same-signed infinities) short-cut; NaN passes through
template <class T>
inline T logaddexp(T x, T y) {
  if (x == y) return x + T(0.693147180559945309417232121458176568);
  const T tmp = x - y;
  if (tmp > 0) return x + std::log1p(std::exp(-tmp));
  if (tmp <= 0) return y + std::log1p(std::exp(tmp));
  return tmp;
}

// npy_logaddexp2, with npy_log2_1p(x) = LOG2E * log1p(x)
template <class T>
inline T logaddexp2(T x, T y) {
  const T log2e = T(1.442695040888963407359924681001892137);
  if (x == y) return x + T(1);
  const T tmp = x - y;
  if (tmp > 0) return x + log2e * std::log1p(std::exp2(-tmp));
  if (tmp <= 0) return y + log2e * std::log1p(std::exp2(tmp));
  return tmp;
}

template <class T>
inline T heaviside(T x, T h0) {
  if (std::isnan(x)) return std::numeric_limits<T>::quiet_NaN();
  if (x == 0) return h0;
  return x < 0 ? T(0) : T(1);
}

// exponent: int32 or int64 loop; int64 exponents beyond int saturate as NumPy's 'l' loops
template <class T, class I>
inline T ldexp(T x, I e) {
  if constexpr (sizeof(I) > sizeof(int)) {
    if (e > std::numeric_limits<int>::max()) return std::ldexp(x, std::numeric_limits<int>::max());
    if (e < std::numeric_limits<int>::min()) return std::ldexp(x, std::numeric_limits<int>::min());
  }
  return std::ldexp(x, static_cast<int>(e));
}

// C fmod: the remainder has the dividend's sign; integer division by zero gives 0
template <class T>
inline T fmod(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::fmod(a, b);
  } else {
    if (b == 0) return T(0);
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return T(0);  // also MIN % -1, undefined in C
    }
    return static_cast<T>(a % b);
  }
}

// npy_cpow: exact small integer powers by repeated multiplication, else cpow
template <class C>
inline C cpow(C a, C b) {
  using R = typename C::value_type;
  const R ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  if (br == 0 && bi == 0) return C(1, 0);
  if (ar == 0 && ai == 0) {
    if (br > 0 && bi == 0) return C(0, 0);
    return C(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN());
  }
  if (bi == 0 && br >= R(-1e18) && br <= R(1e18)) {
    int64_t n = static_cast<int64_t>(br);
    if (static_cast<R>(n) == br) {
      if (n == 1) return a;
      if (n == 2) return mul(a, a);
      if (n == 3) return mul(a, mul(a, a));
      if (n > -100 && n < 100) {
        C aa(1, 0), p = a;
        int64_t mask = 1;
        if (n < 0) n = -n;
        while (true) {
          if (n & mask) aa = mul(aa, p);
          mask <<= 1;
          if (n < mask || mask <= 0) break;
          p = mul(p, p);
        }
        return br < 0 ? truediv(C(1, 0), aa) : aa;
      }
    }
  }
  return std::pow(a, b);
}

// float_power loops only in float64 / complex128 (the emitter casts to them)
template <class T>
inline T float_power(T a, T b) {
  if constexpr (is_complex_v<T>) return cpow(a, b);
  else return std::pow(a, b);
}

// npy_gcd / npy_lcm: Euclid on absolute values in C's promoted type (int for int8/int16,
// so |-128| is 128 there; the wrapped minimum for int32/int64), cast back
template <class T>
using gcd_work_t = std::conditional_t<(sizeof(T) < sizeof(int)), int, T>;

template <class T>
inline T gcd(T a_, T b_) {
  using W = gcd_work_t<T>;
  W a = a_, b = b_;
  if constexpr (std::is_signed_v<W>) {
    a = static_cast<W>(a < 0 ? -a : a);
    b = static_cast<W>(b < 0 ? -b : b);
  }
  while (a != 0) {
    W c = a;
    a = static_cast<W>(b % a);
    b = c;
  }
  return static_cast<T>(b);
}
template <class T>
inline T lcm(T a_, T b_) {
  using W = gcd_work_t<T>;
  const W g = gcd<W>(W(a_), W(b_));
  if (g == 0) return T(0);
  W a = a_, b = b_;
  if constexpr (std::is_signed_v<W>) {
    a = static_cast<W>(a < 0 ? -a : a);
    b = static_cast<W>(b < 0 ? -b : b);
  }
  return static_cast<T>(static_cast<W>(static_cast<W>(a / g) * b));
}

template <class T>
inline T nextafter(T a, T b) { return std::nextafter(a, b); }

// npy_spacing: distance to the next value away from zero (+0 and -0 step upwards)
template <class T>
inline T spacing(T x) {
  if (std::isinf(x)) return std::numeric_limits<T>::quiet_NaN();
  const T inf = std::numeric_limits<T>::infinity();
  return std::nextafter(x, x < 0 ? -inf : inf) - x;
}

// np.sinc: y = pi * x, replaced by eps (finfo(dtype).eps for reals, 1e-20 for complex) where 0
template <class T>
inline T sinc(T x) {
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    T y = mul(T(R(M_PI), R(0)), x);
    if (y == T(0)) y = T(R(1e-20), R(0));
    return truediv(std::sin(y), y);
  } else {
    T y = T(M_PI) * x;
    if (y == T(0)) y = std::numeric_limits<T>::epsilon();
    return std::sin(y) / y;
  }
}

namespace detail {
// Chebyshev coefficients of NumPy's np.i0 (Cephes), evaluated as its _chbevl does
inline constexpr double i0A[30] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16,
    1.71539128555513303061E-15,  -1.16853328779934516808E-14, 7.67618549860493561688E-14,
    -4.85644678311192946090E-13, 2.95505266312963983461E-12, -1.72682629144155570723E-11,
    9.67580903537323691224E-11,  -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8,  6.04699502254191894932E-8,  -2.67079385394061173391E-7,
    1.11738753912010371815E-6,   -4.41673835845875056359E-6, 1.64484480707288970893E-5,
    -5.75419501008210370398E-5,  1.88502885095841655729E-4,  -5.76375574538582365885E-4,
    1.63947561694133579842E-3,   -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2,  4.93052842396707084878E-2,  -9.49010970480476444210E-2,
    1.71620901522208775349E-1,   -3.04682672343198398683E-1, 6.76795274409476084995E-1};
inline constexpr double i0B[25] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17,
    3.46122286769746109310E-17,  -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,  -9.55484669882830764870E-15,
    -4.15056934728722208663E-14, 1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12, -1.32158118404477131188E-11,
    -3.14991652796324136454E-11, 1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,   2.04891858946906374183E-7,
    2.89137052083475648297E-6,   6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};

template <class T, int K>
inline T chbevl(T x, const double (&vals)[K]) {
  T b0 = T(vals[0]), b1 = T(0), b2 = T(0);
  for (int i = 1; i < K; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + T(vals[i]);
  }
  return T(0.5) * (b0 - b2);
}
}  // namespace detail

// np.i0 in the float dtype (float32 stays float32, like NumPy's array arithmetic)
template <class T>
inline T i0(T x) {
  x = std::fabs(x);
  if (x <= T(8)) return std::exp(x) * detail::chbevl<T>(x / T(2) - T(2), detail::i0A);
  return std::exp(x) * detail::chbevl<T>(T(32) / x - T(2), detail::i0B) / std::sqrt(x);
}

// np.fix is np.trunc (integers and booleans unchanged)
template <class T>
inline T fix(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::trunc(x);
  else return x;
}

template <class T>
inline bool isposinf(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isinf(x) && !std::signbit(x);
  else return false;
}
template <class T>
inline bool isneginf(T x) {
  if constexpr (std::is_floating_point_v<T>) return std::isinf(x) && std::signbit(x);
  else return false;
}
template <class T>
inline bool isreal(T x) {
  if constexpr (is_complex_v<T>) return x.imag() == 0;
  else return true;
}
template <class T>
inline bool iscomplex(T x) {
  if constexpr (is_complex_v<T>) return x.imag() != 0;
  else return false;
}

// two-output ufuncs, as pairs
template <class T>
inline std::pair<T, T> modf(T x) {
  T ip;
  T fp = std::modf(x, &ip);
  return {fp, ip};
}
template <class T>
inline std::pair<T, int32_t> frexp(T x) {
  int e = 0;
  T m = std::frexp(x, &e);
  return {m, static_cast<int32_t>(e)};
}
template <class T>
inline std::pair<T, T> divmod(T a, T b) {
  return {floordiv(a, b), mod(a, b)};
}

}  // namespace sc

namespace ufx {

// Both outputs of a two-output element-wise function over the broadcast operands
// (f returns a pair), in one pass.
template <class O1, class O2, int N, class F, class... Ops>
std::tuple<Array<O1, N>, Array<O2, N>> map2(F f, const Ops&... ops) {
  auto shape = broadcast_shape<N>(ops...);
  Array<O1, N> a = empty<O1, N>(shape);
  Array<O2, N> b = empty<O2, N>(shape);
  if ((same_contiguous<Ops, N>(ops, shape) && ...)) {
    const index_t n = a.size();
    for (index_t i = 0; i < n; ++i) {
      auto r = f(flat_get(ops, i)...);
      a.data[i] = r.first;
      b.data[i] = r.second;
    }
  } else {
    auto tup = std::tie(ops...);
    walk<N>(shape, a.strides, [&](index_t d, const auto& offs) {
      auto r = apply_offs(f, tup, offs, std::index_sequence_for<Ops...>{});
      a.data[d] = r.first;
      b.data[d] = r.second;
    }, ops...);
  }
  return {a, b};
}

template <class P>
inline auto as_tuple(const P& p) { return std::make_tuple(p.first, p.second); }

}  // namespace ufx
}  // namespace ep
