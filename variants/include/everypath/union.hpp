// Tagged unions (base/types.py UnionT, lowering/unions.py): a value that is one of a few kinds at run time
// (`best = None` then a tuple; an int on one path, a str on another). The members are told apart by index,
// never by C++ type (a Python int and an np.int64 are both int64_t). Reading a member the value does not
// hold raises the Python exception CPython would raise at that operation (its message is given by the
// caller), never undefined behaviour.
#pragma once

#include <cstddef>
#include <utility>
#include <variant>

#include "array.hpp"

namespace ep {

template <class... Ts>
struct Union {
  std::variant<Ts...> v;

  Union() = default;
  template <std::size_t I, class A>
  Union(std::in_place_index_t<I> at, A&& a) : v(at, std::forward<A>(a)) {}

  std::size_t index() const { return v.index(); }
  bool operator==(const Union& o) const { return v == o.v; }
};

// The member I of u; a TypeError (or the exception named) with this message when u holds another one.
template <std::size_t I, class U>
const auto& union_get(const U& u, const char* type, const char* message) {
  if (u.v.index() != I) raise(type, message);
  return std::get<I>(u.v);
}

template <std::size_t I, class U>
const auto& union_at(const U& u) {  // the tag was tested just before (a switch over it)
  return *std::get_if<I>(&u.v);
}

}  // namespace ep
