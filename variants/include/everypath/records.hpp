// Lists of values that are not one slot each (records, tuples, enums): results as one EP_KIND_SEQ slot
// of items, each of `per` slots (abi.h), like put_set; the runtime builds a real list from them
// (lowering/runtime/results.cpp). Records themselves are plain structs written by the compiler
// (lowering/records.py), one per class.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "everypath/abi.h"
#include "everypath/array.hpp"

namespace ep {

template <class T, class F>
void put_seq(ep_value& v, const List<T>& l, int64_t per, F&& fill) {
  auto keep = std::make_shared<std::vector<ep_value>>(static_cast<size_t>(l.size() * per));
  for (ep_value& x : *keep) x = ep_value{};
  for (index_t i = 0; i < l.size(); ++i) fill(keep->data() + i * per, l[i]);
  v.kind = EP_KIND_SEQ;
  v.dtype = 0;
  v.ndim = 1;
  v.shape[0] = l.size();
  v.shape[1] = per;
  v.data = keep->data();
  v.owner = new std::shared_ptr<void>(std::move(keep));
}

// A mutable record result crosses the ABI after its struct's address, so that the runtime gives the caller
// one Python object per struct (`return b, b`: `r[0] is r[1]`, as in CPython). Every struct a result holds is
// alive while it is put, so the addresses of distinct ones differ.
template <class T>
int64_t identity(const std::shared_ptr<T>& p) {
  return static_cast<int64_t>(reinterpret_cast<std::intptr_t>(p.get()));
}

// An IntEnum crosses the ABI as its member's index; compiled code holds its value.
template <size_t N>
int64_t enum_index(const int64_t (&values)[N], int64_t value) {
  for (size_t i = 0; i < N; ++i) {
    if (values[i] == value) return static_cast<int64_t>(i);
  }
  return -1;  // not a member: the runtime reports an internal error
}

}  // namespace ep
