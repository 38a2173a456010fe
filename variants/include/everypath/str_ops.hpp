// Python str operations and methods with CPython's results and errors (variants/ops/strings.py
// types and lowers the calls). Character classes and case mappings come from CPython's own
// unicodedata (str_unicode.hpp); under a Python of another Unicode version (Full = false) only
// ASCII and Latin-1 are answered, and other text raises NotImplementedError, never a wrong answer.
#pragma once

#include <charconv>
#include <cstdint>
#include <string>

#include "format.hpp"
#include "str.hpp"
#include "str_unicode.hpp"

namespace ep {
namespace strx {

[[noreturn]] inline void beyond_latin1(const char* what) {
  raise("NotImplementedError", std::string(what) +
                                   " of text beyond Latin-1 (code points above U+00FF) is not supported by compiled "
                                   "code here (docs/semantics.md, Strings)");
}

// str.isspace() of one code point: CPython's whitespace (bidi WS/B/S or category Zs).
inline bool is_space(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F);
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

template <size_t N>
bool in_ranges(const unicode::CodeRange (&t)[N], char32_t c) {
  size_t lo = 0, hi = N;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (t[mid].hi < c) lo = mid + 1; else hi = mid;
  }
  return lo < N && t[lo].lo <= c;
}

template <size_t N>
const unicode::CaseMap* find_map(const unicode::CaseMap (&t)[N], char32_t c) {
  size_t lo = 0, hi = N;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (t[mid].cp < c) lo = mid + 1; else hi = mid;
  }
  return lo < N && t[lo].cp == c ? &t[lo] : nullptr;
}

// Full: the tables are this Python's Unicode version (else ASCII and Latin-1 only, which never change).
template <bool Full>
bool is_alpha(char32_t c, const char* what) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  if (!Full && c > 0xFF) beyond_latin1(what);
  return in_ranges(unicode::alpha, c);
}
template <bool Full>
bool is_digit(char32_t c, const char* what) {
  if (c < 0x80) return c >= '0' && c <= '9';
  if (!Full && c > 0xFF) beyond_latin1(what);
  return in_ranges(unicode::digit, c);
}
template <bool Full>
bool is_alnum(char32_t c, const char* what) {  // isalpha or isdecimal or isdigit or isnumeric
  if (c < 0x80) return is_alpha<Full>(c, what) || is_digit<Full>(c, what);
  if (!Full && c > 0xFF) beyond_latin1(what);
  return in_ranges(unicode::alpha, c) || in_ranges(unicode::numeric, c);
}

template <class P>
bool all_of(const Str& s, P pred) {
  if (s.size() == 0) return false;
  const std::string_view v = s.view();
  for (size_t p = 0; p < v.size();) {
    if (!pred(Str::decode(v, p))) return false;
  }
  return true;
}

template <bool Full, bool Upper>
Str convert_case(const Str& s, const char* what) {
  std::string out;
  out.reserve(s.bytes().size());
  if (s.ascii()) {
    for (char c : s.bytes()) {
      if (Upper) out += c >= 'a' && c <= 'z' ? static_cast<char>(c - 32) : c;
      else out += c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
    }
    return Str(std::move(out), s.size(), true);
  }
  const char32_t* pool = Upper ? unicode::upper_pool : unicode::lower_pool;
  const std::string_view v = s.view();
  for (size_t p = 0; p < v.size();) {
    const char32_t c = Str::decode(v, p);
    if (!Full && c > 0xFF) beyond_latin1(what);
    // CPython lowers a capital sigma by its context (final sigma): not reproduced here
    if (c == 0x3A3 && !Upper) raise("NotImplementedError", std::string(what) + " of text with 'Σ' is not supported in compiled code");
    const unicode::CaseMap* m = nullptr;
    if constexpr (Upper) m = find_map(unicode::upper, c); else m = find_map(unicode::lower, c);
    if (m != nullptr) {
      for (unsigned k = 0; k < m->n; ++k) Str::encode(pool[m->at + k], out);
    } else {
      Str::encode(c, out);
    }
  }
  return Str(std::move(out));
}

}  // namespace strx

