// sorted(xs, key=f), list.sort(key=f), max(xs, key=f), min(xs, key=f) with CPython's results
// (lowering/key_calls.py lowers them here; the key is a compiled closure).
// - sorted/sort: a stable sort on the keys, each computed once per item as CPython does; reverse=True
//   keeps equal keys in their original order too. Keys are compared as Python compares them: numbers and
//   str by <, tuples by their first items that are not == (ep::tuple_compare), so a NaN inside a tuple
//   key orders as CPython's. A NaN key makes < no order at all, so CPython's permutation then depends on
//   its timsort's steps: that raises, as sorted() of floats holding NaN does (builtins.hpp).
// - max/min: CPython's loop: the first item whose key is strictly greater (smaller) replaces the best,
//   so ties keep the first item and a NaN key is handled exactly as CPython handles it.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <tuple>
#include <type_traits>
#include <vector>

#include "builtins.hpp"
#include "list_methods.hpp"

namespace ep {
namespace keyed {

template <class T>
struct is_tuple : std::false_type {};
template <class... Ts>
struct is_tuple<std::tuple<Ts...>> : std::true_type {};

// Python's a < b for a key (numbers, str, tuples of them)
template <class A, class B>
bool less(const A& a, const B& b) {
  if constexpr (is_tuple<A>::value && is_tuple<B>::value)
    return tuple_compare(a, b, [](const auto& x, const auto& y) { return less(x, y); });
  else
    return a < b;
}

template <class K>
bool has_nan(const K& k) {
  if constexpr (std::is_floating_point_v<K>)
    return std::isnan(k);
  else if constexpr (is_tuple<K>::value)
    return std::apply([](const auto&... xs) { return (has_nan(xs) || ...); }, k);
  else
    return false;
}

// the items in order and their keys, one key call per item (CPython calls the key once per item too)
template <class R, class S, class F>
auto items_and_keys(const S& seq, F&& key) {
  std::vector<R> items;
  each(seq, [&](const auto& v) { items.push_back(static_cast<R>(v)); });
  using K = std::decay_t<decltype(key(std::declval<const R&>()))>;
  std::vector<K> keys;
  keys.reserve(items.size());
  for (const auto& x : items) keys.push_back(key(x));
  return std::make_pair(std::move(items), std::move(keys));
}

// the stable order of items by their keys
template <class R, class K>
std::vector<R> ordered(std::vector<R>& items, const std::vector<K>& keys, bool reverse) {
  for (const auto& k : keys)
    if (has_nan(k))
      raise("ValueError", "sorted() with a key= that gives NaN is not supported: CPython's order then depends on "
                          "its sort algorithm's steps");
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), size_t{0});
  if (reverse)
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return less(keys[b], keys[a]); });
  else
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return less(keys[a], keys[b]); });
  std::vector<R> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(std::move(items[i]));
  return out;
}

}  // namespace keyed

template <class R, class S, class F>
List<R> sorted_by(const S& seq, F&& key, bool reverse) {
  auto [items, keys] = keyed::items_and_keys<R>(seq, key);
  List<R> out;
  auto sorted = keyed::ordered(items, keys, reverse);
  out.items->assign(sorted.begin(), sorted.end());
  return out;
}

// xs.sort(key=f): in place; the list is left as it was if the key raises (CPython empties it while
// sorting and restores it then as well)
template <class T, class F>
void list_sort_by(const List<T>& l, F&& key, bool reverse) {
  auto [items, keys] = keyed::items_and_keys<T>(l, key);
  auto sorted = keyed::ordered(items, keys, reverse);
  l.items->assign(sorted.begin(), sorted.end());
}

// max(xs, key=f) (Greater = true) / min(xs, key=f): the first best item, as CPython's min_max loop
template <bool Greater, class R, class S, class F>
R extreme_by(const S& seq, F&& key, const char* empty_message) {
  bool any = false;
  R best{};
  using K = std::decay_t<decltype(key(std::declval<const R&>()))>;
  K best_key{};
  each(seq, [&](const auto& v) {
    R item = static_cast<R>(v);
    K k = key(item);
    if (!any || (Greater ? keyed::less(best_key, k) : keyed::less(k, best_key))) {
      best = std::move(item);
      best_key = std::move(k);
    }
    any = true;
  });
  if (!any) raise("ValueError", empty_message);
  return best;
}

// max(a, b, ..., key=f) / min(...): the same loop over the arguments, in order
template <bool Greater, class R, class F, class... V>
R extreme_of(F&& key, const V&... values) {
  const std::array<R, sizeof...(V)> items{values...};
  using K = std::decay_t<decltype(key(std::declval<const R&>()))>;
  size_t best = 0;
  K best_key = key(items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    K k = key(items[i]);
    if (Greater ? keyed::less(best_key, k) : keyed::less(k, best_key)) {
      best = i;
      best_key = std::move(k);
    }
  }
  return items[best];
}

// max(xs, key=f, default=d)
template <bool Greater, class R, class S, class F>
R extreme_by_or(const S& seq, F&& key, const R& fallback) {
  bool empty = true;
  each(seq, [&](const auto&) { empty = false; });
  if (empty) return fallback;
  return extreme_by<Greater, R>(seq, key, "");
}

}  // namespace ep
