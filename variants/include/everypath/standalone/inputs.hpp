// The executable's inputs: .npz members bound to the C ABI's argument slots, with the
// conversions a Python caller gets (a Python int takes any integer 0-d array whose value fits,
// a float integers and floats, ...; NumPy scalar and array parameters their exact dtype and rank)
// and every mismatch an error message naming the parameter, the expected and the given.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "npz.hpp"
#include "program.hpp"

namespace ep::standalone {

namespace detail {

inline std::string got_text(const npz::Array& a) {
  const std::string dt = npz::dtype_info(a.dtype).name;
  if (a.ndim == 0) return "a 0-d " + dt + " array";
  return "a " + dt + " array of rank " + std::to_string(a.ndim) + ", shape " + npz::shape_text(a.shape, a.ndim);
}

template <class T>
T load(const npz::Array& a) {
  T v;
  std::memcpy(&v, a.data(), sizeof(T));
  return v;
}

// A 0-d array -> the slot's scalar; false when the dtype does not fit (`why` stays empty) or
// the value does not (`why` says so).
inline bool to_scalar(const Slot& s, const npz::Array& a, ep_value& v, std::string& why) {
  const char src = npz::dtype_info(a.dtype).kind, dst = npz::dtype_info(s.dtype).kind;
  const int dst_size = npz::dtype_info(s.dtype).itemsize;
  v.kind = EP_KIND_SCALAR;
  v.dtype = s.dtype;
  std::memset(v.scalar.bytes, 0, sizeof v.scalar.bytes);
  if (a.dtype == s.dtype) {
    std::memcpy(v.scalar.bytes, a.data(), static_cast<size_t>(dst_size));
    return true;
  }
  if (!s.py) return false;  // NumPy scalar parameters take exactly their dtype
  // Python scalars: bool takes bool; int any integer whose value fits; float integers and
  // floats; complex integers, floats and complexes.
  const bool allowed = (dst == 'i' || dst == 'u') ? (src == 'i' || src == 'u')
                       : dst == 'f'               ? (src == 'i' || src == 'u' || src == 'f')
                       : dst == 'c'               ? (src == 'i' || src == 'u' || src == 'f' || src == 'c')
                                                  : false;
  if (!allowed) return false;
  bool neg = false;
  uint64_t mag = 0;  // integer sources as sign and magnitude
  double re = 0, im = 0;
  const int src_size = npz::dtype_info(a.dtype).itemsize;
  if (src == 'i') {
    const int64_t x = src_size == 1 ? load<int8_t>(a) : src_size == 2 ? load<int16_t>(a)
                      : src_size == 4 ? load<int32_t>(a) : load<int64_t>(a);
    neg = x < 0;
    mag = neg ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
    re = static_cast<double>(x);
  } else if (src == 'u') {
    mag = src_size == 1 ? load<uint8_t>(a) : src_size == 2 ? load<uint16_t>(a)
          : src_size == 4 ? load<uint32_t>(a) : load<uint64_t>(a);
    re = static_cast<double>(mag);
  } else if (src == 'f') {
    re = src_size == 4 ? load<float>(a) : load<double>(a);
  } else {
    if (src_size == 8) {
      re = load<float>(a);
      float parts[2];
      std::memcpy(parts, a.data(), 8);
      im = parts[1];
    } else {
      double parts[2];
      std::memcpy(parts, a.data(), 16);
      re = parts[0];
      im = parts[1];
    }
  }
  if (dst == 'i' || dst == 'u') {
    const int bits = dst_size * 8;
    const std::string value = (neg ? "-" : "") + std::to_string(mag);
    if (dst == 'i') {
      const uint64_t hi = (bits == 64 ? ~0ull >> 1 : (1ull << (bits - 1)) - 1);
      if ((!neg && mag > hi) || (neg && mag > hi + 1)) {
        why = "its value " + value + " does not fit in " + npz::dtype_info(s.dtype).name;
        return false;
      }
      const int64_t x = neg ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
      std::memcpy(v.scalar.bytes, &x, static_cast<size_t>(dst_size));  // little-endian: the low bytes
    } else {
      if (neg || (bits < 64 && mag > (1ull << bits) - 1)) {
        why = "its value " + value + " does not fit in " + npz::dtype_info(s.dtype).name;
        return false;
      }
      std::memcpy(v.scalar.bytes, &mag, static_cast<size_t>(dst_size));
    }
  } else if (dst == 'f') {
    if (dst_size == 4) {
      const float f = static_cast<float>(re);
      std::memcpy(v.scalar.bytes, &f, 4);
    } else {
      std::memcpy(v.scalar.bytes, &re, 8);
    }
  } else {
    if (dst_size == 8) {
      const float parts[2] = {static_cast<float>(re), static_cast<float>(im)};
      std::memcpy(v.scalar.bytes, parts, 8);
    } else {
      const double parts[2] = {re, im};
      std::memcpy(v.scalar.bytes, parts, 16);
    }
  }
  return true;
}

inline void default_scalar(const Slot& s, ep_value& v) {
  v.kind = EP_KIND_SCALAR;
  v.dtype = s.dtype;
  std::memset(v.scalar.bytes, 0, sizeof v.scalar.bytes);
  const auto& info = npz::dtype_info(s.dtype);
  const size_t n = static_cast<size_t>(info.itemsize);
  if (info.kind == 'b') {
    v.scalar.bytes[0] = s.def_i != 0;
  } else if (info.kind == 'i') {
    std::memcpy(v.scalar.bytes, &s.def_i, n);
  } else if (info.kind == 'u') {
    std::memcpy(v.scalar.bytes, &s.def_u, n);
  } else if (info.kind == 'f') {
    if (n == 4) {
      const float f = static_cast<float>(s.def_re);
      std::memcpy(v.scalar.bytes, &f, 4);
    } else {
      std::memcpy(v.scalar.bytes, &s.def_re, 8);
    }
  } else if (n == 8) {
    const float parts[2] = {static_cast<float>(s.def_re), static_cast<float>(s.def_im)};
    std::memcpy(v.scalar.bytes, parts, 8);
  } else {
    const double parts[2] = {s.def_re, s.def_im};
    std::memcpy(v.scalar.bytes, parts, 16);
  }
}

}  // namespace detail

// Fills args (one per slot) from the archive's entries and the defaults; "" or the error.
inline std::string bind_inputs(const Program& p, const std::vector<npz::Entry>& entries, const std::string& inputs,
                               std::vector<ep_value>& args) {
  using namespace detail;
  std::vector<const npz::Array*> given(static_cast<size_t>(p.nargs), nullptr);
  for (const npz::Entry& e : entries) {
    int32_t slot = -1;
    for (int32_t k = 0; k < p.nargs; ++k)
      if (e.key == p.args[k].key) slot = k;
    if (slot < 0) {
      std::string known;
      for (int32_t k = 0; k < p.nargs; ++k) known += (k ? ", " : "") + std::string(p.args[k].key);
      return inputs + ": unknown input '" + e.key + "' (" + p.name + " takes " +
             (known.empty() ? "no inputs" : known) + ")";
    }
    given[static_cast<size_t>(slot)] = &e.array;
  }
  for (auto& v : args) std::memset(&v, 0, sizeof v);
  for (int32_t k = 0; k < p.nparams; ++k) {
    const Param& pr = p.params[k];
    int32_t present = 0;
    for (int32_t s = pr.first; s < pr.first + pr.count; ++s) present += given[static_cast<size_t>(s)] != nullptr;
    if (present == 0 && pr.has_default) {
      for (int32_t s = pr.first; s < pr.first + pr.count; ++s) default_scalar(p.args[s], args[static_cast<size_t>(s)]);
      continue;
    }
    for (int32_t s = pr.first; s < pr.first + pr.count; ++s) {
      const Slot& sl = p.args[s];
      const npz::Array* a = given[static_cast<size_t>(s)];
      const std::string who = std::string("parameter '") + pr.name + "'" +
                              (pr.count > 1 || std::strcmp(sl.key, pr.name) != 0 ? std::string(" item ") + sl.label : "");
      if (a == nullptr) {
        if (present > 0)
          return who + ": missing input '" + sl.key + "' (give every item of '" + pr.name + "': " + pr.keys +
                 (pr.has_default ? ", or none for its default)" : ")");
        return "missing input '" + std::string(sl.key) + "' for " + who + ": expected " + sl.expected;
      }
      ep_value& v = args[static_cast<size_t>(s)];
      if (sl.kind == EP_KIND_SCALAR) {
        std::string why;
        if (a->ndim != 0 || !to_scalar(sl, *a, v, why))
          return who + " (input '" + sl.key + "'): expected " + sl.expected + ", got " + got_text(*a) +
                 (why.empty() ? "" : " (" + why + ")");
      } else {
        if (a->dtype != sl.dtype || a->ndim != sl.ndim)
          return who + " (input '" + sl.key + "'): expected " + sl.expected + ", got " + got_text(*a);
        v.kind = EP_KIND_ARRAY;
        v.dtype = sl.dtype;
        v.ndim = sl.ndim;
        for (int d = 0; d < sl.ndim; ++d) {
          v.shape[d] = a->shape[d];
          v.strides[d] = a->strides[d];
        }
        v.data = a->data();
      }
    }
  }
  return "";
}

}  // namespace ep::standalone
