// Glue between the C ABI (abi.h) and the typed C++ of a compiled function:
// arguments arrive as ep_value descriptors, results leave the same way, and
// C++ exceptions become an ep_error the host re-raises as a Python exception.
// Without exceptions (EP_NO_EXCEPTIONS, wasm) ep::raise fills the error slot and
// traps instead (abi.h, array.hpp); guarded() then only runs the body.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "abi.h"
#include "array.hpp"

namespace ep {

template <class T, int N>
Array<T, N> arg_array(const ep_value& v) {
  Array<T, N> a;
  a.data = static_cast<T*>(v.data);
  for (int k = 0; k < N; ++k) {
    // only a broadcast view has an axis this long; lowering/int_ranges.py bounds lengths by 2**62
    if (v.shape[k] > (index_t(1) << 62))
      raise("ValueError", "an array axis of more than 2**62 elements is not supported (everypath bounds lengths by "
                          "2**62 to prove int arithmetic on them cannot overflow)");
    a.shape[k] = v.shape[k];
    a.strides[k] = v.strides[k] / static_cast<index_t>(sizeof(T));
  }
  return a;
}

template <class T>
T arg_scalar(const ep_value& v) {
  T x;
  std::memcpy(&x, v.scalar.bytes, sizeof(T));
  return x;
}

template <class T>
void put_scalar(ep_value& v, T x, int dtype) {
  v.kind = EP_KIND_SCALAR;
  v.dtype = dtype;
  std::memset(v.scalar.bytes, 0, sizeof(v.scalar.bytes));
  std::memcpy(v.scalar.bytes, &x, sizeof(T));
}

template <class T, int N>
void put_array(ep_value& v, const Array<T, N>& a, int dtype) {
  v.kind = EP_KIND_ARRAY;
  v.dtype = dtype;
  v.ndim = N;
  for (int k = 0; k < N; ++k) {
    v.shape[k] = a.shape[k];
    v.strides[k] = a.strides[k] * static_cast<index_t>(sizeof(T));
  }
  v.data = a.data;
  // owned memory travels as a heap-held shared_ptr released by ep_release()
  v.owner = a.owner ? new std::shared_ptr<void>(a.owner) : nullptr;
}

template <class T>
void put_list(ep_value& v, const List<T>& l, int dtype) {
  Array<T, 1> a = empty<T, 1>({l.size()});
  for (index_t i = 0; i < l.size(); ++i) a.data[i] = l[i];
  put_array(v, a, dtype);
}

inline void set_error(ep_error* err, const char* type, const std::string& message) {
  fill_error(err, type, message.c_str());
}

#if defined(EP_NO_EXCEPTIONS)
// Runs a typed body. A failure does not come back here: ep::raise copies the error into
// the slot (and into `err`), calls the raise handler and traps (abi.h).
template <class F>
int guarded(ep_error* err, F&& body) {
  ep_error* outer = current_error();
  current_error() = err;
  trace_point() = TracePoint{};  // nothing of this call has run yet
  body();
  current_error() = outer;
  return 0;
}

// A raise handler for standalone executables: `Type: message` on stderr, exit status 1.
inline void print_error_and_exit(const ep_error* e) {
  print_trace(stderr, e);
  std::fprintf(stderr, "%s: %s\n", e->type, e->message);
  std::fflush(stderr);
  std::exit(1);
}
#else
// Runs a typed body, turning every C++ failure into a Python exception.
template <class F>
int guarded(ep_error* err, F&& body) {
  try {
    body();
    return 0;
  } catch (const PyError& e) {
    set_error(err, e.type, e.message);
    fill_trace(err, e.trace.c_str());
  } catch (const std::bad_alloc&) {
    set_error(err, "MemoryError", "out of memory in compiled code");
  } catch (const std::exception& e) {
    set_error(err, "RuntimeError", e.what());
  }
  return 1;
}
#endif

}  // namespace ep

#if defined(_WIN32)
#define EP_EXPORT extern "C" __declspec(dllexport)  // PE has no visibility: export the ABI explicitly
#else
#define EP_EXPORT extern "C" __attribute__((visibility("default")))
#endif

#if defined(EP_NO_EXCEPTIONS)
// the error slot of a unit built without exceptions (abi.h)
#define EP_DEFINE_ERROR_SLOT()                                              \
  EP_EXPORT const ep_error* ep_last_error(void) { return &ep::error_slot(); } \
  EP_EXPORT void ep_clear_error(void) { ep::error_slot() = ep_error{}; }
#else
#define EP_DEFINE_ERROR_SLOT()
#endif

#define EP_DEFINE_ABI()                                                     \
  EP_EXPORT int ep_abi_version(void) { return EP_ABI_VERSION; }             \
  EP_EXPORT void ep_release(void* owner) {                                  \
    delete static_cast<std::shared_ptr<void>*>(owner);                      \
  }                                                                         \
  EP_DEFINE_ERROR_SLOT()
