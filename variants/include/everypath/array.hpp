// everypath arrays: a typed, statically ranked view (pointer, shape, strides
// in elements) plus a shared owner. Copies share memory, like Python names
// bound to the same ndarray; views of an argument have no owner, which is how
// the host knows a result is borrowed from an argument.
#pragma once

#include "config.hpp"

#include <algorithm>
#include <array>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(_WIN32)
#include <malloc.h>  // _aligned_malloc: the Windows CRT has no aligned_alloc
#endif

#include "abi.h"
#include "half.hpp"

namespace ep {

using index_t = int64_t;

// A Python exception to be raised in the caller (type name + message), and the user's
// source lines it passed through on its way out (trace_frame entries, innermost first).
struct PyError {
  const char* type;
  std::string message;
  std::string trace{};
};

// The traceback of an error travels in ep_error.message after the message's NUL (the ABI
// is unchanged: every reader stops at that NUL): entries "file\x1fline\x1ffunction\n",
// innermost first, then a NUL. fill_error zero-fills the buffer, so no trace reads as "".
inline constexpr char kTraceSep = '\x1f';

[[gnu::noinline, gnu::cold]] inline void append_frame(std::string& trace, const char* file, int line,
                                                 const char* function) {
  if (line <= 0 || trace.size() > 4096) return;  // nothing run yet / deep recursion: keep the innermost
  trace += file;
  trace += kTraceSep;
  trace += std::to_string(line);
  trace += kTraceSep;
  trace += function;
  trace += '\n';
}

// Copies whole entries of `trace` after the message's NUL, as many as fit.
inline void fill_trace(ep_error* err, const char* trace) noexcept {
  if (!err || !trace) return;
  const size_t cap = sizeof(err->message);
  size_t at = std::strlen(err->message) + 1;
  for (const char* p = trace; *p;) {
    const char* end = std::strchr(p, '\n');
    const size_t n = end ? static_cast<size_t>(end - p) + 1 : std::strlen(p);
    if (at + n + 1 > cap) break;
    std::memcpy(err->message + at, p, n);
    at += n;
    err->message[at] = 0;
    p += n;
  }
}

inline void fill_error(ep_error* err, const char* type, const char* message) noexcept {
  if (!err) return;
  err->set = 1;
  std::strncpy(err->type, type, sizeof(err->type) - 1);
  err->type[sizeof(err->type) - 1] = 0;
  std::strncpy(err->message, message, sizeof(err->message) - 1);  // pads with NULs: an empty trace
  err->message[sizeof(err->message) - 1] = 0;
}

// Python's traceback lines for an error's trace (outermost first), for hosts that print it.
inline void print_trace(std::FILE* out, const ep_error* err) noexcept {
  const size_t cap = sizeof(err->message);
  const size_t at = strnlen(err->message, cap) + 1;
  if (at >= cap || err->message[at] == 0) return;
  const char* entries[64];
  int n = 0;
  for (const char* p = err->message + at; *p && n < 64 && p < err->message + cap;) {
    entries[n++] = p;
    const char* end = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(err->message + cap - p)));
    if (!end) break;
    p = end + 1;
  }
  std::fprintf(out, "Traceback (most recent call last):\n");
  for (int i = n - 1; i >= 0; --i) {
    const char* file = entries[i];
    const char* s1 = std::strchr(file, kTraceSep);
    const char* s2 = s1 ? std::strchr(s1 + 1, kTraceSep) : nullptr;
    const char* end = s2 ? std::strchr(s2 + 1, '\n') : nullptr;
    if (!end) break;
    std::fprintf(out, "  File \"%.*s\", line %.*s, in %.*s\n", static_cast<int>(s1 - file), file,
                 static_cast<int>(s2 - s1 - 1), s1 + 1, static_cast<int>(end - s2 - 1), s2 + 1);
  }
}

// Where compiled code is, per generated function (EP_TRACE_BEGIN / EP_LINE / EP_TRACE_END,
// emitted by lowering/emit.py around every function body and before each statement).
struct TraceFunction {
  const char* file;
  const char* function;
};

#if defined(EP_NO_EXCEPTIONS)
// Without C++ exceptions (abi.h): the error slot, the error of the running entry call,
// and the handler ep::raise calls before it traps.
using raise_handler = void (*)(const ep_error*);

