// Run-time choice among an operator's implementation paths at one call site.
// The generated code passes each variant's minimum work (elements of the largest
// operand) in preference order; the last variant whose threshold is met runs.
#pragma once

#include <initializer_list>
#include <optional>
#include <type_traits>
#include <utility>

#include "array.hpp"

namespace ep {

// Path tags: kernels with several implementations take one as a template argument.
namespace path {
struct loops {};
struct simd {};
struct threads {};
struct blas {};
struct accelerate {};
}  // namespace path

template <class A>
inline index_t work_of(const A& a) {
  if constexpr (is_array_v<A>) return a.size();
  else return 0;
}

template <class... A>
inline index_t work(const A&... a) {
  index_t w = 0;
  ((w = std::max(w, work_of(a))), ...);
  return w;
}

inline int pick(std::initializer_list<index_t> min_work, index_t w) {
  int chosen = 0, i = 0;
  for (index_t m : min_work) {
    if (w >= m) chosen = i;
    ++i;
  }
  return chosen;
}

template <class F0, class... F>
inline auto dispatch(int which, F0&& f0, F&&... rest) -> decltype(f0()) {
  using R = decltype(f0());
  if (which <= 0 || which > static_cast<int>(sizeof...(F))) return f0();
  int k = 1;
  if constexpr (std::is_void_v<R>) {
    ((k++ == which ? rest() : void()), ...);
  } else {
    std::optional<R> out;
    ((k++ == which ? (void)out.emplace(rest()) : void()), ...);
    return std::move(*out);
  }
}

}  // namespace ep
