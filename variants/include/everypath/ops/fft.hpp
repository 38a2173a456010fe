// numpy.fft, loops path: fft/ifft, rfft/irfft along one axis (the n-d
// transforms are compositions of these, in NumPy's order), fftfreq,
// rfftfreq and fftshift/ifftshift. C is the complex result element
// (complex64 for float32/complex64 input, as NumPy 2), computed in double.
#pragma once

#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "../array.hpp"
#include "creation.hpp"
#include "fft_core.hpp"

namespace ep {
namespace fftk {

// n arguments that are not lengths: None (each transform's default) and, for
// irfft in the n-d transforms, the input's own length (s[-1] == -1)
inline constexpr index_t kDefault = std::numeric_limits<index_t>::min();
inline constexpr index_t kInputLength = kDefault + 1;

// 0: "backward", 1: "ortho", 2: "forward"; the inverse transforms swap 0 and 2
inline double scale(int norm, index_t n, bool inverse) {
  if (inverse) norm = norm == 0 ? 2 : norm == 2 ? 0 : 1;
  if (norm == 1) return 1.0 / std::sqrt(static_cast<double>(n));
  return norm == 2 ? 1.0 / static_cast<double>(n) : 1.0;
}

inline void check_n(index_t n) {
  if (n < 1) raise("ValueError", "Invalid number of FFT data points (" + std::to_string(n) + ") specified.");
}

// Calls f(in_offset, out_offset) for every line along `axis` (all other indices).
template <int N, class F>
void for_each_line(const std::array<index_t, N>& shape, const std::array<index_t, N>& in_strides,
                   const std::array<index_t, N>& out_strides, int axis, F&& f) {
  index_t count = 1;
  for (int k = 0; k < N; ++k)
    if (k != axis) count *= shape[k];
  if (count == 0) return;
  std::array<index_t, N> idx{};
  for (index_t t = 0; t < count; ++t) {
    index_t io = 0, oo = 0;
    for (int k = 0; k < N; ++k) io += idx[k] * in_strides[k], oo += idx[k] * out_strides[k];
    f(io, oo);
    for (int k = N - 1; k >= 0; --k) {
      if (k == axis) continue;
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
}

template <class T>
inline cd to_cd(const T& x) {
  if constexpr (is_complex_v<T>) return cd(static_cast<double>(x.real()), static_cast<double>(x.imag()));
  else return cd(elem_cast<double>(x), 0.0);
}

// The shared driver: lines of `a` along axis, `take` input values (truncated or
// zero-padded), transformed by `body(buf_in, buf_out)`, `put` output values.
template <class O, class T, int N, class Body>
Array<O, N> along(const Array<T, N>& a, int axis, index_t take, index_t n_fft, index_t n_out, Body&& body) {
  std::array<index_t, N> oshape = a.shape;
  oshape[axis] = n_out;
  Array<O, N> out = empty<O, N>(oshape);
  std::array<index_t, N> lshape = a.shape;
  lshape[axis] = 1;
  const index_t len = a.shape[axis], sa = a.strides[axis], so = out.strides[axis];
  const index_t used = std::min(len, take);
  std::vector<cd> in(static_cast<size_t>(n_fft)), res(static_cast<size_t>(n_fft));
  for_each_line<N>(lshape, a.strides, out.strides, axis, [&](index_t io, index_t oo) {
    for (index_t i = 0; i < used; ++i) in[i] = to_cd(a.data[io + i * sa]);
    for (index_t i = used; i < n_fft; ++i) in[i] = cd(0);
    body(in, res);
    for (index_t i = 0; i < n_out; ++i) out.data[oo + i * so] = elem_cast<O>(res[i]);
  });
  return out;
}

}  // namespace fftk

// np.fft.fft / ifft along `axis`; n == kDefault: the axis length
template <class C, class T, int N>
Array<C, N> fft_c2c(const Array<T, N>& a, index_t n, int axis, bool inverse, int norm) {
  static_assert(N >= 1, "fft of a 0-d array");
  if (n == fftk::kDefault) n = a.shape[axis];
  fftk::check_n(n);
  const double f = fftk::scale(norm, n, inverse);
  auto plan = fftk::plan_for(n);
  return fftk::along<C>(a, axis, n, n, n, [&](std::vector<fftk::cd>& in, std::vector<fftk::cd>& res) {
    if (inverse)
      for (auto& v : in) v = std::conj(v);
    fftk::transform(*plan, in.data(), res.data());
    for (auto& v : res) v = (inverse ? std::conj(v) : v) * f;
  });
}

// np.fft.rfft: the n // 2 + 1 non-negative frequencies of a real input
template <class C, class T, int N>
Array<C, N> fft_r2c(const Array<T, N>& a, index_t n, int axis, int norm) {
  static_assert(N >= 1, "rfft of a 0-d array");
  if (n == fftk::kDefault) n = a.shape[axis];
  fftk::check_n(n);
  const double f = fftk::scale(norm, n, false);
  auto plan = fftk::plan_for(n);
  return fftk::along<C>(a, axis, n, n, n / 2 + 1, [&](std::vector<fftk::cd>& in, std::vector<fftk::cd>& res) {
    fftk::transform(*plan, in.data(), res.data());
    for (index_t i = 0; i <= n / 2; ++i) res[i] *= f;
  });
}

// np.fft.irfft: real output of length n from the Hermitian half spectrum;
// n == kDefault: 2 * (m - 1), n == kInputLength: the input length m
template <class RO, class T, int N>
Array<RO, N> fft_c2r(const Array<T, N>& a, index_t n, int axis, int norm) {
  static_assert(N >= 1, "irfft of a 0-d array");
  if (n == fftk::kDefault) n = (a.shape[axis] - 1) * 2;
  else if (n == fftk::kInputLength) n = a.shape[axis];
  fftk::check_n(n);
  const double f = fftk::scale(norm, n, true);
  auto plan = fftk::plan_for(n);
  const index_t half = n / 2 + 1;
  return fftk::along<RO>(a, axis, half, n, n, [&](std::vector<fftk::cd>& in, std::vector<fftk::cd>& res) {
    // the full spectrum: X[n - k] = conj(X[k]); imaginary parts of X[0] (and X[n/2]
    // for even n) do not reach the real output
    for (index_t k = 1; k < half; ++k)
      if (n - k >= half) in[n - k] = std::conj(in[k]);
    for (auto& v : in) v = std::conj(v);
    fftk::transform(*plan, in.data(), res.data());
    for (auto& v : res) v = fftk::cd(v.real() * f, 0.0);
  });
}

// np.fft.fftfreq(n, d): [0, 1, ..., -(n // 2), ..., -1] / (n * d); V: the type of 1 / (n * d)
template <class V, class D>
Array<double, 1> fft_freq(int64_t n, D d, bool python_d, bool real_half) {
  if (python_d && static_cast<double>(n) * static_cast<double>(d) == 0.0)
    raise("ZeroDivisionError", "float division by zero");
  const V val = static_cast<V>(1.0) / (static_cast<V>(n) * static_cast<V>(d));
  const index_t len = real_half ? n / 2 + 1 : n;
  Array<double, 1> out = empty<double, 1>({len});
  const index_t npos = real_half ? len : (n - 1) / 2 + 1;
  for (index_t i = 0; i < len; ++i) {
    const int64_t k = i < npos ? i : i - n;
    out.data[i] = static_cast<double>(k) * static_cast<double>(val);
  }
  return out;
}

// np.fft.fftshift / ifftshift: np.roll by (+/-) n // 2 along each axis, `times`
// counting how often an axis was named
template <class T, int N, size_t M>
Array<T, N> fft_shift(const Array<T, N>& a, const std::array<int, M>& times, bool inverse) {
  static_assert(M == static_cast<size_t>(N), "one count per axis");
  Array<T, N> out = empty<T, N>(a.shape);
  std::array<index_t, N> shift{};
  for (int k = 0; k < N; ++k) {
    const index_t n = a.shape[k];
    if (n == 0) continue;
    const index_t s = (inverse ? -(n / 2) : n / 2) * times[k];
    shift[k] = ((s % n) + n) % n;
  }
  if (out.size() == 0) return out;
  std::array<index_t, N> idx{};
  for (index_t t = 0; t < out.size(); ++t) {
    index_t src = 0;
    for (int k = 0; k < N; ++k) {
      index_t j = idx[k] - shift[k];
      if (j < 0) j += a.shape[k];
      src += j * a.strides[k];
    }
    out.data[t] = a.data[src];
    for (int k = N - 1; k >= 0; --k) {
      if (++idx[k] < a.shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

}  // namespace ep
