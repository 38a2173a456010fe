// Hand-written kernels that follow the everypath C ABI (abi.h), for
// tests/lowering/test_runtime.py. Built three ways:
//   default                           a well-formed kernel library
//   -DFIXTURE_ABI_VERSION=999         reports a foreign ABI version
//   -DFIXTURE_NO_RELEASE              lacks ep_release
#include <chrono>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>

#include "everypath/abi.h"

#ifndef FIXTURE_ABI_VERSION
#define FIXTURE_ABI_VERSION EP_ABI_VERSION
#endif

namespace {

int64_t g_allocated = 0;  // owners handed out
int64_t g_released = 0;   // owners given back through ep_release

// An owned result buffer: the owner handle is the Buffer itself.
struct Buffer {
  unsigned char* data;
};

void* allocate(ep_value& v, int32_t dtype, int64_t itemsize, int64_t n) {
  auto* b = new Buffer{new unsigned char[n > 0 ? n * itemsize : 1]};
  ++g_allocated;
  v.kind = EP_KIND_ARRAY;
  v.dtype = dtype;
  v.ndim = 1;
  v.shape[0] = n;
  v.strides[0] = itemsize;
  v.data = b->data;
  v.owner = b;
  return b->data;
}

int fail(ep_error* err, const char* type, const char* message) {
  err->set = 1;
  std::snprintf(err->type, sizeof(err->type), "%s", type);
  std::snprintf(err->message, sizeof(err->message), "%s", message);
  return 1;
}

// Calls f(char* element) for every element of an array, in index order.
template <class F>
void for_each(const ep_value& v, F f, int dim = 0, char* base = nullptr) {
  if (dim == 0) base = static_cast<char*>(v.data);
  if (dim == v.ndim) {
    f(base);
    return;
  }
  for (int64_t i = 0; i < v.shape[dim]; ++i) for_each(v, f, dim + 1, base + i * v.strides[dim]);
}

double sum_f64(const ep_value& v) {
  double s = 0;
  for_each(v, [&](char* p) {
    double x;
    std::memcpy(&x, p, sizeof x);
    s += x;
  });
  return s;
}

void set_f64(ep_value& v, double x) {
  v.kind = EP_KIND_SCALAR;
  v.dtype = EP_FLOAT64;
  v.scalar.f64 = x;
}

void set_i64(ep_value& v, int64_t x) {
  v.kind = EP_KIND_SCALAR;
  v.dtype = EP_INT64;
  v.scalar.i64 = x;
}

}  // namespace

extern "C" {

int ep_abi_version(void) { return FIXTURE_ABI_VERSION; }

#ifndef FIXTURE_NO_RELEASE
void ep_release(void* owner) {
  auto* b = static_cast<Buffer*>(owner);
  delete[] b->data;
  delete b;
  ++g_released;
}
#endif

int64_t fixture_released(void) { return g_released; }
int64_t fixture_allocated(void) { return g_allocated; }

// (a: int64, b: float64) -> float64
int ep_call_add_scalars(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  set_f64(results[0], static_cast<double>(args[0].scalar.i64) + args[1].scalar.f64);
  return 0;
}

// Copies argument slots to result slots one to one: scalars round-trip and
// arrays come back borrowed (owner NULL), exactly as received.
int ep_call_echo(const ep_value* args, int64_t nargs, ep_value* results, int64_t nresults, ep_error*) {
  for (int64_t i = 0; i < nargs && i < nresults; ++i) results[i] = args[i];
  return 0;
}

// (x: float64[:]) -> x, borrowed
int ep_call_identity(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  results[0] = args[0];
  results[0].owner = nullptr;
  return 0;
}

// (x: float64[:]) -> x[1:], a borrowed view
int ep_call_slice_view(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error* err) {
  const ep_value& x = args[0];
  if (x.shape[0] < 1) return fail(err, "ValueError", "empty");
  results[0] = x;
  results[0].shape[0] = x.shape[0] - 1;
  results[0].data = static_cast<char*>(x.data) + x.strides[0];
  return 0;
}

// (x: float64[:]) -> a borrowed view of memory no argument holds: a bug the
// runtime must report.
int ep_call_bad_borrow(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  static double elsewhere[4] = {1, 2, 3, 4};
  results[0] = args[0];
  results[0].shape[0] = 4;
  results[0].strides[0] = sizeof(double);
  results[0].data = elsewhere;
  results[0].owner = nullptr;
  return 0;
}

// (n: int64) -> float64[:] with [0, 1, ..., n-1], owned by the kernel
int ep_call_new_array(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  const int64_t n = args[0].scalar.i64;
  auto* p = static_cast<double*>(allocate(results[0], EP_FLOAT64, sizeof(double), n));
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<double>(i);
  return 0;
}

// (code: int64) -> (float64[:], float64[:]): fills the first result with an
// owned array, then fails with the exception type picked by `code`.
int ep_call_raise(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error* err) {
  allocate(results[0], EP_FLOAT64, sizeof(double), 3);
  switch (args[0].scalar.i64) {
    case 0: return fail(err, "IndexError", "index 5 is out of bounds for axis 0 with size 3");
    case 1: return fail(err, "ZeroDivisionError", "division by zero");
    case 2: return fail(err, "print", "not an exception type");
    case 3: return fail(err, "NoSuchError", "unknown name");
    case 4: return fail(err, "UnicodeDecodeError", "needs five arguments");
    case 5: return fail(err, "", "no type given");
    default: return 7;  // error code without filling err
  }
}

// (x: float64[:], k: int64) -> (float64, (float64[:], int64), float64[:])
//   = (sum(x), (x * k as a new array, k), x)
int ep_call_tuple_result(const ep_value* args, int64_t, ep_value* results, int64_t nresults,
                         ep_error* err) {
  if (nresults != 4) return fail(err, "AssertionError", "expected 4 result slots");
  const ep_value& x = args[0];
  const int64_t k = args[1].scalar.i64;
  set_f64(results[0], sum_f64(x));
  auto* p = static_cast<double*>(allocate(results[1], EP_FLOAT64, sizeof(double), x.shape[0]));
  int64_t i = 0;
  for_each(x, [&](char* e) {
    double v;
    std::memcpy(&v, e, sizeof v);
    p[i++] = v * static_cast<double>(k);
  });
  set_i64(results[2], k);
  results[3] = x;
  return 0;
}

// (n: int64) -> list[int64]: [0, 10, 20, ...], transported as one owned array
int ep_call_list_result(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  const int64_t n = args[0].scalar.i64;
  auto* p = static_cast<int64_t*>(allocate(results[0], EP_INT64, sizeof(int64_t), n));
  for (int64_t i = 0; i < n; ++i) p[i] = 10 * i;
  return 0;
}

// (n: int64) -> list[float32]: [0.5, 1.5, ...]
int ep_call_list_f32(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  const int64_t n = args[0].scalar.i64;
  auto* p = static_cast<float*>(allocate(results[0], EP_FLOAT32, sizeof(float), n));
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i) + 0.5f;
  return 0;
}