template <bool Full = true>
bool str_isspace(const Str& s) { return strx::all_of(s, strx::is_space); }
template <bool Full = true>
bool str_isalpha(const Str& s) {
  return strx::all_of(s, [](char32_t c) { return strx::is_alpha<Full>(c, "str.isalpha()"); });
}
template <bool Full = true>
bool str_isdigit(const Str& s) {
  return strx::all_of(s, [](char32_t c) { return strx::is_digit<Full>(c, "str.isdigit()"); });
}
template <bool Full = true>
bool str_isalnum(const Str& s) {
  return strx::all_of(s, [](char32_t c) { return strx::is_alnum<Full>(c, "str.isalnum()"); });
}
// str.isupper() / str.islower(): no cased character of the other case and at least one of this case (CPython's
// rule). The case properties are exact for Latin-1 (checked against CPython for all 256); beyond it no table
// is generated yet, so those raise NotImplementedError instead of guessing.
namespace strx {
inline bool latin1_lower(char32_t c) {
  return (c >= 'a' && c <= 'z') || c == 0xAA || c == 0xB5 || c == 0xBA || (c >= 0xDF && c <= 0xFF && c != 0xF7);
}
inline bool latin1_upper(char32_t c) { return (c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7); }
template <bool Upper>
bool is_cased_as(const Str& s, const char* what) {
  bool cased = false;
  const std::string_view v = s.view();
  for (size_t p = 0; p < v.size();) {
    const char32_t c = Str::decode(v, p);
    if (c > 0xFF) beyond_latin1(what);
    if (Upper ? latin1_lower(c) : latin1_upper(c)) return false;
    cased = cased || (Upper ? latin1_upper(c) : latin1_lower(c));
  }
  return cased;
}
}  // namespace strx
template <bool Full = true>
bool str_isupper(const Str& s) { return strx::is_cased_as<true>(s, "str.isupper()"); }
template <bool Full = true>
bool str_islower(const Str& s) { return strx::is_cased_as<false>(s, "str.islower()"); }
template <bool Full = true>
bool str_isascii(const Str& s) {  // the flag is "known ASCII" (a piece of other text may not carry it): check bytes
  if (s.ascii()) return true;
  for (unsigned char c : s.bytes()) if (c >= 0x80) return false;
  return true;
}
template <bool Full = true>
Str str_lower(const Str& s) { return strx::convert_case<Full, false>(s, "str.lower()"); }
template <bool Full = true>
Str str_upper(const Str& s) { return strx::convert_case<Full, true>(s, "str.upper()"); }

// repr(s) as CPython writes it: the quote it picks, escapes for what is not printable.
template <bool Full = true>
std::string str_repr(const Str& s) {
  const std::string_view v = s.view();
  const char q = (v.find('\'') != std::string_view::npos && v.find('"') == std::string_view::npos) ? '"' : '\'';
  std::string o(1, q);
  const char* hex = "0123456789abcdef";
  for (size_t p = 0; p < v.size();) {
    const size_t a = p;
    const char32_t c = Str::decode(v, p);
    if (c == '\\' || c == static_cast<char32_t>(q)) { o += '\\'; o += static_cast<char>(c); continue; }
    if (c == '\n') { o += "\\n"; continue; }
    if (c == '\t') { o += "\\t"; continue; }
    if (c == '\r') { o += "\\r"; continue; }
    bool printable = c >= 0x20 && c != 0x7F;
    if (c >= 0x80) {
      if (!Full && c > 0xFF) strx::beyond_latin1("repr()");
      printable = !strx::in_ranges(unicode::unprintable, c);
    }
    if (printable) { o.append(v.substr(a, p - a)); continue; }
    const int digits = c < 0x100 ? 2 : c < 0x10000 ? 4 : 8;
    o += '\\';
    o += digits == 2 ? 'x' : digits == 4 ? 'u' : 'U';
    for (int k = digits - 1; k >= 0; --k) o += hex[(c >> (4 * k)) & 15];
  }
  return o + q;
}

inline index_t str_len(const Str& s) { return s.size(); }
inline bool str_truthy(const Str& s) { return !s.bytes().empty(); }

