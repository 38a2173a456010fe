/* everypath C ABI: how one compiled function is called, from the Python
 * runtime module, a standalone executable or any other host.
 *
 * Every compiled function is exported as
 *     int ep_call_<symbol>(const ep_value* args, int64_t nargs,
 *                          ep_value* results, int64_t nresults, ep_error* err);
 * returning 0 on success. On failure it returns non-zero and fills `err` with
 * the Python exception type name (e.g. "IndexError") and its message.
 * Arguments and results are flat lists: tuples are flattened depth-first by
 * the signature descriptor both sides agree on.
 *
 * Each shared object also exports ep_abi_version() and ep_release(owner).
 * Plain C so that every target (and every language) can use it.
 *
 * Builds without C++ exceptions (wasm: -fno-exceptions -DEP_NO_EXCEPTIONS=1;
 * EP_NO_EXCEPTIONS is also implied whenever the compiler has exceptions off)
 * cannot unwind out of a failing call. There, the Python exception of compiled
 * code is recorded and the call does not return:
 *   - ep::raise(type, message) copies the type and message into the unit's
 *     error slot (one ep_error per unit; per thread on targets with threads,
 *     wasm has one) and into the `err` of the ep_call_<symbol> running, then
 *     calls the raise handler, if one is installed, and executes a trap
 *     (__builtin_trap: `unreachable` on wasm). The host (wasmtime, a
 *     JavaScript WebAssembly embedding) catches the trap and reads the error
 *     through ep_last_error(). The instance's state after a trap is that of a
 *     call abandoned mid-way (memory it allocated is not freed): a host may
 *     keep calling it, or instantiate the module afresh.
 *   - A program installs its own handler (C++) with
 *     ep::set_raise_handler(void (*)(const ep_error*)); a standalone
 *     executable uses ep::print_error_and_exit (entry.hpp): `Type: message`
 *     on stderr, exit status 1. A handler should not return; if it does, the
 *     trap follows.
 *   - ep_call_<symbol> returns 0 whenever it returns.
 *   - Memory exhaustion in everypath's allocator raises MemoryError this way;
 *     the C++ library's own failures (operator new, std::vector) abort.
 * Such units export, besides the functions above,
 *     const ep_error* ep_last_error(void);  the slot (set = 1 once filled)
 *     void ep_clear_error(void);            zero it (set = 0)
 * Units built with exceptions do not export them: errors arrive in `err`. */
#ifndef EVERYPATH_ABI_H
#define EVERYPATH_ABI_H

#include <stdint.h>

#define EP_ABI_VERSION 1
#define EP_MAX_NDIM 8

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ep_kind {
  EP_KIND_NONE = 0,
  EP_KIND_SCALAR = 1,
  EP_KIND_ARRAY = 2,
  /* A Python str: UTF-8 bytes at data, shape[0] bytes, shape[1] code points,
   * shape[2] 1 when every byte is ASCII. With ndim 1 a list of str instead:
   * data is an array of shape[0] ep_strref. Results carry an owner. */
  EP_KIND_STR = 3,
  /* A sequence of values (a dict): data is an array of shape[0] * shape[1]
   * ep_value, shape[1] slots per entry (a dict entry: the key's slots, then
   * the value's), in insertion order, ndim 1. Results: the entries' own
   * owners are released by the host like any result's, then this value's
   * owner. Arguments: borrowed for the call, no owners. */
  EP_KIND_SEQ = 4,
  /* A generator (results only, never inside another value): owner holds
   * the suspended coroutine (released with ep_release, which frees its
   * frame), scalar.bytes holds an ep_gen_next_fn that resumes it. Each call
   * of that function fills the slots of one yielded item (as a return of the
   * item's type would) and returns EP_GEN_ITEM, or returns EP_GEN_DONE once
   * the generator has finished, or EP_GEN_ERROR with err filled (the
   * generator is then finished too). */
  EP_KIND_GEN = 5
} ep_kind;

enum { EP_GEN_ITEM = 0, EP_GEN_DONE = 1, EP_GEN_ERROR = 2 };

/* Numbers are part of the ABI: never reorder. */
typedef enum ep_dtype {
  EP_BOOL = 0,
  EP_INT8 = 1,
  EP_INT16 = 2,
  EP_INT32 = 3,
  EP_INT64 = 4,
  EP_UINT8 = 5,
  EP_UINT16 = 6,
  EP_UINT32 = 7,
  EP_UINT64 = 8,
  EP_FLOAT32 = 9,
  EP_FLOAT64 = 10,
  EP_COMPLEX64 = 11,
  EP_COMPLEX128 = 12,
  EP_FLOAT16 = 13 /* IEEE binary16 bits (numpy.float16, torch.float16) */
} ep_dtype;

typedef struct ep_value {
  int32_t kind;  /* ep_kind */
  int32_t dtype; /* ep_dtype: element type of an array, or the scalar's type */
  int32_t ndim;  /* arrays only */
  int32_t flags; /* reserved, 0 */
  int64_t shape[EP_MAX_NDIM];
  int64_t strides[EP_MAX_NDIM]; /* in bytes, may be negative or 0 */
  void* data;                   /* array: address of element [0,...,0] */
  /* Array results: a handle released with ep_release() once the host no
   * longer needs the memory. NULL means the memory is borrowed from one of
   * the arguments (a view of an argument, or the argument itself). */
  void* owner;
  /* Scalars are stored here in their dtype's native C layout (bool as one
   * byte 0/1, complex as two floats/doubles). */
  union {
    int64_t i64;
    uint64_t u64;
    double f64;
    float f32;
    double c128[2];
    float c64[2];
    unsigned char bytes[16];
  } scalar;
} ep_value;

/* One item of a list[str] (EP_KIND_STR, ndim 1). */
typedef struct ep_strref {
  const char* data; /* UTF-8 */
  int64_t size;     /* bytes */
  int64_t length;   /* code points */
  int32_t ascii;    /* 1 when every byte is ASCII */
  int32_t reserved;
} ep_strref;

typedef struct ep_error {
  int32_t set;
  char type[64];      /* Python builtin exception name, or module.Name (imported) */
  char message[1024]; /* already formatted, NUL-terminated */
} ep_error;

/* Units built without exceptions only (see above). */
typedef const ep_error* (*ep_last_error_fn)(void);
typedef void (*ep_clear_error_fn)(void);

typedef int (*ep_entry_fn)(const ep_value* args, int64_t nargs,
                           ep_value* results, int64_t nresults,
                           ep_error* err);
typedef int (*ep_abi_version_fn)(void);
typedef void (*ep_release_fn)(void* owner);
/* Resumes the generator whose owner it is given (EP_KIND_GEN). */
typedef int (*ep_gen_next_fn)(void* owner, ep_value* results, ep_error* err);

#ifdef __cplusplus
}
#endif

#endif /* EVERYPATH_ABI_H */