#if defined(EP_SINGLE_THREADED)
#define EP_ERROR_SLOT_STORAGE static
#else
#define EP_ERROR_SLOT_STORAGE static thread_local  // one per thread where there are threads
#endif
inline ep_error& error_slot() noexcept {
  EP_ERROR_SLOT_STORAGE ep_error slot{};
  return slot;
}
inline ep_error*& current_error() noexcept {  // the `err` of the entry call running now (guarded)
  EP_ERROR_SLOT_STORAGE ep_error* err = nullptr;
  return err;
}
#undef EP_ERROR_SLOT_STORAGE
inline raise_handler& raise_handler_ref() noexcept {
  static raise_handler h = nullptr;
  return h;
}
// Installs the handler ep::raise calls (nullptr: none, trap at once); returns the previous one.
// The handler gets the filled error slot; it should not return (exit, longjmp); if it does,
// ep::raise traps.
inline raise_handler set_raise_handler(raise_handler h) noexcept {
  raise_handler old = raise_handler_ref();
  raise_handler_ref() = h;
  return old;
}

// Builds without exceptions cannot unwind through the functions: each statement records
// where it is (two stores, to a static: wasm has one thread) and raise reads it back.
struct TracePoint {
  const TraceFunction* function = nullptr;
  int line = 0;
};
inline TracePoint& trace_point() noexcept {
  static TracePoint p;
  return p;
}

[[noreturn]] inline void raise(const char* type, const char* message) noexcept {
  ep_error& slot = error_slot();
  fill_error(&slot, type, message);
  if (const TracePoint p = trace_point(); p.function && p.line > 0) {
    char entry[512];
    std::snprintf(entry, sizeof entry, "%s%c%d%c%s\n", p.function->file, kTraceSep, p.line, kTraceSep,
                  p.function->function);
    fill_trace(&slot, entry);
  }
  if (ep_error* err = current_error(); err && err != &slot) *err = slot;
  if (raise_handler h = raise_handler_ref()) h(&slot);
  __builtin_trap();
}
[[noreturn]] inline void raise(const char* type, const std::string& message) noexcept {
  raise(type, message.c_str());
}
#define EP_TRACE_BEGIN(file, function) \
  static constexpr ::ep::TraceFunction ep_trace_fn{file, function};
#define EP_LINE(n) (::ep::trace_point() = ::ep::TracePoint{&ep_trace_fn, (n)})
#define EP_TRACE_END(file, function)
#else
[[noreturn]] inline void raise(const char* type, std::string message) {
  throw PyError{type, std::move(message)};
}

// The line of the statement running is a plain local (never address-taken, so it stays a
// constant the compiler materialises only on the exception edge); the function-wide catch
// adds this function's frame to the error on its way out.
#define EP_TRACE_BEGIN(file, function) \
  int ep_line = 0;                     \
  try {
#define EP_LINE(n) (ep_line = (n))
#define EP_TRACE_END(file, function)                              \
  }                                                               \
  catch (::ep::PyError & ep_error_) {                             \
    ::ep::append_frame(ep_error_.trace, file, ep_line, function); \
    throw;                                                        \
  }
#endif

struct None {
  bool operator==(const None&) const { return true; }
};

template <class T, int N>
struct Array {
  static constexpr int ndim = N;
  using value_type = T;
  T* data = nullptr;
  std::array<index_t, N> shape{};
  std::array<index_t, N> strides{};  // in elements
  std::shared_ptr<void> owner;

  index_t size() const {
    index_t n = 1;
    for (int k = 0; k < N; ++k) n *= shape[k];
    return n;
  }
  bool contiguous() const {
    index_t expect = 1;
    for (int k = N - 1; k >= 0; --k) {
      if (shape[k] != 1 && strides[k] != expect) return false;
      expect *= shape[k];
    }
    return true;
  }
  template <class... I>
  T& operator()(I... idx) const {
    static_assert(sizeof...(I) == N, "wrong number of indices");
    index_t off = 0;
    int k = 0;
    ((off += static_cast<index_t>(idx) * strides[k++]), ...);
    return data[off];
  }
  T& at_offset(index_t off) const { return data[off]; }
};

template <class T>
struct is_array : std::false_type {};
template <class T, int N>
struct is_array<Array<T, N>> : std::true_type {};
template <class T>
inline constexpr bool is_array_v = is_array<std::decay_t<T>>::value;

template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};
template <class T>
inline constexpr bool is_complex_v = is_complex<std::decay_t<T>>::value;