// ---- indexing, slicing, repetition, membership ------------------------------------------
template <class I>
Str str_getitem(const Str& s, I idx) {
  index_t i = static_cast<index_t>(idx);
  const index_t n = s.size();
  if (i < 0) i += n;
  if (i < 0 || i >= n) raise("IndexError", "string index out of range");
  return s.at(i);
}

inline Str str_slice(const Str& s, const Slice& sl) {
  index_t start = 0;
  const index_t len = adjust(sl, s.size(), start);
  if (sl.step == 1) return s.sub(start, start + len);
  std::string out;
  bool ascii = true;
  for (index_t k = 0; k < len; ++k) {
    const index_t i = start + k * sl.step, a = s.offset(i), e = s.offset(i + 1);
    out.append(s.bytes(), static_cast<size_t>(a), static_cast<size_t>(e - a));
    ascii &= e - a == 1;
  }
  return Str(std::move(out), len, ascii);
}

template <class I>
Str str_repeat(const Str& s, I times) {
  const index_t n = static_cast<index_t>(times);
  if (n <= 0 || s.size() == 0) return Str();
  std::string out;
  out.reserve(s.bytes().size() * static_cast<size_t>(n));
  for (index_t k = 0; k < n; ++k) out += s.bytes();
  return Str(std::move(out), s.size() * n, s.ascii());
}

namespace strx {
inline const std::string& bytes_of(const Str& s) { return s.bytes(); }
inline const std::string& bytes_of(const std::string& s) { return s; }
}  // namespace strx

// needle in hay; either may be a constant (a std::string), taken as it is
template <class H, class N>
bool str_contains(const H& hay, const N& needle) {
  const std::string_view h = strx::bytes_of(hay), x = strx::bytes_of(needle);
  if (x.size() == 1) return h.find(x[0]) != std::string_view::npos;  // ch in "aeiou": one memchr
  return h.find(x) != std::string_view::npos;
}

// ---- conversions ------------------------------------------------------------------------
template <class I>
Str str_chr(I code) {
  const int64_t c = static_cast<int64_t>(code);
  if (c < 0 || c > 0x10FFFF) raise("ValueError", "chr() arg not in range(0x110000)");
  if (c >= 0xD800 && c <= 0xDFFF) raise("NotImplementedError", "chr() of a surrogate is not supported in compiled code");
  std::string out;
  Str::encode(static_cast<char32_t>(c), out);
  return Str(std::move(out), 1, c < 0x80);
}

inline int64_t str_ord(const Str& s) {
  if (s.size() != 1) {
    raise("TypeError", "ord() expected a character, but string of length " + std::to_string(s.size()) + " found");
  }
  size_t p = 0;
  return static_cast<int64_t>(Str::decode(s.view(), p));
}

namespace strx {
// The value of a decimal digit (str.isdecimal(): Unicode category Nd), or -1. Unicode keeps every decimal digit in
// a run of ten from 0 to 9 (variants/unicode_tables.py checks it), so a digit's value is its offset in its range.
inline int decimal_value(char32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9' ? static_cast<int>(c - '0') : -1;
  const auto& t = unicode::decimal;
  size_t lo = 0, hi = sizeof(t) / sizeof(t[0]);
  const size_t n = hi;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (t[mid].hi < c) lo = mid + 1; else hi = mid;
  }
  return lo < n && t[lo].lo <= c ? static_cast<int>((c - t[lo].lo) % 10) : -1;
}

inline bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// The ASCII text int() and float() parse, prepared as CPython does (_PyUnicode_TransformDecimalAndSpaceToASCII):
// ASCII kept, other whitespace a ' ', a decimal digit of any script its ASCII digit ('١٢' and '１２' are 12),
// anything else beyond ASCII a '?' (never valid); then ASCII whitespace stripped at both ends (so '\x1c5', which
// str.strip() would strip, stays invalid, as in CPython).
template <bool Full>
std::string number_text(const Str& s, const char* what) {
  std::string out;
  const std::string_view v = s.view();
  if (s.ascii()) {
    out.assign(v);
  } else {
    out.reserve(v.size());
    for (size_t p = 0; p < v.size();) {
      const char32_t c = Str::decode(v, p);
      if (c < 0x7F) { out += static_cast<char>(c); continue; }
      if (is_space(c)) { out += ' '; continue; }
      if (!Full && c > 0xFF) beyond_latin1(what);  // Latin-1 has no decimal digit beyond ASCII
      const int d = decimal_value(c);
      out += d >= 0 ? static_cast<char>('0' + d) : '?';
    }
  }
  size_t b = 0, e = out.size();
  while (b < e && ascii_space(out[b])) ++b;
  while (e > b && ascii_space(out[e - 1])) --e;
  return out.substr(b, e - b);
}

