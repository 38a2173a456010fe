// f-string parts with a format spec (f"{x:>8.2f}"), as format(x, spec) writes them. The spec is
// parsed and checked at compile time (lowering/strformat.py), which passes its fields here:
// fill (UTF-8), align ('<' '>' '^' '='; already resolved), sign, alternate form, width,
// grouping (',' '_' or 0), precision (-1: none) and the presentation type (0: none).
#pragma once

#include <cstdio>
#include <string>

#include "format.hpp"
#include "str.hpp"

namespace ep {
namespace fmt {

inline std::string group(const std::string& digits, char sep, size_t every) {
  if (!sep || digits.size() <= every) return digits;
  std::string out;
  const size_t lead = digits.size() % every;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (i - lead) % every == 0 && i >= lead) out += sep;
    out += digits[i];
  }
  return out;
}

// sign and prefix ("-0x"), then the body; width counts code points.
inline std::string pad(const std::string& head, const std::string& body, index_t cps, const char* fill, char align,
                       index_t width) {
  const index_t have = static_cast<index_t>(head.size()) + cps;
  if (width <= have) return head + body;
  const index_t k = width - have;
  auto fills = [&](index_t n) {
    std::string f;
    for (index_t i = 0; i < n; ++i) f += fill;
    return f;
  };
  switch (align) {
    case '<': return head + body + fills(k);
    case '^': return fills(k / 2) + head + body + fills(k - k / 2);
    case '=': return head + fills(k) + body;
    default: return fills(k) + head + body;
  }
}

inline std::string sign_of(bool neg, char sign) {
  if (neg) return "-";
  return sign == '+' ? "+" : sign == ' ' ? " " : "";
}

}  // namespace fmt

template <class I>
std::string fmt_int(I value, const char* fill, char align, char sign, bool alt, index_t width, char grouping,
                    char type) {
  const bool neg = value < 0;
  unsigned long long m = neg ? 0ULL - static_cast<unsigned long long>(value) : static_cast<unsigned long long>(value);
  const unsigned base = type == 'x' || type == 'X' ? 16 : type == 'o' ? 8 : type == 'b' ? 2 : 10;
  const char* digs = type == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string d;
  do {
    d.insert(d.begin(), digs[m % base]);
    m /= base;
  } while (m);
  d = fmt::group(d, grouping, base == 10 ? 3 : 4);
  std::string head = fmt::sign_of(neg, sign);
  if (alt && base != 10) head += type == 'X' ? "0X" : type == 'x' ? "0x" : type == 'o' ? "0o" : "0b";
  return fmt::pad(head, d, static_cast<index_t>(d.size()), fill, align, width);
}

inline std::string fmt_float(double v, const char* fill, char align, char sign, bool alt, index_t width,
                             char grouping, int prec, char type) {
  const bool neg = std::signbit(v) && !std::isnan(v);
  const double a = std::fabs(v);
  std::string body;
  const bool upper = type == 'F' || type == 'E' || type == 'G';
  if (std::isinf(a) || std::isnan(a)) {
    body = std::isnan(a) ? (upper ? "NAN" : "nan") : (upper ? "INF" : "inf");
    if (type == '%') body += '%';
  } else if (type == 0 && prec < 0) {
    body = py_float(a);
  } else {
    const int p = prec < 0 ? 6 : prec;
    const char t = type == 0 ? 'g' : type == '%' ? 'f' : type;
    char f[16];
    std::snprintf(f, sizeof f, alt ? "%%#.*%c" : "%%.*%c", t);
    const double x = type == '%' ? a * 100.0 : a;
    const int n = std::snprintf(nullptr, 0, f, p, x);
    body.resize(static_cast<size_t>(n) + 1);
    std::snprintf(body.data(), body.size(), f, p, x);
    body.resize(static_cast<size_t>(n));
    // no type with a precision: 'g', but a fixed-point result keeps one digit after the point
    if (type == 0 && body.find_first_of(".e") == std::string::npos) body += ".0";
    if (type == '%') body += '%';
  }
  if (grouping && std::isfinite(a)) {
    const size_t end = body.find_first_not_of("0123456789");
    body = fmt::group(body.substr(0, end), grouping, 3) + (end == std::string::npos ? "" : body.substr(end));
  }
  return fmt::pad(fmt::sign_of(neg, sign), body, static_cast<index_t>(body.size()), fill, align, width);
}

inline std::string fmt_str(const Str& s, const char* fill, char align, index_t width, int prec) {
  if (prec >= 0 && prec < s.size()) {
    const Str t = s.sub(0, prec);
    return fmt::pad("", t.bytes(), t.size(), fill, align, width);
  }
  return fmt::pad("", s.bytes(), s.size(), fill, align, width);
}

}  // namespace ep
