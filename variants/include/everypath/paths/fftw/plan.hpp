// The fftw path's plans: FFTW 3 guru64 plans (one rank-1 transform, any number of
// "howmany" loops over the other axes, any strides), made with FFTW_ESTIMATE so no
// call measures, and cached per (kind, precision, n, loop dims, strides, alignment).
// FFTW's planner is not thread-safe: plans are made and destroyed under one mutex,
// and fftw_make_planner_thread_safe guards the planner shared by every module of the
// process (each generated module has its own cache). Executing a plan with the
// new-array functions is thread-safe, so execution takes no lock.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "../../array.hpp"

#if defined(EP_HAVE_FFTW)
#include <fftw3.h>

namespace ep::fftw {

enum class Kind : int { c2c_forward, c2c_backward, r2c, c2r };

// fftw_* (double) and fftwf_* (float) behind one name per precision
template <class R>
struct Api;

template <>
struct Api<double> {
  using cplx = fftw_complex;
  using plan = fftw_plan;
  static void thread_safe() { fftw_make_planner_thread_safe(); }
  static int alignment(const void* p) { return fftw_alignment_of(const_cast<double*>(static_cast<const double*>(p))); }
  static plan dft(const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o, int sign) {
    return fftw_plan_guru64_dft(1, d, hr, h, static_cast<cplx*>(i), static_cast<cplx*>(o), sign,
                                FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  }
  static plan r2c(const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o) {
    return fftw_plan_guru64_dft_r2c(1, d, hr, h, static_cast<double*>(i), static_cast<cplx*>(o),
                                    FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  }
  static plan c2r(const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o) {
    return fftw_plan_guru64_dft_c2r(1, d, hr, h, static_cast<cplx*>(i), static_cast<double*>(o),
                                    FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static void dft_exec(plan p, void* i, void* o) { fftw_execute_dft(p, static_cast<cplx*>(i), static_cast<cplx*>(o)); }
  static void r2c_exec(plan p, void* i, void* o) { fftw_execute_dft_r2c(p, static_cast<double*>(i), static_cast<cplx*>(o)); }
  static void c2r_exec(plan p, void* i, void* o) { fftw_execute_dft_c2r(p, static_cast<cplx*>(i), static_cast<double*>(o)); }
  static void destroy(plan p) { fftw_destroy_plan(p); }
};

template <>
struct Api<float> {
  using cplx = fftwf_complex;
  using plan = fftwf_plan;
  static void thread_safe() { fftwf_make_planner_thread_safe(); }
  static int alignment(const void* p) { return fftwf_alignment_of(const_cast<float*>(static_cast<const float*>(p))); }
  static plan dft(const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o, int sign) {
    return fftwf_plan_guru64_dft(1, d, hr, h, static_cast<cplx*>(i), static_cast<cplx*>(o), sign,
                                 FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  }
  static plan r2c(const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o) {
    return fftwf_plan_guru64_dft_r2c(1, d, hr, h, static_cast<float*>(i), static_cast<cplx*>(o),
                                     FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
  }
  static plan c2r(const fftw_iodim64* d, int hr, const fftw_iodim64* h, void* i, void* o) {
    return fftwf_plan_guru64_dft_c2r(1, d, hr, h, static_cast<cplx*>(i), static_cast<float*>(o),
                                     FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  }
  static void dft_exec(plan p, void* i, void* o) { fftwf_execute_dft(p, static_cast<cplx*>(i), static_cast<cplx*>(o)); }
  static void r2c_exec(plan p, void* i, void* o) { fftwf_execute_dft_r2c(p, static_cast<float*>(i), static_cast<cplx*>(o)); }
  static void c2r_exec(plan p, void* i, void* o) { fftwf_execute_dft_c2r(p, static_cast<cplx*>(i), static_cast<float*>(o)); }
  static void destroy(plan p) { fftwf_destroy_plan(p); }
};

// the planner lock; recursive because a plan evicted from the cache is destroyed under it
inline std::recursive_mutex& planner_mutex() {
  static std::recursive_mutex m;
  return m;
}

struct KeyHash {
  size_t operator()(const std::vector<int64_t>& k) const noexcept {
    size_t h = 1469598103934665603ull;
    for (int64_t v : k) h = (h ^ std::hash<int64_t>{}(v)) * 1099511628211ull;
    return h;
  }
};

// One transform's geometry: the transformed axis (n, in stride, out stride) and the loops.
struct Geometry {
  fftw_iodim64 dim{};
  std::vector<fftw_iodim64> loops;
};

template <int N>
Geometry geometry(index_t n, int axis, const std::array<index_t, N>& shape, const std::array<index_t, N>& is,
                  const std::array<index_t, N>& os) {
  Geometry g;
  g.dim = {n, is[axis], os[axis]};
  for (int k = 0; k < N; ++k)
    if (k != axis && shape[k] != 1) g.loops.push_back({shape[k], is[k], os[k]});
  return g;
}

// A cached plan of precision R for `kind` on arrays aligned like `in` and `out`.
template <class R>
std::shared_ptr<void> plan_for(Kind kind, const Geometry& g, void* in, void* out) {
  using A = Api<R>;
  static std::once_flag once;
  std::call_once(once, [] { A::thread_safe(); });
  std::vector<int64_t> key{static_cast<int64_t>(kind), g.dim.n, g.dim.is, g.dim.os, A::alignment(in),
                           A::alignment(out)};
  for (const auto& d : g.loops) key.insert(key.end(), {d.n, d.is, d.os});
  std::lock_guard<std::recursive_mutex> lock(planner_mutex());
  static std::unordered_map<std::vector<int64_t>, std::shared_ptr<void>, KeyHash> cache;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const int hr = static_cast<int>(g.loops.size());
  typename A::plan p = kind == Kind::r2c   ? A::r2c(&g.dim, hr, g.loops.data(), in, out)
                       : kind == Kind::c2r ? A::c2r(&g.dim, hr, g.loops.data(), in, out)
                                           : A::dft(&g.dim, hr, g.loops.data(), in, out,
                                                    kind == Kind::c2c_forward ? FFTW_FORWARD : FFTW_BACKWARD);
  if (p == nullptr) raise("RuntimeError", "FFTW could not plan a transform of length " + std::to_string(g.dim.n));
  std::shared_ptr<void> held(static_cast<void*>(p), [](void* q) {
    std::lock_guard<std::recursive_mutex> l(planner_mutex());
    A::destroy(static_cast<typename A::plan>(q));
  });
  if (cache.size() >= 256) cache.clear();  // plans still executing elsewhere live on in their shared_ptr
  cache.emplace(std::move(key), held);
  return held;
}

}  // namespace ep::fftw

#endif  // EP_HAVE_FFTW
