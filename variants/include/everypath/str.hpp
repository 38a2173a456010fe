// Python str in compiled code: UTF-8 bytes plus what indexing needs (the code-point count and
// whether every byte is ASCII, both known when the value is made), so ASCII text indexes and
// slices in O(1) and other text through a table of code-point offsets built on first use.
// Operations and methods: str_ops.hpp; format specs: str_format.hpp; crossing the C ABI: below.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "abi.h"
#include "array.hpp"
#include "index.hpp"

namespace ep {

class Str {
 public:
  Str() = default;
  Str(std::string bytes) : b_(std::move(bytes)) { scan(); }  // NOLINT: f-strings and literals are std::string
  Str(const char* p, size_t n) : b_(p, n) { scan(); }
  Str(const char* p) : b_(p) { scan(); }  // NOLINT
  // Bytes whose length and ASCII-ness the caller knows (CPython told us, or a substring of ASCII).
  Str(std::string bytes, index_t ncp, bool ascii) : b_(std::move(bytes)), n_(ncp), ascii_(ascii) {}

  const std::string& bytes() const { return b_; }
  operator const std::string&() const { return b_; }  // NOLINT: messages, format() take std::string
  std::string_view view() const { return b_; }
  index_t size() const { return n_; }  // code points: len(s)
  bool ascii() const { return ascii_; }

  // Byte offset of code point i (0 <= i <= size()).
  index_t offset(index_t i) const {
    if (ascii_) return i;
    if (!offs_) build_offsets();
    return (*offs_)[static_cast<size_t>(i)];
  }
  // Code points [i, j) as a new string.
  Str sub(index_t i, index_t j) const {
    if (j <= i) return Str();
    if (ascii_) return Str(b_.substr(static_cast<size_t>(i), static_cast<size_t>(j - i)), j - i, true);
    const index_t a = offset(i), e = offset(j);
    return Str(b_.substr(static_cast<size_t>(a), static_cast<size_t>(e - a)), j - i, false);
  }
  Str at(index_t i) const {  // s[i], already in range
    if (ascii_) return Str(std::string(1, b_[static_cast<size_t>(i)]), 1, true);
    return sub(i, i + 1);
  }
  explicit operator bool() const { return !b_.empty(); }
  // out += s of a local (lowering/emit.py): appended in place, so a loop building a string is linear.
  Str& operator+=(const Str& o) {
    const index_t n = o.n_;
    const bool ascii = o.ascii_;
    b_ += o.b_;  // o may be *this: std::string::append copes
    n_ += n;
    ascii_ = ascii_ && ascii;
    offs_.reset();
    return *this;
  }
  // The code point starting at byte p (valid UTF-8: CPython handed it over or we built it).
  static char32_t decode(std::string_view s, size_t& p) {
    const unsigned char c = static_cast<unsigned char>(s[p]);
    if (c < 0x80) { ++p; return c; }
    const int n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : 1;
    char32_t cp = c & (0x3F >> n);
    for (int k = 0; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[++p]) & 0x3F);
    ++p;
    return cp;
  }
  static void encode(char32_t cp, std::string& out) {
    if (cp < 0x80) { out += static_cast<char>(cp); return; }
    if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    }
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  // Code point index of byte offset p (p at a code point boundary).
  index_t index_of(size_t p) const {
    if (ascii_) return static_cast<index_t>(p);
    index_t n = 0;
    for (size_t k = 0; k < p; ++k) n += (static_cast<unsigned char>(b_[k]) & 0xC0) != 0x80;
    return n;
  }

 private:
  void scan() {
    index_t n = 0;
    bool ascii = true;
    for (unsigned char c : b_) {
      n += (c & 0xC0) != 0x80;
      ascii &= c < 0x80;
    }
    n_ = n;
    ascii_ = ascii;
  }
  void build_offsets() const {
    auto v = std::make_shared<std::vector<index_t>>();
    v->reserve(static_cast<size_t>(n_) + 1);
    for (size_t k = 0; k < b_.size(); ++k) {
      if ((static_cast<unsigned char>(b_[k]) & 0xC0) != 0x80) v->push_back(static_cast<index_t>(k));
    }
    v->push_back(static_cast<index_t>(b_.size()));
    offs_ = std::move(v);
  }

  std::string b_;
  index_t n_ = 0;
  bool ascii_ = true;
  mutable std::shared_ptr<const std::vector<index_t>> offs_;  // non-ASCII only, on first index
};

// UTF-8 byte order is code point order, which is how CPython compares str. Constants arrive as
// std::string (base/cpp.py): compared as they are, without making an ep::Str of them.
#define EP_STR_COMPARE(op)                                                                     \
  inline bool operator op(const Str& a, const Str& b) { return a.bytes() op b.bytes(); }       \
  inline bool operator op(const std::string& a, const Str& b) { return a op b.bytes(); }       \
  inline bool operator op(const Str& a, const std::string& b) { return a.bytes() op b; }
EP_STR_COMPARE(==)
EP_STR_COMPARE(!=)
EP_STR_COMPARE(<)
EP_STR_COMPARE(<=)
EP_STR_COMPARE(>)
EP_STR_COMPARE(>=)
#undef EP_STR_COMPARE
inline Str operator+(const Str& a, const Str& b) {
  return Str(a.bytes() + b.bytes(), a.size() + b.size(), a.ascii() && b.ascii());
}

inline std::string py_str(const Str& s) { return s.bytes(); }

// ---- crossing the C ABI (abi.h: EP_KIND_STR) ------------------------------------------------
inline Str arg_str(const ep_value& v) {
  return Str(std::string(static_cast<const char*>(v.data), static_cast<size_t>(v.shape[0])), v.shape[1],
             v.shape[2] != 0);
}

namespace detail {
inline void str_ref(ep_strref& r, const Str& s) {
  r.data = s.bytes().data();
  r.size = static_cast<int64_t>(s.bytes().size());
  r.length = s.size();
  r.ascii = s.ascii() ? 1 : 0;
  r.reserved = 0;
}
}  // namespace detail

// A str result: the bytes stay in a heap-held copy until the host calls ep_release(owner).
inline void put_str(ep_value& v, const Str& s) {
  auto keep = std::make_shared<Str>(s);
  v.kind = EP_KIND_STR;
  v.dtype = 0;
  v.ndim = 0;
  v.data = const_cast<char*>(keep->bytes().data());
  v.shape[0] = static_cast<int64_t>(keep->bytes().size());
  v.shape[1] = keep->size();
  v.shape[2] = keep->ascii() ? 1 : 0;
  v.owner = new std::shared_ptr<void>(std::move(keep));
}

// A list[str] result: ndim 1, data an array of shape[0] ep_strref, alive until ep_release(owner).
template <class L>
void put_str_list(ep_value& v, const L& l) {
  struct Held {
    L items;  // the list itself (shared storage): the function has returned, nothing changes it now
    std::vector<ep_strref> refs;
  };
  auto keep = std::make_shared<Held>(Held{l, {}});
  keep->refs.resize(static_cast<size_t>(l.size()));
  for (index_t i = 0; i < l.size(); ++i) detail::str_ref(keep->refs[static_cast<size_t>(i)], keep->items[i]);
  v.kind = EP_KIND_STR;
  v.dtype = 0;
  v.ndim = 1;
  v.shape[0] = static_cast<int64_t>(keep->refs.size());
  v.strides[0] = static_cast<int64_t>(sizeof(ep_strref));
  v.data = keep->refs.data();
  v.owner = new std::shared_ptr<void>(std::move(keep));
}

}  // namespace ep