template <int N>
inline std::array<index_t, N> c_strides(const std::array<index_t, N>& shape) {
  std::array<index_t, N> s{};
  index_t acc = 1;
  for (int k = N - 1; k >= 0; --k) {
    s[k] = acc;
    acc *= shape[k];
  }
  return s;
}

// Large blocks (temporaries of whole-array code) are kept in a small cache when freed
// and handed out again for the next allocation of the same size class: repeated calls
// then reuse warm, already-faulted memory instead of glibc trimming the heap and the
// next call faulting every page back in. Bounded (8 blocks, 64 MiB), thread-safe.
struct BlockCache {
  static constexpr size_t max_blocks = 8, max_bytes = size_t(64) << 20;
  Mutex lock;
  std::vector<std::pair<size_t, void*>> blocks;
  size_t held = 0;
  void* take(size_t cls) {
    LockGuard<Mutex> g(lock);
    for (size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].first == cls) {
        void* p = blocks[i].second;
        held -= cls;
        blocks[i] = blocks.back();
        blocks.pop_back();
        return p;
      }
    return nullptr;
  }
  bool give(size_t cls, void* p) {
    LockGuard<Mutex> g(lock);
    if (blocks.size() >= max_blocks || held + cls > max_bytes) return false;
    blocks.emplace_back(cls, p);
    held += cls;
    return true;
  }
};

// Never destroyed: arrays released during interpreter or program shutdown may still
// return their blocks after static destructors would have run.
inline BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache();
  return *cache;
}

// Size class of a large block: rounded up to 64 KiB so that similar shapes share blocks.
inline size_t block_class(size_t bytes) { return (bytes + (size_t(64) << 10) - 1) & ~((size_t(64) << 10) - 1); }

// 64-byte aligned memory from malloc, as NumPy does: glibc raises its mmap threshold
// after the first large free, so repeated temporaries reuse warm heap memory instead of
// faulting in fresh pages (~3 ms per 8 MiB here). Large blocks are also advised for
// transparent huge pages (NumPy's hugepage hint), which cuts the faults that remain.
inline void* aligned_bytes(size_t bytes) {
  const size_t n = (bytes + 63) / 64 * 64;
#if defined(_WIN32)
  return _aligned_malloc(n, 64);
#else
  return std::aligned_alloc(64, n);
#endif
}
inline void free_aligned(void* p) {
#if defined(_WIN32)
  _aligned_free(p);
#else
  std::free(p);
#endif
}

inline void* allocate_bytes(size_t bytes) {
  constexpr size_t huge = size_t(4) << 20;
  (void)huge;
  void* p = aligned_bytes(bytes);
  if (!p) {
#if defined(EP_NO_EXCEPTIONS)
    raise("MemoryError", "out of memory in compiled code");
#else
    throw std::bad_alloc();
#endif
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes >= huge) {
    uintptr_t lo = (reinterpret_cast<uintptr_t>(p) + 4095) & ~uintptr_t(4095);
    uintptr_t hi = (reinterpret_cast<uintptr_t>(p) + bytes) & ~uintptr_t(4095);
    if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);
  }
#endif
  return p;
}

inline constexpr size_t small_array_bytes = size_t(64) << 10;

// Uninitialised contiguous array, 64-byte aligned (SIMD-friendly).
template <class T, int N>
Array<T, N> empty(const std::array<index_t, N>& shape) {
  Array<T, N> a;
  a.shape = shape;
  for (int k = 0; k < N; ++k)
    if (shape[k] < 0) raise("ValueError", "negative dimensions are not allowed");
  a.strides = c_strides<N>(shape);
  index_t n = std::max<index_t>(a.size(), 1);
  const size_t bytes = sizeof(T) * static_cast<size_t>(n);
  if (bytes <= small_array_bytes) {
    // one allocation for the reference count and the data (small temporaries in loops
    // would otherwise pay two mallocs), data aligned to 64 bytes inside the block
    auto block = std::make_shared_for_overwrite<unsigned char[]>(bytes + 64);
    uintptr_t at = (reinterpret_cast<uintptr_t>(block.get()) + 63) & ~uintptr_t(63);
    a.data = reinterpret_cast<T*>(at);
    a.owner = std::move(block);
    return a;
  }
  const size_t cls = block_class(bytes);
  void* p = block_cache().take(cls);
  if (!p) p = allocate_bytes(cls);
  a.data = static_cast<T*>(p);
  a.owner = std::shared_ptr<void>(p, [cls](void* q) {
    if (!block_cache().give(cls, q)) free_aligned(q);
  });
  return a;
}

