// Python dict in compiled code: CPython's compact layout, an open-addressing index table of
// positions into a dense entry vector kept in insertion order. Deleting an entry marks it dead (a
// tombstone: the index keeps pointing at it so probe chains stay intact); a rebuild drops the dead
// entries once the table is 2/3 full. Iteration walks the entry vector: insertion order, as CPython.
//
// Keys hash as CPython hashes numbers (int, float and bool are one number line: hash(1) ==
// hash(1.0) == hash(True)), so a lookup with 1.0 finds the key 1; str hashes are our own (CPython's
// are salted per process), tuples combine their items'. A NaN key equals nothing, itself included:
// each store of NaN adds an entry and no lookup finds one (CPython compares NaN keys by object
// identity, which compiled values do not have). Operations and results: variants/ops/dicts.py.
#pragma once

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "abi.h"
#include "array.hpp"
#include "format.hpp"
#include "str.hpp"

namespace ep {

namespace dictx {

constexpr uint64_t kModulus = (uint64_t(1) << 61) - 1;  // CPython's _PyHASH_MODULUS (64-bit builds)

inline int64_t fix(int64_t h) { return h == -1 ? -2 : h; }

// CPython's long_hash for an int that fits 64 bits.
inline int64_t hash_int(int64_t x) {
  const uint64_t a = x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x);
  const int64_t h = static_cast<int64_t>(a % kModulus);
  return fix(x < 0 ? -h : h);
}

// CPython's _Py_HashDouble: equal to hash_int for integral values. NaN: 0 (it is never found).
inline int64_t hash_double(double v) {
  if (std::isnan(v)) return 0;
  if (std::isinf(v)) return v > 0 ? 314159 : -314159;
  int e = 0;
  double m = std::frexp(v, &e);
  int64_t sign = 1;
  if (m < 0) {
    sign = -1;
    m = -m;
  }
  uint64_t x = 0;
  while (m != 0.0) {
    x = ((x << 28) & kModulus) | x >> (61 - 28);
    m *= 268435456.0;
    e -= 28;
    const auto y = static_cast<uint64_t>(m);
    m -= static_cast<double>(y);
    x += y;
    if (x >= kModulus) x -= kModulus;
  }
  e = e >= 0 ? e % 61 : 61 - 1 - ((-1 - e) % 61);
  x = ((x << e) & kModulus) | x >> (61 - e);
  return fix(static_cast<int64_t>(x) * sign);
}

inline int64_t hash_bytes(std::string_view s) {  // FNV-1a: any hash consistent with == will do
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return fix(static_cast<int64_t>(h >> 1));
}

template <class T>
int64_t hash(const T& k) {
  if constexpr (std::is_same_v<T, Str>) {
    return hash_bytes(k.view());
  } else if constexpr (std::is_convertible_v<const T&, std::string_view> || std::is_same_v<T, std::string>) {
    return hash_bytes(std::string_view(k));
  } else if constexpr (std::is_floating_point_v<T>) {
    return hash_double(static_cast<double>(k));
  } else if constexpr (std::is_arithmetic_v<T>) {
    return hash_int(static_cast<int64_t>(k));
  } else {  // a tuple: its items' hashes combined
    uint64_t h = 0x345678ULL;
    std::apply([&](const auto&... x) { ((h = (h ^ static_cast<uint64_t>(hash(x))) * 1000003ULL), ...); }, k);
    return fix(static_cast<int64_t>(h >> 1));
  }
}

template <class A, class B>
bool equal(const A& a, const B& b) {
  if constexpr (std::is_arithmetic_v<A> && std::is_arithmetic_v<B>) {
    if constexpr (std::is_floating_point_v<A> || std::is_floating_point_v<B>) {
      return static_cast<double>(a) == static_cast<double>(b);
    } else {
      return static_cast<int64_t>(a) == static_cast<int64_t>(b);
    }
  } else if constexpr (std::is_arithmetic_v<A> || std::is_arithmetic_v<B>) {
    return false;  // a number is never a str or a tuple
  } else if constexpr (requires { std::tuple_size<A>::value; std::tuple_size<B>::value; }) {
    if constexpr (std::tuple_size_v<A> != std::tuple_size_v<B>) {
      return false;
    } else {
      return [&]<size_t... I>(std::index_sequence<I...>) {
        return (equal(std::get<I>(a), std::get<I>(b)) && ...);
      }(std::make_index_sequence<std::tuple_size_v<A>>{});
    }
  } else {
    return a == b;
  }
}

// repr(key) for KeyError's message (the runtime turns it back into the key object).
template <class T>
std::string repr(const T& k) {
  if constexpr (std::is_same_v<T, Str> || std::is_same_v<T, std::string>) {
    return py_repr_str(std::string(k));
  } else if constexpr (std::is_same_v<T, bool>) {
    return k ? "True" : "False";
  } else if constexpr (std::is_floating_point_v<T>) {
    return py_float(static_cast<double>(k));
  } else if constexpr (std::is_arithmetic_v<T>) {
    return std::to_string(static_cast<int64_t>(k));
  } else {
    std::string s = "(";
    size_t i = 0;
    std::apply([&](const auto&... x) { ((s += (i++ ? ", " : "") + repr(x)), ...); }, k);
    return s + (std::tuple_size_v<T> == 1 ? ",)" : ")");
  }
}

}  // namespace dictx

