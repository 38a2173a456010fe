// try / except in compiled code (lowering/exceptions.py emits the statements; this is their run-time half).
// Every error of compiled code is an ep::PyError (array.hpp: a Python exception's type name and message);
// the C++ library's own failures are converted as entry.hpp's guarded() converts them, so an
// `except MemoryError` sees what the caller would. The matching itself is a list of type names the
// compiler derived from CPython's class hierarchy: no Python is needed at run time.
#pragma once

#include <cstring>
#include <exception>
#include <initializer_list>
#include <new>
#include <optional>  // a return value held across a finally (lowering/exceptions.py)
#include <string>

#include "array.hpp"
#include "str.hpp"

namespace ep {

#if !defined(EP_NO_EXCEPTIONS)
// The exception being handled, as a PyError. Called only inside a catch (...) block; an exception that is
// no Python error (a foreign one) is not caught: it leaves through here unchanged.
[[gnu::cold]] inline PyError caught_error() {
  try {
    throw;
  } catch (const PyError& e) {
    return e;
  } catch (const std::bad_alloc&) {
    return PyError{"MemoryError", "out of memory in compiled code"};
  } catch (const std::exception& e) {
    return PyError{"RuntimeError", e.what()};
  }
}
#endif

// Whether `type` is one of `names` (what an except clause's classes and their subclasses are called).
[[gnu::cold]] inline bool exc_in(const char* type, std::initializer_list<const char*> names) noexcept {
  for (const char* n : names)
    if (std::strcmp(type, n) == 0) return true;
  return false;
}

// str(e): the message, as CPython's str() of a one-argument exception gives it.
[[gnu::cold]] inline Str exc_str(const PyError& e) { return Str(e.message); }

}  // namespace ep
