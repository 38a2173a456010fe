// Python list methods and operators over ep::List (array.hpp): CPython's results and error messages.
// variants/ops/lists.py lowers list.pop(), a + b, a == b, ... to these. A list is shared (aliasing as in
// Python), so methods mutate *items and operators build a new List.
#pragma once

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "array.hpp"
#include "format.hpp"
#include "str_ops.hpp"

namespace ep {

template <class T>
T list_pop(const List<T>& l, index_t i = -1) {
  auto& v = *l.items;
  const index_t n = static_cast<index_t>(v.size());
  if (n == 0) raise("IndexError", "pop from empty list");
  if (i < 0) i += n;
  if (i < 0 || i >= n) raise("IndexError", "pop index out of range");
  T out = v[static_cast<size_t>(i)];
  v.erase(v.begin() + i);
  return out;
}

template <class T, class U>
void list_extend(const List<T>& l, const List<U>& other) {
  std::vector<list_slot_t<T>> add(other.items->begin(), other.items->end());  // a copy: a.extend(a)
  l.items->insert(l.items->end(), add.begin(), add.end());
}

template <class T>
void list_extend(const List<T>& l, const Range& r) {
  l.items->reserve(l.items->size() + static_cast<size_t>(r.size()));
  for (index_t k = 0, x = r.start; k < r.size(); ++k, x += r.step) l.items->push_back(static_cast<T>(x));
}

template <class T>
List<T> list_concat(const List<T>& a, const List<T>& b) {
  List<T> out;
  out.items->reserve(a.items->size() + b.items->size());
  out.items->insert(out.items->end(), a.items->begin(), a.items->end());
  out.items->insert(out.items->end(), b.items->begin(), b.items->end());
  return out;
}

template <class T>
List<T> list_iadd(const List<T>& a, const List<T>& b) {  // a += b: extends a itself (every alias sees it)
  list_extend(a, b);
  return a;
}

template <class T>
List<T> list_repeat(const List<T>& a, int64_t n) {
  List<T> out;
  if (n <= 0 || a.items->empty()) return out;
  out.items->reserve(a.items->size() * static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) out.items->insert(out.items->end(), a.items->begin(), a.items->end());
  return out;
}

template <class T>
List<T> list_irepeat(const List<T>& a, int64_t n) {  // a *= n: in place
  std::vector<list_slot_t<T>> once(*a.items);
  a.items->clear();
  for (int64_t k = 0; k < n; ++k) a.items->insert(a.items->end(), once.begin(), once.end());
  return a;
}

template <class T>
bool list_eq(const List<T>& a, const List<T>& b) {
  if (a.items->size() != b.items->size()) return false;
  for (size_t k = 0; k < a.items->size(); ++k)
    if (!(static_cast<T>((*a.items)[k]) == static_cast<T>((*b.items)[k]))) return false;
  return true;
}

// <, <=, >, >=: the first items that differ decide (as CPython: `==` finds them, then the operator on them),
// else the lengths.
template <class T, class Cmp>
bool list_compare(const List<T>& a, const List<T>& b, Cmp cmp) {
  const size_t n = std::min(a.items->size(), b.items->size());
  for (size_t k = 0; k < n; ++k) {
    const T x = (*a.items)[k], y = (*b.items)[k];
    if (!(x == y)) return cmp(x, y);
  }
  return cmp(a.items->size(), b.items->size());
}

template <class T, class Repr>
int64_t list_index(const List<T>& l, const T& x, Repr repr) {
  for (size_t k = 0; k < l.items->size(); ++k)
    if (static_cast<T>((*l.items)[k]) == x) return static_cast<int64_t>(k);
  raise("ValueError", repr(x) + " is not in list");
}

template <class T>
int64_t list_count(const List<T>& l, const T& x) {
  int64_t n = 0;
  for (const auto& v : *l.items) n += static_cast<T>(v) == x;
  return n;
}

template <class T>
void list_insert(const List<T>& l, index_t i, const T& x) {
  const index_t n = static_cast<index_t>(l.items->size());
  if (i < 0) i = std::max<index_t>(i + n, 0);
  if (i > n) i = n;
  l.items->insert(l.items->begin() + i, x);
}

template <class T>
void list_remove(const List<T>& l, const T& x) {
  for (size_t k = 0; k < l.items->size(); ++k)
    if (static_cast<T>((*l.items)[k]) == x) {
      l.items->erase(l.items->begin() + static_cast<std::ptrdiff_t>(k));
      return;
    }
  raise("ValueError", "list.remove(x): x not in list");
}

template <class T>
void list_sort(const List<T>& l, bool reverse) {  // stable either way, as CPython's reverse=True is
  using S = list_slot_t<T>;
  if (reverse)
    std::stable_sort(l.items->begin(), l.items->end(), [](const S& a, const S& b) { return T(b) < T(a); });
  else
    std::stable_sort(l.items->begin(), l.items->end(), [](const S& a, const S& b) { return T(a) < T(b); });
}

// sorted(s) of a str: its code points, each a str (UTF-8 order is code point order)
inline List<Str> list_sorted_str(const Str& s, bool reverse) {
  List<Str> out;
  out.items->reserve(static_cast<size_t>(s.size()));
  for (index_t k = 0; k < s.size(); ++k) out.append(s.at(k));
  list_sort(out, reverse);
  return out;
}

// tuple <, <=, >, >= as CPython: the first items that are not == decide, else the lengths
template <size_t I = 0, class A, class B, class Cmp>
bool tuple_compare(const A& a, const B& b, Cmp cmp) {
  constexpr size_t na = std::tuple_size_v<A>, nb = std::tuple_size_v<B>;
  if constexpr (I < na && I < nb) {
    if (!(std::get<I>(a) == std::get<I>(b))) return cmp(std::get<I>(a), std::get<I>(b));
    return tuple_compare<I + 1>(a, b, cmp);
  } else {
    return cmp(na, nb);
  }
}

template <class T>
List<T> list_copy(const List<T>& l) {
  List<T> out;
  *out.items = *l.items;
  return out;
}

}  // namespace ep
