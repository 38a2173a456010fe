// Generator.binomial and Generator.poisson with NumPy's algorithms
// (numpy/random/src/distributions/distributions.c): binomial by inversion when
// min(p, 1-p) * n <= 30, else Kachitvichyanukul & Schmeiser's BTPE; poisson by
// multiplication of uniforms below lam = 10, else Hoermann's PTRS. The gotos mirror
// NumPy's code so the order of draws is the same.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "random_dist.hpp"

namespace ep {
namespace rnd {

inline int64_t binomial_btpe(PCG64& bg, BinomialCache& b, int64_t n, double p) {
  double r, q, fm, p1, xm, xl, xr, c, laml, lamr, p2, p3, p4;
  double a, u, v, s, F, rho, t, A, nrq, x1, x2, f1, f2, z, z2, w, w2, x;
  int64_t m, y, k, i;

  if (!b.has || b.nsave != n || b.psave != p) {
    b.nsave = n;
    b.psave = p;
    b.has = true;
    b.r = r = std::min(p, 1.0 - p);
    b.q = q = 1.0 - r;
    b.fm = fm = n * r + r;
    b.m = m = static_cast<int64_t>(std::floor(b.fm));
    b.p1 = p1 = std::floor(2.195 * std::sqrt(n * r * q) - 4.6 * q) + 0.5;
    b.xm = xm = m + 0.5;
    b.xl = xl = xm - p1;
    b.xr = xr = xm + p1;
    b.c = c = 0.134 + 20.5 / (15.3 + m);
    a = (fm - xl) / (fm - xl * r);
    b.laml = laml = a * (1.0 + a / 2.0);
    a = (xr - fm) / (xr * q);
    b.lamr = lamr = a * (1.0 + a / 2.0);
    b.p2 = p2 = p1 * (1.0 + 2.0 * c);
    b.p3 = p3 = p2 + c / laml;
    b.p4 = p4 = p3 + c / lamr;
  } else {
    r = b.r, q = b.q, fm = b.fm, m = b.m, p1 = b.p1, xm = b.xm, xl = b.xl, xr = b.xr, c = b.c;
    laml = b.laml, lamr = b.lamr, p2 = b.p2, p3 = b.p3, p4 = b.p4;
  }

Step10:
  nrq = n * r * q;
  u = bg.next_double() * p4;
  v = bg.next_double();
  if (u > p1) goto Step20;
  y = static_cast<int64_t>(std::floor(xm - p1 * v + u));
  goto Step60;

Step20:
  if (u > p2) goto Step30;
  x = xl + (u - p1) / c;
  v = v * c + 1.0 - std::fabs(m - x + 0.5) / p1;
  if (v > 1.0) goto Step10;
  y = static_cast<int64_t>(std::floor(x));
  goto Step50;

Step30:
  if (u > p3) goto Step40;
  y = static_cast<int64_t>(std::floor(xl + std::log(v) / laml));
  if ((y < 0) || (v == 0.0)) goto Step10;  // v == 0: the cast above was meaningless
  v = v * (u - p2) * laml;
  goto Step50;

Step40:
  y = static_cast<int64_t>(std::floor(xr - std::log(v) / lamr));
  if ((y > n) || (v == 0.0)) goto Step10;
  v = v * (u - p3) * lamr;

Step50:
  k = std::llabs(y - m);
  if ((k > 20) && (k < ((nrq) / 2.0 - 1))) goto Step52;
  s = r / q;
  a = s * (n + 1);
  F = 1.0;
  if (m < y) {
    for (i = m + 1; i <= y; i++) F *= (a / i - s);
  } else if (m > y) {
    for (i = y + 1; i <= m; i++) F /= (a / i - s);
  }
  if (v > F) goto Step10;
  goto Step60;

Step52:
  rho = (k / (nrq)) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);
  t = -k * k / (2 * nrq);
  A = std::log(v);
  if (A < (t - rho)) goto Step60;
  if (A > (t + rho)) goto Step10;
  x1 = y + 1;
  f1 = m + 1;
  z = n + 1 - m;
  w = n - y + 1;
  x2 = x1 * x1;
  f2 = f1 * f1;
  z2 = z * z;
  w2 = w * w;
  if (A > (xm * std::log(f1 / x1) + (n - m + 0.5) * std::log(z / w) + (y - m) * std::log(w * r / (x1 * q)) +
           (13680. - (462. - (132. - (99. - 140. / f2) / f2) / f2) / f2) / f1 / 166320. +
           (13680. - (462. - (132. - (99. - 140. / z2) / z2) / z2) / z2) / z / 166320. +
           (13680. - (462. - (132. - (99. - 140. / x2) / x2) / x2) / x2) / x1 / 166320. +
           (13680. - (462. - (132. - (99. - 140. / w2) / w2) / w2) / w2) / w / 166320.))
    goto Step10;

Step60:
  if (p > 0.5) y = n - y;
  return y;
}

inline int64_t binomial_inversion(PCG64& bg, BinomialCache& b, int64_t n, double p) {
  double q, qn, np, px, U;
  int64_t X, bound;
  if (!b.has || b.nsave != n || b.psave != p) {
    b.nsave = n;
    b.psave = p;
    b.has = true;
    b.q = q = 1.0 - p;
    b.r = qn = std::exp(n * std::log1p(-p));
    b.c = np = n * p;
    const double nd = static_cast<double>(n), cap = np + 10.0 * std::sqrt(np * q + 1);
    b.m = bound = static_cast<int64_t>(nd < cap ? nd : cap);
  } else {
    q = b.q, qn = b.r, np = b.c, bound = b.m;
  }
  X = 0;
  px = qn;
  U = bg.next_double();
  while (U > px) {
    X++;
    if (X > bound) {
      X = 0;
      px = qn;
      U = bg.next_double();
    } else {
      U -= px;
      px = ((n - X + 1) * p * px) / (X * q);
    }
  }
  return X;
}

inline int64_t binomial(PCG64& bg, BinomialCache& b, double p, int64_t n) {
  if (n == 0 || p == 0.0) return 0;
  if (p <= 0.5) return p * n <= 30.0 ? binomial_inversion(bg, b, n, p) : binomial_btpe(bg, b, n, p);
  const double q = 1.0 - p;
  return q * n <= 30.0 ? n - binomial_inversion(bg, b, n, q) : n - binomial_btpe(bg, b, n, q);
}

// random_loggam: log(Gamma(x)) by the SPECFUN series NumPy uses.
inline double loggam(double x) {
  static constexpr double a[10] = {8.333333333333333e-02, -2.777777777777778e-03, 7.936507936507937e-04,
                                   -5.952380952380952e-04, 8.417508417508418e-04, -1.917526917526918e-03,
                                   6.410256410256410e-03, -2.955065359477124e-02, 1.796443723688307e-01,
                                   -1.39243221690590e+00};
  double x0 = x, x2, xp, gl, gl0;
  int64_t k, n = 0;
  if ((x == 1.0) || (x == 2.0)) return 0.0;
  if (x <= 7.0) {
    n = static_cast<int64_t>(7 - x);
    x0 = x + n;
  }
  x2 = 1.0 / (x0 * x0);
  xp = 2 * 3.14159265358979323846;  // M_PI
  gl0 = a[9];
  for (k = 8; k >= 0; k--) {
    gl0 *= x2;
    gl0 += a[k];
  }
  gl = gl0 / x0 + 0.5 * std::log(xp) + (x0 - 0.5) * std::log(x0) - x0;
  if (x <= 7.0) {
    for (k = 1; k <= n; k++) {
      gl -= std::log(x0 - 1.0);
      x0 -= 1.0;
    }
  }
  return gl;
}

inline int64_t poisson_mult(PCG64& bg, double lam) {
  const double enlam = std::exp(-lam);
  int64_t X = 0;
  double prod = 1.0;
  for (;;) {
    prod *= bg.next_double();
    if (prod > enlam) X += 1;
    else return X;
  }
}

// The transformed rejection method of W. Hoermann (1993).
inline int64_t poisson_ptrs(PCG64& bg, double lam) {
  const double slam = std::sqrt(lam), loglam = std::log(lam);
  const double b = 0.931 + 2.53 * slam;
  const double a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4);
  const double vr = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double U = bg.next_double() - 0.5;
    const double V = bg.next_double();
    const double us = 0.5 - std::fabs(U);
    const int64_t k = static_cast<int64_t>(std::floor((2 * a / us + b) * U + lam + 0.43));
    if ((us >= 0.07) && (V <= vr)) return k;
    if ((k < 0) || ((us < 0.013) && (V > us))) continue;
    if ((std::log(V) + std::log(invalpha) - std::log(a / (us * us) + b)) <= (-lam + k * loglam - loggam(k + 1)))
      return k;
  }
}