// repr(s) cut to its first `limit` code points, as CPython's "%.200R" in int()'s message does.
template <bool Full>
std::string repr_prefix(const Str& s, index_t limit) {
  const std::string r = str_repr<Full>(s);
  const std::string_view v = r;
  size_t p = 0;
  for (index_t k = 0; k < limit && p < v.size(); ++k) Str::decode(v, p);
  return r.substr(0, p);
}

// Digits with single underscores between them (PEP 515) copied into out; false if malformed.
inline bool digits_into(std::string_view v, size_t& p, std::string& out) {
  const size_t start = p;
  while (p < v.size()) {
    if (v[p] >= '0' && v[p] <= '9') out += v[p++];
    else if (v[p] == '_' && p > start && p + 1 < v.size() && v[p + 1] >= '0' && v[p + 1] <= '9' && v[p - 1] != '_') ++p;
    else break;
  }
  return p > start;
}
}  // namespace strx

template <bool Full = true>
int64_t str_to_int(const Str& s) {
  const std::string text = strx::number_text<Full>(s, "int()");
  const std::string_view v = text;
  size_t p = 0;
  std::string digits;
  if (p < v.size() && (v[p] == '+' || v[p] == '-')) digits += v[p++];
  const bool ok = strx::digits_into(v, p, digits) && p == v.size();
  if (!ok) raise("ValueError", "invalid literal for int() with base 10: " + strx::repr_prefix<Full>(s, 200));
  int64_t out = 0;
  const char* first = digits.data() + (digits[0] == '+');
  auto r = std::from_chars(first, digits.data() + digits.size(), out);
  if (r.ec != std::errc()) raise("OverflowError", "int() of " + str_repr<Full>(s) + " does not fit in 64 bits");
  return out;
}

template <bool Full = true>
double str_to_float(const Str& s) {
  const std::string text = strx::number_text<Full>(s, "float()");
  const std::string_view v = text;
  auto fail = [&]() { raise("ValueError", "could not convert string to float: " + str_repr<Full>(s)); };
  size_t p = 0;
  std::string t;
  if (p < v.size() && (v[p] == '+' || v[p] == '-')) t += v[p++];
  std::string rest;
  for (size_t k = p; k < v.size(); ++k) rest += static_cast<char>(v[k] >= 'A' && v[k] <= 'Z' ? v[k] + 32 : v[k]);
  if (rest == "inf" || rest == "infinity" || rest == "nan") {
    const double x = rest == "nan" ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
    return t == "-" ? -x : x;
  }
  const bool int_part = strx::digits_into(v, p, t);
  bool frac_part = false;
  if (p < v.size() && v[p] == '.') {
    t += v[p++];
    frac_part = strx::digits_into(v, p, t);
  }
  if (!int_part && !frac_part) fail();
  if (p < v.size() && (v[p] == 'e' || v[p] == 'E')) {
    t += v[p++];
    if (p < v.size() && (v[p] == '+' || v[p] == '-')) t += v[p++];
    if (!strx::digits_into(v, p, t)) fail();
  }
  if (p != v.size()) fail();
  double out = 0;
  const char* first = t.data() + (t[0] == '+');
  auto r = std::from_chars(first, t.data() + t.size(), out);
  if (r.ec == std::errc::result_out_of_range) {  // from_chars refuses what CPython rounds to inf or 0
    out = std::strtod(std::string(first, static_cast<size_t>(t.data() + t.size() - first)).c_str(), nullptr);
  }
  return out;
}

}  // namespace ep
