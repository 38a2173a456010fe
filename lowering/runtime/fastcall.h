// The C entry through which the dispatcher (dispatch.cpp, everypath.lowering._dispatch) calls a
// runtime Function (module.cpp, everypath.lowering._runtime) without a Python-level call in
// between: `Function._fastcall` is a capsule named EP_FASTCALL_CAPSULE whose pointer is the
// runtime's one static ep_fastcall_api and whose context is the Function. The two modules are
// separate shared objects (the dispatcher is imported with everypath.api and must not pull
// NumPy or pybind11 in), so the function pointer travels in the capsule rather than by linking.
//
// The caller holds the GIL and a strong reference to the Function object for the whole call.

#pragma once

#include <Python.h>

#include <stddef.h>

#define EP_FASTCALL_CAPSULE "everypath.lowering._runtime.fastcall"
#define EP_FASTCALL_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ep_fastcall_api {
  int version; /* EP_FASTCALL_VERSION */
  /* Vectorcall convention: args[0, npos) positional, then one value per name in kwnames (a
   * tuple of str, or NULL). hidden[0, nhidden) fill the Function's last nhidden parameters
   * (module arrays); they count for neither positional nor keyword binding. Returns a new
   * reference, or NULL with a Python exception set (the same ones a plain call raises). */
  PyObject* (*call)(const void* function, PyObject* const* args, size_t npos, PyObject* kwnames,
                    PyObject* const* hidden, size_t nhidden);
} ep_fastcall_api;

#ifdef __cplusplus
}
#endif
