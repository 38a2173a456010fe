// RFC 1951 inflate (stored, fixed and dynamic Huffman blocks) and CRC-32: what reading
// np.savez_compressed archives needs, with no zlib on any target. Decoding uses a 9-bit
// lookup table per Huffman code with a canonical bit-by-bit fallback for longer codes.
// Every malformed input is reported (never read past the input, never write past the
// size the zip directory promises); no exceptions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ep::inflate {

inline uint32_t crc32(const unsigned char* p, size_t n) {
  static const auto table = [] {
    struct T {
      uint32_t v[256];
    } t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t.v[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) c = table.v[(c ^ p[i]) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

namespace detail {

constexpr int kMaxBits = 15;
constexpr int kFastBits = 9;

struct Huffman {
  uint16_t count[kMaxBits + 1] = {};  // codes per length
  uint16_t symbol[320] = {};          // symbols ordered by code
  // fast[bits] = symbol << 4 | length for codes of <= kFastBits bits; 0: take the slow path
  uint16_t fast[1 << kFastBits] = {};

  // Returns false for an over-subscribed set of lengths (incomplete sets are allowed, as zlib does
  // for a single distance code; a missing code is caught when it is decoded).
  bool build(const uint8_t* lengths, int n) {
    for (auto& c : count) c = 0;
    for (int s = 0; s < n; ++s) ++count[lengths[s]];
    count[0] = 0;
    int left = 1;
    for (int len = 1; len <= kMaxBits; ++len) {
      left = (left << 1) - count[len];
      if (left < 0) return false;
    }
    uint16_t offs[kMaxBits + 2] = {};
    for (int len = 1; len < kMaxBits; ++len) offs[len + 1] = static_cast<uint16_t>(offs[len] + count[len]);
    for (int s = 0; s < n; ++s)
      if (lengths[s]) symbol[offs[lengths[s]]++] = static_cast<uint16_t>(s);
    for (auto& f : fast) f = 0;
    int code = 0, k = 0;
    for (int len = 1; len <= kFastBits; ++len) {
      for (int i = 0; i < count[len]; ++i, ++code, ++k) {
        int rev = 0;  // the stream holds codes MSB first: index the table by the reversed code
        for (int b = 0; b < len; ++b) rev |= ((code >> b) & 1) << (len - 1 - b);
        for (int fill = rev; fill < (1 << kFastBits); fill += 1 << len)
          fast[fill] = static_cast<uint16_t>(symbol[k] << 4 | len);
      }
      code <<= 1;
    }
    return true;
  }
};

class Decoder {
 public:
  Decoder(const unsigned char* in, size_t n, size_t limit, std::vector<unsigned char>& out)
      : in_(in), n_(n), limit_(limit), out_(out) {}

  bool run(std::string& why) {
    out_.clear();
    out_.reserve(limit_);
    for (;;) {
      const int last = static_cast<int>(bits(1));
      const int type = static_cast<int>(bits(2));
      bool ok;
      if (type == 0) ok = stored();
      else if (type == 1) ok = fixed();
      else if (type == 2) ok = dynamic();
      else ok = fail("invalid block type 3");
      if (!ok || error_) {
        why = why_.empty() ? "truncated input" : why_;
        return false;
      }
      if (last) break;
    }
    if (out_.size() != limit_) {
      why = "inflated to " + std::to_string(out_.size()) + " bytes, the zip directory says " + std::to_string(limit_);
      return false;
    }
    return true;
  }

 private:
  const unsigned char* in_;
  size_t n_, pos_ = 0, limit_;
  std::vector<unsigned char>& out_;
  uint64_t buf_ = 0;
  int have_ = 0;
  bool error_ = false;
  std::string why_;

  bool fail(const char* what) {
    if (why_.empty()) why_ = what;
    error_ = true;
    return false;
  }

  void refill() {
    while (have_ <= 56 && pos_ < n_) {
      buf_ |= static_cast<uint64_t>(in_[pos_++]) << have_;
      have_ += 8;
    }
  }
  uint32_t peek(int k) {  // up to 32 bits; missing bits past the end read as 0
    if (have_ < k) refill();
    return static_cast<uint32_t>(buf_ & ((1ull << k) - 1));
  }
  void drop(int k) {
    if (k > have_) {
      fail("truncated input");
      have_ = 0;
      buf_ = 0;
      return;
    }
    buf_ >>= k;
    have_ -= k;
  }
  uint32_t bits(int k) {
    if (k == 0) return 0;
    const uint32_t v = peek(k);
    drop(k);
    return v;
  }

  int decode(const Huffman& h) {
    const uint32_t look = peek(kMaxBits);
    const uint16_t f = h.fast[look & ((1u << kFastBits) - 1)];
    if (f != 0) {
      drop(f & 15);
      return f >> 4;
    }
    int code = 0, first = 0, index = 0;  // canonical decoding, one bit at a time
    for (int len = 1; len <= kMaxBits; ++len) {
      code |= static_cast<int>((look >> (len - 1)) & 1);
      const int count = h.count[len];
      if (code - count < first) {
        drop(len);
        return h.symbol[index + (code - first)];
      }
      index += count;
      first += count;
      first <<= 1;
      code <<= 1;
    }
    fail("invalid Huffman code");
    return -1;
  }

  bool stored() {
    drop(have_ % 8);  // to a byte boundary
    if (error_) return false;
    // the bit buffer holds whole bytes now: give them back to the byte stream
    pos_ -= static_cast<size_t>(have_ / 8);
    have_ = 0;
    buf_ = 0;
    if (n_ - pos_ < 4) return fail("truncated stored block");
    const unsigned len = in_[pos_] | (in_[pos_ + 1] << 8), nlen = in_[pos_ + 2] | (in_[pos_ + 3] << 8);
    pos_ += 4;
    if (len != (~nlen & 0xffffu)) return fail("stored block length check failed");
    if (n_ - pos_ < len) return fail("truncated stored block");
    if (out_.size() + len > limit_) return fail("more data than the zip directory says");
    out_.insert(out_.end(), in_ + pos_, in_ + pos_ + len);
    pos_ += len;
    return true;
  }

  bool codes(const Huffman& lit, const Huffman& dist) {
    static const uint16_t lbase[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                       31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint8_t lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const uint16_t dbase[30] = {1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
                                       193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const uint8_t dext[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    for (;;) {
      const int sym = decode(lit);
      if (sym < 0 || error_) return fail("invalid literal/length code");
      if (sym < 256) {
        if (out_.size() >= limit_) return fail("more data than the zip directory says");
        out_.push_back(static_cast<unsigned char>(sym));
        continue;
      }
      if (sym == 256) return true;
      const int li = sym - 257;
      if (li >= 29) return fail("invalid length symbol");
      const size_t len = lbase[li] + bits(lext[li]);
      const int ds = decode(dist);
      if (ds < 0 || ds >= 30 || error_) return fail("invalid distance code");
      const size_t d = dbase[ds] + bits(dext[ds]);
      if (error_) return false;
      if (d > out_.size()) return fail("distance too far back");
      if (out_.size() + len > limit_) return fail("more data than the zip directory says");
      size_t from = out_.size() - d;
      for (size_t k = 0; k < len; ++k) out_.push_back(out_[from + k]);  // may overlap what it writes
    }
  }

  bool fixed() {
    static const auto tables = [] {
      struct T {
        Huffman lit, dist;
      } t;
      uint8_t l[288];
      for (int s = 0; s < 144; ++s) l[s] = 8;
      for (int s = 144; s < 256; ++s) l[s] = 9;
      for (int s = 256; s < 280; ++s) l[s] = 7;
      for (int s = 280; s < 288; ++s) l[s] = 8;
      t.lit.build(l, 288);
      uint8_t d[30];
      for (auto& x : d) x = 5;
      t.dist.build(d, 30);
      return t;
    }();
    return codes(tables.lit, tables.dist);
  }

  bool dynamic() {
    static const uint8_t order[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    const int nlen = static_cast<int>(bits(5)) + 257, ndist = static_cast<int>(bits(5)) + 1;
    const int ncode = static_cast<int>(bits(4)) + 4;
    if (nlen > 286 || ndist > 30) return fail("bad code counts");
    uint8_t lengths[320] = {};
    for (int i = 0; i < ncode; ++i) lengths[order[i]] = static_cast<uint8_t>(bits(3));
    Huffman lencode;
    if (!lencode.build(lengths, 19)) return fail("over-subscribed code length code");
    for (int i = 0; i < 19; ++i) lengths[i] = 0;
    for (int i = 0; i < nlen + ndist;) {
      int sym = decode(lencode);
      if (sym < 0 || error_) return fail("invalid code length code");
      if (sym < 16) {
        lengths[i++] = static_cast<uint8_t>(sym);
        continue;
      }
      uint8_t value = 0;
      int repeat;
      if (sym == 16) {
        if (i == 0) return fail("repeat with no previous length");
        value = lengths[i - 1];
        repeat = 3 + static_cast<int>(bits(2));
      } else if (sym == 17) {
        repeat = 3 + static_cast<int>(bits(3));
      } else {
        repeat = 11 + static_cast<int>(bits(7));
      }
      if (i + repeat > nlen + ndist) return fail("too many code lengths");
      while (repeat--) lengths[i++] = value;
    }
    if (lengths[256] == 0) return fail("no end-of-block code");
    Huffman lit, dist;
    if (!lit.build(lengths, nlen)) return fail("over-subscribed literal/length code");
    if (!dist.build(lengths + nlen, ndist)) return fail("over-subscribed distance code");
    return codes(lit, dist);
  }
};

}  // namespace detail

// Inflates a raw deflate stream that must come to exactly `size` bytes.
inline bool inflate(const unsigned char* in, size_t n, size_t size, std::vector<unsigned char>& out,
                    std::string& why) {
  return detail::Decoder(in, n, size, out).run(why);
}

}  // namespace ep::inflate