template <class K, class V>
struct Dict {
  struct Entry {
    K key;
    V value;
    int64_t hash;
    bool live;
  };
  struct Rep {
    std::vector<Entry> entries;  // insertion order, dead ones included until the next rebuild
    std::vector<int64_t> index;  // -1 empty, else a position in entries; size a power of two
    index_t used = 0;            // live entries
    uint64_t version = 0;        // bumped when a key comes or goes: loops over the dict check it
  };
  std::shared_ptr<Rep> rep = std::make_shared<Rep>();  // shared: dicts alias as in Python

  index_t size() const { return rep->used; }

  template <class P>
  int64_t find(const P& probe) const {
    const Rep& r = *rep;
    if (r.index.empty()) return -1;
    const int64_t h = dictx::hash(probe);
    const size_t mask = r.index.size() - 1;
    for (size_t i = static_cast<size_t>(h) & mask;; i = (i + 1) & mask) {
      const int64_t e = r.index[i];
      if (e < 0) return -1;
      const Entry& en = r.entries[static_cast<size_t>(e)];
      if (en.live && en.hash == h && dictx::equal(en.key, probe)) return e;
    }
  }
  template <class P>
  bool contains(const P& probe) const { return find(probe) >= 0; }

  template <class P>
  V& at(const P& probe) const {  // d[k]
    const int64_t e = find(probe);
    if (e < 0) raise("KeyError", dictx::repr(probe));
    return rep->entries[static_cast<size_t>(e)].value;
  }
  // d[k] = v: a new key goes last; an existing one keeps its place (and its first spelling).
  void set(const K& key, V value) const {
    const int64_t e = find(key);
    if (e >= 0) {
      rep->entries[static_cast<size_t>(e)].value = std::move(value);
      return;
    }
    Rep& r = *rep;
    if (static_cast<size_t>(r.entries.size() + 1) * 3 > r.index.size() * 2) rebuild();
    const int64_t h = dictx::hash(key);
    r.entries.push_back(Entry{key, std::move(value), h, true});
    place(static_cast<int64_t>(r.entries.size() - 1), h);
    ++r.used;
    ++r.version;
  }
  template <class P>
  V take(const P& probe) const {  // del d[k] / d.pop(k)
    const int64_t e = find(probe);
    if (e < 0) raise("KeyError", dictx::repr(probe));
    Entry& en = rep->entries[static_cast<size_t>(e)];
    en.live = false;
    --rep->used;
    ++rep->version;
    return std::move(en.value);
  }
  template <class P, class D>
  V pop(const P& probe, const D& dflt) const {
    if (find(probe) < 0) return V(dflt);
    return take(probe);
  }
  template <class P, class D>
  V get(const P& probe, const D& dflt) const {
    const int64_t e = find(probe);
    return e < 0 ? V(dflt) : rep->entries[static_cast<size_t>(e)].value;
  }
  V& setdefault(const K& key, const V& dflt) const {
    if (find(key) < 0) set(key, dflt);
    return at(key);
  }
  void update(const Dict& other) const {
    const auto items = other.rep->entries;  // d.update(d): a snapshot
    for (const Entry& en : items) {
      if (en.live) set(en.key, en.value);
    }
  }
  Dict copy() const {
    Dict out;
    out.update(*this);
    return out;
  }
  void clear() const {
    const uint64_t v = rep->version + (rep->used != 0);
    *rep = Rep{};
    rep->version = v;
  }
  // The length a `for` over a snapshot of this dict tests before each step: CPython's errors when the
  // loop's body added or removed keys (checked at every next(), the one past the last item included).
  index_t iter_check(uint64_t version, index_t size0, index_t n) const {
    if (rep->version != version)
      raise("RuntimeError", rep->used != size0 ? "dictionary changed size during iteration"
                                               : "dictionary keys changed during iteration");
    return n;
  }

  // Snapshots for `for`: the loop reads a list made when it starts.
  List<K> keys() const {
    List<K> out;
    for (const Entry& en : rep->entries)
      if (en.live) out.append(en.key);
    return out;
  }
  List<V> values() const {
    List<V> out;
    for (const Entry& en : rep->entries)
      if (en.live) out.append(en.value);
    return out;
  }
  List<std::tuple<K, V>> items() const {
    List<std::tuple<K, V>> out;
    for (const Entry& en : rep->entries)
      if (en.live) out.append(std::make_tuple(en.key, en.value));
    return out;
  }

