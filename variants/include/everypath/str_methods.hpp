// str methods with CPython's results: split/join, strip, replace, startswith/endswith, find/rfind/
// index/count (code-point positions, slice-like start/end). Searching works on the UTF-8 bytes,
// which is exact because UTF-8 never matches inside another code point.
#pragma once

#include <string>
#include <tuple>

#include "str_ops.hpp"

namespace ep {

namespace strx {
inline index_t norm_end(index_t i, index_t n) {  // CPython's ADJUST_INDICES
  if (i < 0) i = std::max<index_t>(i + n, 0);
  return std::min(i, n);
}
template <class S, class E>
void bounds(const Str& s, S start, E end, index_t& b, index_t& e) {
  const index_t n = s.size();
  if constexpr (std::is_same_v<S, None>) b = 0; else b = static_cast<index_t>(start);
  if constexpr (std::is_same_v<E, None>) e = n; else e = static_cast<index_t>(end);
  if (b < 0) b = std::max<index_t>(b + n, 0);
  e = norm_end(e, n);
}
// bytes [a, e) of s as a new str (a piece of ASCII text is ASCII: nothing to scan)
inline Str piece(const Str& s, size_t a, size_t e) {
  std::string b(s.view().substr(a, e - a));
  if (s.ascii()) {
    const index_t n = static_cast<index_t>(b.size());
    return Str(std::move(b), n, true);
  }
  return Str(std::move(b));
}
}  // namespace strx

template <class S = None, class E = None>
index_t str_find(const Str& s, const Str& sub, S start = {}, E end = {}) {
  index_t b, e;
  strx::bounds(s, start, end, b, e);
  if (b > s.size() || e - b < sub.size()) return -1;
  const size_t ob = static_cast<size_t>(s.offset(b)), oe = static_cast<size_t>(s.offset(e));
  const size_t p = std::string_view(s.bytes()).substr(0, oe).find(sub.view(), ob);
  return p == std::string::npos ? -1 : s.index_of(p);
}

template <class S = None, class E = None>
index_t str_rfind(const Str& s, const Str& sub, S start = {}, E end = {}) {
  index_t b, e;
  strx::bounds(s, start, end, b, e);
  if (b > s.size() || e - b < sub.size()) return -1;
  const size_t ob = static_cast<size_t>(s.offset(b)), oe = static_cast<size_t>(s.offset(e));
  const size_t p = std::string_view(s.bytes()).substr(0, oe).rfind(sub.view());
  return p == std::string::npos || p < ob ? -1 : s.index_of(p);
}

template <class S = None, class E = None>
index_t str_index(const Str& s, const Str& sub, S start = {}, E end = {}) {
  const index_t i = str_find(s, sub, start, end);
  if (i < 0) raise("ValueError", "substring not found");
  return i;
}

template <class S = None, class E = None>
index_t str_rindex(const Str& s, const Str& sub, S start = {}, E end = {}) {
  const index_t i = str_rfind(s, sub, start, end);
  if (i < 0) raise("ValueError", "substring not found");
  return i;
}

template <class S = None, class E = None>
index_t str_count(const Str& s, const Str& sub, S start = {}, E end = {}) {
  index_t b, e;
  strx::bounds(s, start, end, b, e);
  if (b > s.size() || e < b) return 0;
  if (sub.size() == 0) return e - b + 1;
  const std::string_view v = std::string_view(s.bytes()).substr(0, static_cast<size_t>(s.offset(e)));
  index_t n = 0;
  for (size_t p = v.find(sub.view(), static_cast<size_t>(s.offset(b))); p != std::string::npos;
       p = v.find(sub.view(), p + sub.bytes().size())) {
    ++n;
  }
  return n;
}

inline bool str_startswith(const Str& s, const Str& prefix) { return s.view().substr(0, prefix.view().size()) == prefix.view(); }
inline bool str_endswith(const Str& s, const Str& suffix) {
  return s.view().size() >= suffix.view().size() && s.view().substr(s.view().size() - suffix.view().size()) == suffix.view();
}
template <class... T>
bool str_startswith(const Str& s, const std::tuple<T...>& prefixes) {
  return std::apply([&](const auto&... p) { return (str_startswith(s, p) || ...); }, prefixes);
}
template <class... T>
bool str_endswith(const Str& s, const std::tuple<T...>& suffixes) {
  return std::apply([&](const auto&... p) { return (str_endswith(s, p) || ...); }, suffixes);
}

template <class L>
bool str_in_list(const L& items, const Str& x) {
  for (index_t i = 0; i < items.size(); ++i) {
    if (items[i] == x) return true;
  }
  return false;
}
template <class... T>
bool str_in_tuple(const std::tuple<T...>& items, const Str& x) {
  return std::apply([&](const auto&... it) { return ((it == x) || ...); }, items);
}

// ---- split / join ---------------------------------------------------------------------
template <class M = int64_t>
List<Str> str_split_ws(const Str& s, M maxsplit = -1) {
  List<Str> out;
  const std::string_view v = s.view();
  index_t left = static_cast<index_t>(maxsplit);
  if (s.ascii() && left < 0) {  // one counting pass first: the list is allocated once
    size_t words = 0;
    bool in_word = false;
    for (unsigned char c : v) {
      const bool sp = strx::is_space(c);
      words += !sp && !in_word;
      in_word = !sp;
    }
    out.items->reserve(words);
  }
  size_t p = 0;
  auto skip_space = [&] {
    while (p < v.size()) {
      size_t q = p;
      if (!strx::is_space(Str::decode(v, q))) break;
      p = q;
    }
  };
  skip_space();
  while (p < v.size()) {
    if (left == 0) {  // the rest, trailing whitespace kept, as CPython does
      out.append(strx::piece(s, p, v.size()));
      break;
    }
    const size_t a = p;
    size_t e = p;
    while (p < v.size()) {
      size_t q = p;
      if (strx::is_space(Str::decode(v, q))) break;
      p = q;
    }
    e = p;
    out.append(strx::piece(s, a, e));
    if (left > 0) --left;
    skip_space();
  }
  return out;
}

template <class M = int64_t>
List<Str> str_split(const Str& s, const Str& sep, M maxsplit = -1) {
  if (sep.bytes().empty()) raise("ValueError", "empty separator");
  List<Str> out;
  const std::string_view v = s.view(), d = sep.view();
  index_t left = static_cast<index_t>(maxsplit);
  if (left < 0) {  // one counting pass first: the list is allocated once
    size_t n = 1;
    for (size_t p = v.find(d); p != std::string::npos; p = v.find(d, p + d.size())) ++n;
    out.items->reserve(n);
  }
  size_t a = 0;
  for (size_t p = v.find(d); p != std::string::npos && left != 0; p = v.find(d, a)) {
    out.append(strx::piece(s, a, p));
    a = p + d.size();
    if (left > 0) --left;
  }
  out.append(strx::piece(s, a, v.size()));
  return out;
}

// str.rsplit: the same pieces as split when maxsplit does not stop it, else the splits made from the right.
template <class M = int64_t>
List<Str> str_rsplit(const Str& s, const Str& sep, M maxsplit = -1) {
  if (sep.bytes().empty()) raise("ValueError", "empty separator");
  if (static_cast<index_t>(maxsplit) < 0) return str_split(s, sep);
  const std::string_view v = s.view(), d = sep.view();
  std::vector<Str> rev;
  index_t left = static_cast<index_t>(maxsplit);
  size_t e = v.size();
  while (left != 0 && e >= d.size()) {
    const size_t p = v.substr(0, e).rfind(d);
    if (p == std::string_view::npos) break;
    rev.push_back(strx::piece(s, p + d.size(), e));
    e = p;
    --left;
  }
  List<Str> out;
  out.append(strx::piece(s, 0, e));
  for (size_t k = rev.size(); k-- > 0;) out.append(rev[k]);
  return out;
}

template <class M = int64_t>
List<Str> str_rsplit_ws(const Str& s, M maxsplit = -1) {
  if (static_cast<index_t>(maxsplit) < 0) return str_split_ws(s);
  const std::string_view v = s.view();
  index_t left = static_cast<index_t>(maxsplit);
  auto space_before = [&](size_t e, size_t& start) {  // the code point ending at byte e
    size_t q = e - 1;
    while (q > 0 && (static_cast<unsigned char>(v[q]) & 0xC0) == 0x80) --q;
    start = q;
    size_t p = q;
    return strx::is_space(Str::decode(v, p));
  };
  std::vector<Str> rev;
  size_t e = v.size(), q = 0;
  while (e > 0 && space_before(e, q)) e = q;
  while (e > 0) {
    if (left == 0) {  // the rest, leading whitespace kept
      rev.push_back(strx::piece(s, 0, e));
      break;
    }
    size_t b = e;
    while (b > 0 && !space_before(b, q)) b = q;
    rev.push_back(strx::piece(s, b, e));
    --left;
    e = b;
    while (e > 0 && space_before(e, q)) e = q;
  }
  List<Str> out;
  for (size_t k = rev.size(); k-- > 0;) out.append(rev[k]);
  return out;
}

// str.splitlines([keepends]): CPython's line boundaries (\n \r \r\n \v \f \x1c-\x1e \x85 U+2028 U+2029).
template <class K = bool>
List<Str> str_splitlines(const Str& s, K keepends = false) {
  List<Str> out;
  const std::string_view v = s.view();
  size_t start = 0;
  for (size_t p = 0; p < v.size();) {
    const size_t at = p;
    const char32_t c = Str::decode(v, p);
    const bool brk = c == '\n' || c == '\r' || c == 0x0B || c == 0x0C || (c >= 0x1C && c <= 0x1E) || c == 0x85 ||
                     c == 0x2028 || c == 0x2029;
    if (!brk) continue;
    if (c == '\r' && p < v.size() && v[p] == '\n') ++p;
    out.append(Str(std::string(v.substr(start, (static_cast<bool>(keepends) ? p : at) - start))));
    start = p;
  }
  if (start < v.size()) out.append(Str(std::string(v.substr(start))));
  return out;
}

template <class L>
Str str_join(const Str& sep, const L& items) {
  std::string out;
  index_t n = 0;
  bool ascii = sep.ascii();
  for (index_t i = 0; i < items.size(); ++i) {
    if (i) out += sep.bytes();
    const Str& it = items[i];
    out += it.bytes();
    n += it.size();
    ascii &= it.ascii();
  }
  if (items.size() > 1) n += sep.size() * (items.size() - 1);
  return Str(std::move(out), n, ascii);
}

template <class... T>
Str str_join(const Str& sep, const std::tuple<T...>& items) {
  List<Str> l;
  std::apply([&](const auto&... it) { (l.append(Str(it)), ...); }, items);
  return str_join(sep, l);
}

// ---- strip / replace --------------------------------------------------------------------
// which: 1 left, 2 right, 3 both. chars: None (whitespace) or a Str of code points to remove.
template <class C>
Str str_strip(const Str& s, int which, const C& chars) {
  std::u32string set;    // the chars to remove beyond ASCII
  uint64_t low[2] = {};  // and the ASCII ones, as a bitmap: no search per character
  if constexpr (!std::is_same_v<C, None>) {
    const std::string_view cv = strx::bytes_of(chars);
    for (size_t p = 0; p < cv.size();) {
      const char32_t c = Str::decode(cv, p);
      if (c < 0x80) low[c >> 6] |= uint64_t(1) << (c & 63);
      else set += c;
    }
  }
  auto drop = [&](char32_t c) {
    if constexpr (std::is_same_v<C, None>) return strx::is_space(c);
    else if (c < 0x80) return ((low[c >> 6] >> (c & 63)) & 1) != 0;
    else return set.find(c) != std::u32string::npos;
  };
  const std::string_view v = s.view();
  size_t b = 0, e = v.size();
  if (which & 1) {
    while (b < e) {
      size_t p = b;
      if (!drop(Str::decode(v, p))) break;
      b = p;
    }
  }
  if (which & 2) {
    while (e > b) {
      size_t q = e - 1;
      while (q > b && (static_cast<unsigned char>(v[q]) & 0xC0) == 0x80) --q;
      size_t p = q;
      if (!drop(Str::decode(v, p))) break;
      e = q;
    }
  }
  return strx::piece(s, b, e);
}

template <class N = int64_t>
Str str_replace(const Str& s, const Str& old, const Str& repl, N count = -1) {
  index_t left = static_cast<index_t>(count);
  const std::string_view v = s.view(), o = old.view();
  std::string out;
  if (o.empty()) {  // the replacement goes before every code point and at the end
    size_t p = 0;
    while (p < v.size()) {
      if (left != 0) { out += repl.bytes(); if (left > 0) --left; }
      const size_t a = p;
      Str::decode(v, p);
      out.append(v.substr(a, p - a));
    }
    if (left != 0) out += repl.bytes();
    return Str(std::move(out));
  }
  size_t a = 0;
  for (size_t p = v.find(o); p != std::string::npos && left != 0; p = v.find(o, a)) {
    out.append(v.substr(a, p - a));
    out += repl.bytes();
    a = p + o.size();
    if (left > 0) --left;
  }
  out.append(v.substr(a));
  return Str(std::move(out));
}

// ---- padding and partition ------------------------------------------------------------
// which: 0 ljust, 1 rjust, 2 center (CPython's split of an odd margin, not format()'s)
template <class W, class F = None>
Str str_pad(const Str& s, W width_, int which, const F& fill = {}) {
  std::string f = " ";
  if constexpr (!std::is_same_v<F, None>) {
    const Str fs(fill);
    if (fs.size() != 1) raise("TypeError", "The fill character must be exactly one character long");
    f = fs.bytes();
  }
  const index_t width = static_cast<index_t>(width_), marg = width - s.size();
  if (marg <= 0) return s;
  const index_t left = which == 0 ? 0 : which == 1 ? marg : marg / 2 + (marg & width & 1);
  std::string out;
  for (index_t k = 0; k < left; ++k) out += f;
  out += s.bytes();
  for (index_t k = left; k < marg; ++k) out += f;
  return Str(std::move(out), width, s.ascii() && f.size() == 1);
}

template <class W>
Str str_zfill(const Str& s, W width_) {
  const index_t width = static_cast<index_t>(width_), marg = width - s.size();
  if (marg <= 0) return s;
  const std::string& b = s.bytes();
  const size_t sign = !b.empty() && (b[0] == '+' || b[0] == '-') ? 1 : 0;
  std::string out = b.substr(0, sign) + std::string(static_cast<size_t>(marg), '0') + b.substr(sign);
  return Str(std::move(out), width, s.ascii());
}

inline std::tuple<Str, Str, Str> str_partition(const Str& s, const Str& sep, bool from_right) {
  if (sep.bytes().empty()) raise("ValueError", "empty separator");
  const std::string_view v = s.view();
  const size_t p = from_right ? v.rfind(sep.view()) : v.find(sep.view());
  if (p == std::string_view::npos) return from_right ? std::make_tuple(Str(), Str(), s) : std::make_tuple(s, Str(), Str());
  return {strx::piece(s, 0, p), sep, strx::piece(s, p + sep.view().size(), v.size())};
}

}  // namespace ep
