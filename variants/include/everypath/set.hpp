// Python set in compiled code (variants/ops/sets.py): a dict without values (dict.hpp), so the same
// hashing and equality. CPython iterates a set in its hash order, which str's salted hashes make differ
// between processes: compiled code gives no order (no `for` over a set: the typer says to iterate over
// sorted(s)); results become a real Python set.
#pragma once

#include "dict.hpp"

namespace ep {

template <class K>
struct Set {
  Dict<K, None> d;
  index_t size() const { return d.size(); }
  template <class P>
  bool contains(const P& x) const { return d.contains(x); }
  None add(const K& x) const {
    if (!d.contains(x)) d.set(x, None{});
    return None{};
  }
  template <class P>
  None discard(const P& x) const {
    if (d.contains(x)) d.take(x);
    return None{};
  }
  template <class P>
  None remove(const P& x) const {  // KeyError(x) when missing
    d.take(x);
    return None{};
  }
  Set copy() const { return Set{d.copy()}; }
  List<K> items() const { return d.keys(); }
};

template <class K>
Set<K> make_set(std::initializer_list<K> items) {
  Set<K> s;
  for (const auto& x : items) s.add(x);
  return s;
}
template <class K>
Set<K> set_or(const Set<K>& a, const Set<K>& b) {
  Set<K> out = a.copy();
  const List<K> keys = b.items();  // kept alive for the loop
  for (const auto& x : *keys.items) out.add(x);
  return out;
}
template <class K>
Set<K> set_and(const Set<K>& a, const Set<K>& b) {
  Set<K> out;
  const List<K> keys = a.items();
  for (const auto& x : *keys.items)
    if (b.contains(x)) out.add(x);
  return out;
}
template <class K>
Set<K> set_sub(const Set<K>& a, const Set<K>& b) {
  Set<K> out;
  const List<K> keys = a.items();
  for (const auto& x : *keys.items)
    if (!b.contains(x)) out.add(x);
  return out;
}
template <class K>
bool operator==(const Set<K>& a, const Set<K>& b) {
  return a.d == b.d;
}
template <class K>
Set<K> set_of(const List<K>& l) {  // set(list)
  Set<K> out;
  for (const auto& x : *l.items) out.add(x);
  return out;
}

// A set result (abi.h, EP_KIND_SEQ): per slots for each item, filled by `fill(slots, item)`.
template <class K, class F>
void put_set(ep_value& v, const Set<K>& s, int64_t per, F&& fill) {
  put_dict(v, s.d, per, [&](ep_value* slots, const K& k, None) { fill(slots, k); });
}

}  // namespace ep