// (x: float64[...] mutated, ...) -> None: doubles every float64 array argument
// in place, walking its strides.
int ep_call_inplace(const ep_value* args, int64_t nargs, ep_value*, int64_t, ep_error*) {
  for (int64_t a = 0; a < nargs; ++a) {
    if (args[a].kind != EP_KIND_ARRAY || args[a].dtype != EP_FLOAT64) continue;
    for_each(args[a], [](char* p) {
      double v;
      std::memcpy(&v, p, sizeof v);
      v *= 2;
      std::memcpy(p, &v, sizeof v);
    });
  }
  return 0;
}

// (x: float64[...]) -> (float64 sum, list[int64] [aligned, strides...])
// Reports how the array reached the kernel.
int ep_call_layout(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  const ep_value& x = args[0];
  set_f64(results[0], sum_f64(x));
  auto* p = static_cast<int64_t*>(allocate(results[1], EP_INT64, sizeof(int64_t), 1 + x.ndim));
  p[0] = reinterpret_cast<uintptr_t>(x.data) % alignof(double) == 0;
  for (int i = 0; i < x.ndim; ++i) p[1 + i] = x.strides[i];
  return 0;
}

// () -> the same values as NumPy and as Python scalars:
//   (float32 1.5, int8 -7, uint64 2**64-1, bool true, complex64 1+2j, complex128 3-4j) twice
int ep_call_scalar_kinds(const ep_value*, int64_t, ep_value* results, int64_t nresults, ep_error* err) {
  if (nresults != 12) return fail(err, "AssertionError", "expected 12 result slots");
  for (int half = 0; half < 2; ++half) {
    ep_value* r = results + 6 * half;
    r[0].kind = EP_KIND_SCALAR;
    r[0].dtype = EP_FLOAT32;
    r[0].scalar.f32 = 1.5f;
    r[1].kind = EP_KIND_SCALAR;
    r[1].dtype = EP_INT8;
    int8_t i8 = -7;
    std::memcpy(r[1].scalar.bytes, &i8, 1);
    r[2].kind = EP_KIND_SCALAR;
    r[2].dtype = EP_UINT64;
    r[2].scalar.u64 = UINT64_MAX;
    r[3].kind = EP_KIND_SCALAR;
    r[3].dtype = EP_BOOL;
    r[3].scalar.bytes[0] = 1;
    r[4].kind = EP_KIND_SCALAR;
    r[4].dtype = EP_COMPLEX64;
    r[4].scalar.c64[0] = 1.0f;
    r[4].scalar.c64[1] = 2.0f;
    r[5].kind = EP_KIND_SCALAR;
    r[5].dtype = EP_COMPLEX128;
    r[5].scalar.c128[0] = 3.0;
    r[5].scalar.c128[1] = -4.0;
  }
  return 0;
}

// (flag: int64[:] mutated) -> bool: waits up to 10 s for another Python thread
// to set flag[0]; only possible if the runtime released the GIL.
int ep_call_wait_flag(const ep_value* args, int64_t, ep_value* results, int64_t, ep_error*) {
  auto* flag = static_cast<volatile int64_t*>(args[0].data);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  bool seen = false;
  while (!(seen = *flag != 0) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  results[0].kind = EP_KIND_SCALAR;
  results[0].dtype = EP_BOOL;
  results[0].scalar.bytes[0] = seen;
  return 0;
}

// (x: float64[:]) -> int64: returns a scalar of the wrong dtype (a bug the
// runtime reports instead of misreading memory).
int ep_call_wrong_result(const ep_value*, int64_t, ep_value* results, int64_t, ep_error*) {
  set_f64(results[0], 1.0);
  return 0;
}

}  // extern "C"