template <class T, int N>
Array<T, N> full(const std::array<index_t, N>& shape, T value) {
  Array<T, N> a = empty<T, N>(shape);
  std::fill(a.data, a.data + a.size(), value);
  return a;
}

inline std::string shape_str(const index_t* shape, int n) {
  std::string s = "(";
  for (int k = 0; k < n; ++k) {
    s += std::to_string(shape[k]);
    if (n == 1 || k + 1 < n) s += ",";
  }
  return s + ")";
}

template <class T, int N>
std::string shape_str(const Array<T, N>& a) {
  return shape_str(a.shape.data(), N);
}

// Calls f(offset) for every element of a (row-major order).
template <class T, int N, class F>
inline void for_each_offset(const Array<T, N>& a, F&& f) {
  if constexpr (N == 0) {
    f(index_t{0});
  } else {
    if (a.size() == 0) return;
    std::array<index_t, N> idx{};
    const index_t inner = a.shape[N - 1], st = a.strides[N - 1];
    while (true) {
      index_t base = 0;
      for (int k = 0; k < N - 1; ++k) base += idx[k] * a.strides[k];
      for (index_t i = 0; i < inner; ++i) f(base + i * st);
      int k = N - 2;
      for (; k >= 0; --k) {
        if (++idx[k] < a.shape[k]) break;
        idx[k] = 0;
      }
      if (k < 0) return;
    }
  }
}

// A contiguous copy (np.copy / ndarray.copy / ascontiguousarray).
template <class T, int N>
Array<T, N> copy(const Array<T, N>& a) {
  Array<T, N> out = empty<T, N>(a.shape);
  if (a.contiguous()) {
    std::copy(a.data, a.data + a.size(), out.data);
  } else {
    index_t j = 0;
    for_each_offset(a, [&](index_t off) { out.data[j++] = a.data[off]; });
  }
  return out;
}

template <class T, int N>
const T* contiguous_data(const Array<T, N>& a, Array<T, N>& keep) {
  if (a.contiguous()) return a.data;
  keep = copy(a);
  return keep.data;
}

// Memory range [lo, hi) spanned by an array, for overlap checks.
template <class T, int N>
std::pair<const char*, const char*> extent(const Array<T, N>& a) {
  if (a.size() == 0) return {nullptr, nullptr};
  index_t lo = 0, hi = 0;
  for (int k = 0; k < N; ++k) {
    index_t span = (a.shape[k] - 1) * a.strides[k];
    if (span < 0) lo += span; else hi += span;
  }
  const char* base = reinterpret_cast<const char*>(a.data);
  return {base + lo * (index_t)sizeof(T), base + (hi + 1) * (index_t)sizeof(T)};
}

template <class A, class B>
bool overlaps(const A& a, const B& b) {
  auto [a0, a1] = extent(a);
  auto [b0, b1] = extent(b);
  return a0 && b0 && a0 < b1 && b0 < a1;
}

// A bool that std::vector stores as itself (std::vector<bool> hands out proxies, not bool&).
struct Bool8 {
  bool v = false;
  Bool8() = default;
  Bool8(bool b) : v(b) {}
  operator bool() const { return v; }
};

template <class T>
using list_slot_t = std::conditional_t<std::is_same_v<T, bool>, Bool8, T>;

// Python lists: shared, growable (aliasing as in Python).
template <class T>
struct List {
  std::shared_ptr<std::vector<list_slot_t<T>>> items = std::make_shared<std::vector<list_slot_t<T>>>();
  index_t size() const { return static_cast<index_t>(items->size()); }
  list_slot_t<T>& operator[](index_t i) const { return (*items)[static_cast<size_t>(i)]; }
  void append(const T& v) const { items->push_back(v); }
};

template <class T>
List<T> make_list(std::initializer_list<T> items) {
  List<T> l;
  l.items->assign(items.begin(), items.end());
  return l;
}

struct Range {
  index_t start, stop, step;
  index_t size() const {
    if (step > 0) return start < stop ? (stop - start + step - 1) / step : 0;
    return start > stop ? (start - stop - step - 1) / (-step) : 0;
  }
};

inline Range make_range(index_t start, index_t stop, index_t step) {
  if (step == 0) raise("ValueError", "range() arg 3 must not be zero");
  return Range{start, stop, step};
}

}  // namespace ep
