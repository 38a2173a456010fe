// What the target's C++ offers, decided once for every header (array.hpp includes
// this first). Host builds (g++, libstdc++, exceptions, threads) define none of the
// EP_NO_* / EP_SINGLE_THREADED macros; cross targets built with zig may:
//
//   EP_HAVE_CXX_EXCEPTIONS  the compiler accepts throw/try/catch (not -fno-exceptions)
//   EP_NO_EXCEPTIONS        errors of compiled code go through the error slot and a trap
//                           instead of C++ exceptions (abi.h). Builds for wasm pass
//                           -DEP_NO_EXCEPTIONS=1 with -fno-exceptions; it is also set here
//                           whenever the compiler has exceptions off.
//   EP_SINGLE_THREADED      no std::thread / std::mutex (wasm32-wasi's libc++ is built
//                           without threads): locks are no-ops, the threads path runs serially
#pragma once

#include <cstddef>  // the standard library's configuration (_LIBCPP_* / __GLIBCXX__)
// <cfloat> before any <cmath>: with zig's macOS headers (libc++'s float.h guard over clang's
// partial `__need_infinity_nan` float.h) <math.h> first leaves a later <cfloat> without
// FLT_EPSILON / DBL_EPSILON (ops/imgproc*.hpp use them), and <cfloat> first leaves <math.h>
// without INFINITY / NAN (libc++'s <complex> uses them): defined below as C23 defines them.
#include <cfloat>

#if defined(__cpp_exceptions) || (defined(__EXCEPTIONS) && !defined(__clang__))
#define EP_HAVE_CXX_EXCEPTIONS 1
#endif

#if !defined(EP_NO_EXCEPTIONS) && !defined(EP_HAVE_CXX_EXCEPTIONS)
#define EP_NO_EXCEPTIONS 1
#endif

#if !defined(EP_SINGLE_THREADED)
#if defined(_LIBCPP_HAS_NO_THREADS) || (defined(_LIBCPP_HAS_THREADS) && !_LIBCPP_HAS_THREADS)
#define EP_SINGLE_THREADED 1
#endif
#endif

#include <cmath>
#ifndef INFINITY  // zig's macOS headers after <cfloat> (above)
#define INFINITY (__builtin_inff())
#endif
#ifndef NAN
#define NAN (__builtin_nanf(""))
#endif
// The <math.h> constants the headers use: POSIX, not ISO C; the Windows CRT declares
// them only under _USE_MATH_DEFINES (glibc's literals)
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#ifndef M_2_SQRTPI
#define M_2_SQRTPI 1.12837916709551257390
#endif
#ifndef M_SQRT2
#define M_SQRT2 1.41421356237309504880
#endif
#ifndef M_SQRT1_2
#define M_SQRT1_2 0.70710678118654752440
#endif

// A mutex that compiles everywhere: std::mutex, or nothing where there is one thread.
#if defined(EP_SINGLE_THREADED)
namespace ep {
struct Mutex {
  void lock() noexcept {}
  void unlock() noexcept {}
  bool try_lock() noexcept { return true; }
};
template <class M>
struct LockGuard {
  explicit LockGuard(M&) noexcept {}
};
}  // namespace ep
#else
#include <mutex>
namespace ep {
using Mutex = std::mutex;
template <class M>
using LockGuard = std::lock_guard<M>;
}  // namespace ep
#endif
