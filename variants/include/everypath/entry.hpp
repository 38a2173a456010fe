// Glue between the C ABI (abi.h) and the typed C++ of a compiled function:
// arguments arrive as ep_value descriptors, results leave the same way, and
// C++ exceptions become an ep_error the host re-raises as a Python exception.
#pragma once

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
  if (!err) return;
  err->set = 1;
  std::strncpy(err->type, type, sizeof(err->type) - 1);
  err->type[sizeof(err->type) - 1] = 0;
  std::strncpy(err->message, message.c_str(), sizeof(err->message) - 1);
  err->message[sizeof(err->message) - 1] = 0;
}

// Runs a typed body, turning every C++ failure into a Python exception.
template <class F>
int guarded(ep_error* err, F&& body) {
  try {
    body();
    return 0;
  } catch (const PyError& e) {
    set_error(err, e.type, e.message);
  } catch (const std::bad_alloc&) {
    set_error(err, "MemoryError", "out of memory in compiled code");
  } catch (const std::exception& e) {
    set_error(err, "RuntimeError", e.what());
  }
  return 1;
}

}  // namespace ep

#define EP_EXPORT extern "C" __attribute__((visibility("default")))

#define EP_DEFINE_ABI()                                                     \
  EP_EXPORT int ep_abi_version(void) { return EP_ABI_VERSION; }             \
  EP_EXPORT void ep_release(void* owner) {                                  \
    delete static_cast<std::shared_ptr<void>*>(owner);                      \
  }
