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
 * Plain C so that every target (and every language) can use it. */
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
  EP_KIND_ARRAY = 2
} ep_kind;

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
  EP_COMPLEX128 = 12
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

typedef struct ep_error {
  int32_t set;
  char type[64];      /* Python builtin exception name, or module.Name (imported) */
  char message[1024]; /* already formatted, NUL-terminated */
} ep_error;

typedef int (*ep_entry_fn)(const ep_value* args, int64_t nargs,
                           ep_value* results, int64_t nresults,
                           ep_error* err);
typedef int (*ep_abi_version_fn)(void);
typedef void (*ep_release_fn)(void* owner);

#ifdef __cplusplus
}
#endif

#endif /* EVERYPATH_ABI_H */
