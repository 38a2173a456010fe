// One-dimensional complex FFT of any length in O(n log n): recursive mixed
// radix (special butterflies for 2 and 4, a generic one for other small
// primes) and Bluestein's chirp-z convolution, through a power-of-two FFT,
// for lengths with a prime factor above kMaxRadix. Computed in double;
// plans (factors, twiddles, chirps) are cached per length and thread.
#pragma once

#include <cmath>
#include <complex>
#include <memory>
#include <unordered_map>
#include <vector>

#include "../array.hpp"

namespace ep {
namespace fftk {

using cd = std::complex<double>;
inline constexpr index_t kMaxRadix = 31;

struct Plan {
  index_t n = 0;
  std::vector<index_t> factors;
  std::vector<cd> tw;  // exp(-2 pi i j / n)
  // Bluestein: chirp w_k = exp(-i pi k^2 / n), FFT of the conjugate chirp, length-m plan
  bool bluestein = false;
  index_t m = 0;
  std::vector<cd> chirp, bhat;
  std::shared_ptr<const Plan> sub;
};

inline std::shared_ptr<const Plan> plan_for(index_t n);

// complex product without the C99 Annex G NaN recovery (__muldc3): twiddles are finite
inline cd cmul(const cd& a, const cd& b) {
  return cd(a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real());
}

inline std::vector<index_t> factorize(index_t n) {
  std::vector<index_t> f;
  if (n == 1) return {1};
  while (n % 4 == 0) f.push_back(4), n /= 4;
  while (n % 2 == 0) f.push_back(2), n /= 2;
  for (index_t p = 3; p * p <= n; p += 2)
    while (n % p == 0) f.push_back(p), n /= p;
  if (n > 1) f.push_back(n);
  return f;
}

// exp(-2 pi i num / den) for 0 <= num < den: folded into the first octant, so the
// angle handed to sin/cos is small and the result symmetric to the last bit
inline cd unit(index_t num, index_t den) {
  const double pi = 3.141592653589793238462643383279502884;
  // 8 * num / den in [0, 8): octant o, remainder r / (den) in eighths of the circle
  const index_t n8 = 8 * num;
  const index_t o = n8 / den;
  const index_t rem = n8 - o * den;  // angle within the octant: (rem / den) * (pi / 4)
  auto at = [&](index_t r) { const double t = (pi / 4) * (static_cast<double>(r) / static_cast<double>(den)); return cd(std::cos(t), std::sin(t)); };
  cd v;
  switch (o) {  // e^{i theta}, theta = o * pi / 4 + delta
    case 0: v = at(rem); break;
    case 1: { const cd w = at(den - rem); v = cd(w.imag(), w.real()); break; }
    case 2: { const cd w = at(rem); v = cd(-w.imag(), w.real()); break; }
    case 3: { const cd w = at(den - rem); v = cd(-w.real(), w.imag()); break; }
    case 4: { const cd w = at(rem); v = cd(-w.real(), -w.imag()); break; }
    case 5: { const cd w = at(den - rem); v = cd(-w.imag(), -w.real()); break; }
    case 6: { const cd w = at(rem); v = cd(w.imag(), -w.real()); break; }
    default: { const cd w = at(den - rem); v = cd(w.real(), -w.imag()); break; }
  }
  return std::conj(v);  // the forward transform turns clockwise
}

inline std::shared_ptr<const Plan> make_plan(index_t n) {
  auto p = std::make_shared<Plan>();
  p->n = n;
  p->factors = factorize(n);
  index_t largest = 1;
  for (index_t f : p->factors) largest = std::max(largest, f);
  if (largest > kMaxRadix) {
    p->bluestein = true;
    index_t m = 1;
    while (m < 2 * n - 1) m *= 2;
    p->m = m;
    p->chirp.resize(static_cast<size_t>(n));
    for (index_t k = 0; k < n; ++k) {
      const index_t k2 = static_cast<index_t>((static_cast<unsigned __int128>(k) * k) % (2 * n));
      p->chirp[static_cast<size_t>(k)] = unit(k2, 2 * n);
    }
    p->sub = plan_for(m);
    p->bhat.resize(static_cast<size_t>(m));  // filled by plan_for, once transform is known
  } else {
    p->tw.resize(static_cast<size_t>(n));
    for (index_t j = 0; j < n; ++j) p->tw[static_cast<size_t>(j)] = unit(j, n);
  }
  return p;
}

// out[0..n) = DFT(in[0], in[s], ..., in[(n-1)s]) for a mixed-radix plan
inline void mixed(const Plan& P, const cd* in, index_t s, cd* out, index_t n, size_t fi, index_t tws) {
  const index_t p0 = P.factors[fi];
  if (n == p0) {  // the last factor: a p-point DFT straight from the strided input
    const cd* tw = P.tw.data();
    const index_t step = P.n / p0;
    if (p0 == 1) {
      out[0] = in[0];
    } else if (p0 == 2) {
      out[0] = in[0] + in[s];
      out[1] = in[0] - in[s];
    } else if (p0 == 4) {
      const cd s02 = in[0] + in[2 * s], d02 = in[0] - in[2 * s], s13 = in[s] + in[3 * s], d13 = in[s] - in[3 * s];
      const cd jd13(d13.imag(), -d13.real());
      out[0] = s02 + s13;
      out[1] = d02 + jd13;
      out[2] = s02 - s13;
      out[3] = d02 - jd13;
    } else {
      for (index_t q = 0; q < p0; ++q) {
        cd acc = in[0];
        for (index_t r = 1; r < p0; ++r) acc += cmul(in[r * s], tw[((r * q) % p0) * step]);
        out[q] = acc;
      }
    }
    return;
  }
  const index_t p = P.factors[fi], m = n / p, N = P.n;
  for (index_t r = 0; r < p; ++r) mixed(P, in + r * s, s * p, out + r * m, m, fi + 1, tws * p);
  const cd* tw = P.tw.data();
  if (p == 2) {
    for (index_t k = 0; k < m; ++k) {
      const cd a = out[k], b = cmul(out[k + m], tw[k * tws]);
      out[k] = a + b;
      out[k + m] = a - b;
    }
  } else if (p == 4) {
    for (index_t k = 0; k < m; ++k) {
      const cd a0 = out[k], a1 = cmul(out[k + m], tw[k * tws]), a2 = cmul(out[k + 2 * m], tw[2 * k * tws]),
               a3 = cmul(out[k + 3 * m], tw[3 * k * tws]);
      const cd s02 = a0 + a2, d02 = a0 - a2, s13 = a1 + a3, d13 = a1 - a3;
      const cd jd13(d13.imag(), -d13.real());  // -i * d13
      out[k] = s02 + s13;
      out[k + m] = d02 + jd13;
      out[k + 2 * m] = s02 - s13;
      out[k + 3 * m] = d02 - jd13;
    }
  } else {
    cd t[kMaxRadix];
    const index_t step = N / p;
    for (index_t k = 0; k < m; ++k) {
      for (index_t r = 0; r < p; ++r) t[r] = cmul(out[k + r * m], tw[r * k * tws]);
      for (index_t q = 0; q < p; ++q) {
        cd acc = t[0];
        for (index_t r = 1; r < p; ++r) acc += cmul(t[r], tw[((r * q) % p) * step]);
        out[k + q * m] = acc;
      }
    }
  }
}

// forward DFT of n = P.n contiguous values, out may not alias in
inline void transform(const Plan& P, const cd* in, cd* out) {
  if (!P.bluestein) {
    mixed(P, in, 1, out, P.n, 0, 1);
    return;
  }
  const index_t n = P.n, m = P.m;
  std::vector<cd> a(static_cast<size_t>(m), cd(0)), ah(static_cast<size_t>(m));
  for (index_t k = 0; k < n; ++k) a[k] = cmul(in[k], P.chirp[static_cast<size_t>(k)]);
  transform(*P.sub, a.data(), ah.data());
  // inverse FFT of the product by conjugation: ifft(x) = conj(fft(conj(x))) / m
  for (index_t k = 0; k < m; ++k) ah[k] = std::conj(cmul(ah[k], P.bhat[static_cast<size_t>(k)]));
  transform(*P.sub, ah.data(), a.data());
  const double inv = 1.0 / static_cast<double>(m);
  for (index_t k = 0; k < n; ++k) out[k] = cmul(P.chirp[static_cast<size_t>(k)], std::conj(a[k])) * inv;
}

inline std::shared_ptr<const Plan> plan_for(index_t n) {
  thread_local std::unordered_map<index_t, std::shared_ptr<const Plan>> cache;
  auto it = cache.find(n);
  if (it != cache.end()) return it->second;
  auto p = make_plan(n);
  if (p->bluestein) {  // the kernel's transform needs the sub-plan, so it is filled in here
    auto q = std::const_pointer_cast<Plan>(p);
    std::vector<cd> b(static_cast<size_t>(q->m), cd(0));
    b[0] = std::conj(q->chirp[0]);
    for (index_t k = 1; k < n; ++k) b[k] = b[q->m - k] = std::conj(q->chirp[static_cast<size_t>(k)]);
    transform(*q->sub, b.data(), q->bhat.data());
  }
  if (cache.size() > 64) cache.clear();
  cache.emplace(n, p);
  return p;
}

}  // namespace fftk
}  // namespace ep