inline int64_t poisson(PCG64& bg, double lam) {
  if (lam >= 10) return poisson_ptrs(bg, lam);
  if (lam == 0) return 0;
  return poisson_mult(bg, lam);
}

// POISSON_LAM_MAX of numpy/random/_common.pyx: int64 max less 10 sigma
inline double poisson_lam_max() {
  const double top = static_cast<double>(std::numeric_limits<int64_t>::max());
  return top - std::sqrt(top) * 10;
}

inline void binomial_checks(int64_t n, double p) {
  if (!(p >= 0) || !(p <= 1)) raise("ValueError", "p < 0, p > 1 or p is NaN");
  check_non_negative(static_cast<double>(n), "n");
}

inline void poisson_checks(double lam) {
  if (!(lam >= 0)) raise("ValueError", "lam < 0 or lam is NaN");
  if (lam > poisson_lam_max()) raise("ValueError", "lam value too large");
}

}  // namespace rnd

inline int64_t rng_binomial_scalar(const Generator& g, int64_t n, double p) {
  rnd::binomial_checks(n, p);
  return rnd::binomial(g.bg(), g.st->binomial, p, n);
}
template <int N>
Array<int64_t, N> rng_binomial(const Generator& g, int64_t n, double p, const std::array<index_t, N>& shape) {
  rnd::binomial_checks(n, p);
  rnd::State& st = *g.st;
  return rnd::fill<int64_t, N>(shape, [&] { return rnd::binomial(st.pcg, st.binomial, p, n); });
}

inline int64_t rng_poisson_scalar(const Generator& g, double lam) {
  rnd::poisson_checks(lam);
  return rnd::poisson(g.bg(), lam);
}
template <int N>
Array<int64_t, N> rng_poisson(const Generator& g, double lam, const std::array<index_t, N>& shape) {
  rnd::poisson_checks(lam);
  rnd::PCG64& bg = g.bg();
  return rnd::fill<int64_t, N>(shape, [&] { return rnd::poisson(bg, lam); });
}

}  // namespace ep
