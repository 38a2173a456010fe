// numpy.fft, fftw path: fft_c2c / fft_r2c / fft_c2r in ep::fftw with the loops
// path's signatures (ops/fft.hpp; the n-d transforms are compositions of these,
// in NumPy's order). Unlike the loops path, which computes in double, a complex64
// result is computed in single precision (fftwf), as NumPy 2's pocketfft does.
// The input is handed to FFTW in place, whatever its strides, when it already has
// the transform's element type and length; otherwise (another dtype, n padding or
// truncation, and always for c2r, which FFTW lets destroy its input) it is copied
// to a C-contiguous buffer first. Results are C-contiguous; norm scales them after.
#pragma once

#include <complex>
#include <type_traits>

#include "../../ops/fft.hpp"
#include "plan.hpp"

#if defined(EP_HAVE_FFTW)

namespace ep::fftw {

// x as element type B (complex B from a real x: imaginary part 0)
template <class B, class T>
inline B convert(const T& x) {
  if constexpr (is_complex_v<B>) {
    using R = typename B::value_type;
    if constexpr (is_complex_v<T>) return B(static_cast<R>(x.real()), static_cast<R>(x.imag()));
    else return B(elem_cast<R>(x), R(0));
  } else {
    return elem_cast<B>(x);
  }
}

// a C-contiguous copy of `a` whose `axis` has length m: truncated, or zero-padded
template <class B, class T, int N>
Array<B, N> padded(const Array<T, N>& a, int axis, index_t m) {
  std::array<index_t, N> shape = a.shape;
  shape[axis] = m;
  Array<B, N> buf = empty<B, N>(shape);
  if (buf.size() == 0) return buf;
  std::array<index_t, N> lshape = a.shape;
  lshape[axis] = 1;
  const index_t used = std::min(a.shape[axis], m), sa = a.strides[axis], sb = buf.strides[axis];
  fftk::for_each_line<N>(lshape, a.strides, buf.strides, axis, [&](index_t io, index_t bo) {
    for (index_t i = 0; i < used; ++i) buf.data[bo + i * sb] = convert<B>(a.data[io + i * sa]);
    for (index_t i = used; i < m; ++i) buf.data[bo + i * sb] = B(0);
  });
  return buf;
}

template <class T>
struct real_of { using type = T; };
template <class R>
struct real_of<std::complex<R>> { using type = R; };

template <class O, int N>
inline void scale_all(Array<O, N>& out, double f) {
  if (f == 1.0) return;
  const auto g = static_cast<typename real_of<O>::type>(f);
  const index_t size = out.size();  // freshly allocated: contiguous
  for (index_t i = 0; i < size; ++i) out.data[i] *= g;
}

// runs `exec(plan, in, out)` with the cached plan of `kind` for these arrays
template <class R, class B, class O, int N, class Exec>
void run(Kind kind, index_t n, int axis, const Array<B, N>& in, Array<O, N>& out, Exec&& exec) {
  if (out.size() == 0) return;
  // in and out have the same extents off the axis: those are the loops
  const Geometry g = geometry<N>(n, axis, out.shape, in.strides, out.strides);
  void* ip = const_cast<void*>(static_cast<const void*>(in.data));
  auto plan = plan_for<R>(kind, g, ip, out.data);
  exec(static_cast<typename Api<R>::plan>(plan.get()), ip, static_cast<void*>(out.data));
}

// np.fft.fft / ifft along `axis`; n == kDefault: the axis length
template <class C, class T, int N>
Array<C, N> fft_c2c(const Array<T, N>& a, index_t n, int axis, bool inverse, int norm) {
  static_assert(N >= 1, "fft of a 0-d array");
  using R = typename C::value_type;
  if (n == fftk::kDefault) n = a.shape[axis];
  fftk::check_n(n);
  std::array<index_t, N> oshape = a.shape;
  oshape[axis] = n;
  Array<C, N> out = empty<C, N>(oshape);
  const Kind kind = inverse ? Kind::c2c_backward : Kind::c2c_forward;
  auto exec = [](auto p, void* i, void* o) { Api<R>::dft_exec(p, i, o); };
  if constexpr (std::is_same_v<T, C>) {
    if (a.shape[axis] == n) run<R>(kind, n, axis, a, out, exec);
    else run<R>(kind, n, axis, padded<C>(a, axis, n), out, exec);
  } else {
    run<R>(kind, n, axis, padded<C>(a, axis, n), out, exec);
  }
  scale_all(out, fftk::scale(norm, n, inverse));
  return out;
}

// np.fft.rfft: the n // 2 + 1 non-negative frequencies of a real input
template <class C, class T, int N>
Array<C, N> fft_r2c(const Array<T, N>& a, index_t n, int axis, int norm) {
  static_assert(N >= 1, "rfft of a 0-d array");
  using R = typename C::value_type;
  if (n == fftk::kDefault) n = a.shape[axis];
  fftk::check_n(n);
  std::array<index_t, N> oshape = a.shape;
  oshape[axis] = n / 2 + 1;
  Array<C, N> out = empty<C, N>(oshape);
  auto exec = [](auto p, void* i, void* o) { Api<R>::r2c_exec(p, i, o); };
  if constexpr (std::is_same_v<T, R>) {
    if (a.shape[axis] == n) run<R>(Kind::r2c, n, axis, a, out, exec);
    else run<R>(Kind::r2c, n, axis, padded<R>(a, axis, n), out, exec);
  } else {
    run<R>(Kind::r2c, n, axis, padded<R>(a, axis, n), out, exec);
  }
  scale_all(out, fftk::scale(norm, n, false));
  return out;
}

// np.fft.irfft: real output of length n from the first n // 2 + 1 input values;
// n == kDefault: 2 * (m - 1), n == kInputLength: the input length m. FFTW, like
// pocketfft, ignores the imaginary parts of X[0] (and of X[n/2] for even n).
template <class RO, class T, int N>
Array<RO, N> fft_c2r(const Array<T, N>& a, index_t n, int axis, int norm) {
  static_assert(N >= 1, "irfft of a 0-d array");
  if (n == fftk::kDefault) n = (a.shape[axis] - 1) * 2;
  else if (n == fftk::kInputLength) n = a.shape[axis];
  fftk::check_n(n);
  std::array<index_t, N> oshape = a.shape;
  oshape[axis] = n;
  Array<RO, N> out = empty<RO, N>(oshape);
  Array<std::complex<RO>, N> half = padded<std::complex<RO>>(a, axis, n / 2 + 1);
  run<RO>(Kind::c2r, n, axis, half, out, [](auto p, void* i, void* o) { Api<RO>::c2r_exec(p, i, o); });
  scale_all(out, fftk::scale(norm, n, true));
  return out;
}

}  // namespace ep::fftw

#endif  // EP_HAVE_FFTW
