// Generator functions of compiled code (lowering/generators.py): a C++20 coroutine returning
// ep::generator<T>. It is lazy (nothing of the body runs before the first next()), move-only, and
// owns its frame, which it frees when it is destroyed: a consumer loop that stops early (break,
// return, an error) frees it at the end of its scope. An exception leaving the body is kept and
// rethrown by the next() that ran it; the generator is finished from then on, as in CPython.
//
// Across the C ABI (abi.h EP_KIND_GEN): put_generator hands the generator to the host in a
// shared_ptr (so ep_release frees it like any owner) together with the unit's `next` function for
// its item type, which gen_next implements: resume, then put the item into the result slots.
#pragma once

#include <coroutine>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <utility>

#include "abi.h"
#include "entry.hpp"

namespace ep {

template <class T>
class generator {
 public:
  struct promise_type {
    std::optional<T> value;  // the item last yielded, read by value() until the next resume
#if !defined(EP_NO_EXCEPTIONS)
    std::exception_ptr error;
#endif

    generator get_return_object() { return generator(handle::from_promise(*this)); }
    std::suspend_always initial_suspend() noexcept { return {}; }  // lazy, as a Python generator
    std::suspend_always final_suspend() noexcept { return {}; }    // the owner frees the frame
    std::suspend_always yield_value(T v) {
      value = std::move(v);
      return {};
    }
    void return_void() noexcept {}
#if defined(EP_NO_EXCEPTIONS)
    void unhandled_exception() noexcept { std::abort(); }  // ep::raise traps before getting here
#else
    void unhandled_exception() noexcept { error = std::current_exception(); }
#endif
  };
  using handle = std::coroutine_handle<promise_type>;

  generator() = default;
  generator(generator&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  generator& operator=(generator&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  generator(const generator&) = delete;
  generator& operator=(const generator&) = delete;
  ~generator() { reset(); }

  // Runs the body up to its next yield: true with an item to read, false once it has finished.
  bool next() {
    if (!h_ || h_.done()) return false;
    h_.resume();
    if (!h_.done()) return true;
#if !defined(EP_NO_EXCEPTIONS)
    if (std::exception_ptr e = std::exchange(h_.promise().error, nullptr)) std::rethrow_exception(e);
#endif
    return false;
  }
  T& value() { return *h_.promise().value; }

 private:
  explicit generator(handle h) : h_(h) {}
  void reset() noexcept {
    if (h_) std::exchange(h_, {}).destroy();
  }
  handle h_{};
};

// An entry point's generator, handed to the host (abi.h EP_KIND_GEN).
template <class T>
void put_generator(ep_value& v, generator<T>&& g, ep_gen_next_fn next) {
  v.kind = EP_KIND_GEN;
  v.dtype = 0;
  v.ndim = 0;
  v.data = nullptr;
  std::memset(v.scalar.bytes, 0, sizeof(v.scalar.bytes));
  std::memcpy(v.scalar.bytes, &next, sizeof(next));
  v.owner = new std::shared_ptr<void>(std::make_shared<generator<T>>(std::move(g)));
}

// The unit's `next` for one item type: resume, and put the item with `put(results, item)`.
template <class T, class Put>
int gen_next(void* owner, ep_value* results, ep_error* err, Put&& put) {
  auto* g = static_cast<generator<T>*>(static_cast<std::shared_ptr<void>*>(owner)->get());
  int state = EP_GEN_DONE;
  const int rc = guarded(err, [&] {
    if (g->next()) {
      put(results, g->value());
      state = EP_GEN_ITEM;
    }
  });
  return rc != 0 ? EP_GEN_ERROR : state;
}

}  // namespace ep