 private:
  void place(int64_t pos, int64_t h) const {
    const size_t mask = rep->index.size() - 1;
    size_t i = static_cast<size_t>(h) & mask;
    while (rep->index[i] >= 0) i = (i + 1) & mask;
    rep->index[i] = pos;
  }
  // Drop dead entries (order kept) and size the index for twice the live ones: amortised O(1) inserts.
  void rebuild() const {
    Rep& r = *rep;
    std::vector<Entry> live;
    live.reserve(static_cast<size_t>(r.used) + 1);
    for (Entry& en : r.entries)
      if (en.live) live.push_back(std::move(en));
    size_t cap = 8;
    while (cap * 2 < (live.size() + 1) * 3 * 2) cap *= 2;  // at most 1/3 full after the rebuild
    r.entries = std::move(live);
    r.index.assign(cap, -1);
    for (size_t k = 0; k < r.entries.size(); ++k) place(static_cast<int64_t>(k), r.entries[k].hash);
  }
};

template <class K, class V>
Dict<K, V> make_dict(std::initializer_list<std::tuple<K, V>> items) {
  Dict<K, V> d;
  for (const auto& [k, v] : items) d.set(k, v);
  return d;
}

// dict(pairs) of a list of (key, value) tuples: a repeated key keeps its first place and its last value.
template <class D, class L>
D dict_from_pairs(const L& pairs) {
  D d;
  for (index_t i = 0; i < pairs.size(); ++i) d.set(std::get<0>(pairs[i]), std::get<1>(pairs[i]));
  return d;
}

// d1 == d2: the same keys with equal values, whatever the order (as CPython).
template <class K, class V>
bool operator==(const Dict<K, V>& a, const Dict<K, V>& b) {
  if (a.size() != b.size()) return false;
  for (const auto& en : a.rep->entries) {
    if (!en.live) continue;
    const int64_t e = b.find(en.key);
    if (e < 0 || !(b.rep->entries[static_cast<size_t>(e)].value == en.value)) return false;
  }
  return true;
}

// sorted(d) / sorted(d.items()): a stable sort by <, which is Python's order for numbers, str (UTF-8
// byte order is code point order) and tuples of those (lexicographic).
template <class T>
List<T> dict_sorted(List<T> items, bool reverse) {
  if constexpr (std::is_floating_point_v<T>) {
    for (const auto& x : *items.items)
      if (std::isnan(x))
        raise("ValueError", "sorted() of floats holding NaN is not supported: CPython's order then depends on its "
                            "sort algorithm's steps");
  }
  auto& v = *items.items;
  if (reverse)  // CPython's reverse sort keeps equal items in their original order too
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return b < a; });
  else
    std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a < b; });
  return items;
}

// list(d), list(d.items()): the view's snapshot is a fresh list already.
template <class T>
List<T> dict_list(List<T> items) { return items; }

// A dict argument (abi.h, EP_KIND_SEQ, two slots an entry): scalars in the parameter's dtype, str.
namespace dictx {
template <class T>
T arg_leaf(const ep_value& v) {
  if constexpr (std::is_same_v<T, Str>) {
    return arg_str(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v.scalar.bytes[0] != 0;
  } else {
    T x;
    std::memcpy(&x, v.scalar.bytes, sizeof(T));
    return x;
  }
}
}  // namespace dictx

template <class K, class V>
Dict<K, V> arg_dict(const ep_value& v) {
  Dict<K, V> d;
  const auto* vals = static_cast<const ep_value*>(v.data);
  for (int64_t i = 0; i < v.shape[0]; ++i) d.set(dictx::arg_leaf<K>(vals[2 * i]), dictx::arg_leaf<V>(vals[2 * i + 1]));
  return d;
}

// A dict result (abi.h, EP_KIND_SEQ): per slots for each live entry, filled by `fill(slots, key, value)`.
template <class K, class V, class F>
void put_dict(ep_value& v, const Dict<K, V>& d, int64_t per, F&& fill) {
  auto keep = std::make_shared<std::vector<ep_value>>(static_cast<size_t>(d.size() * per));
  for (ep_value& x : *keep) x = ep_value{};
  int64_t i = 0;
  for (const auto& en : d.rep->entries) {
    if (!en.live) continue;
    fill(keep->data() + i * per, en.key, en.value);
    ++i;
  }
  v.kind = EP_KIND_SEQ;
  v.dtype = 0;
  v.ndim = 1;
  v.shape[0] = d.size();
  v.shape[1] = per;
  v.data = keep->data();
  v.owner = new std::shared_ptr<void>(std::move(keep));
}

}  // namespace ep
