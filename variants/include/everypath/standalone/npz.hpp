// .npz archives (zip files of .npy members) read and written without any library:
// what a standalone executable takes as --inputs and writes as --out.
//
// Reading: members stored (method 0, np.savez) or deflated (method 8,
// np.savez_compressed; the inflater is inflate.hpp), CRC-32 checked, ZIP64 records
// (NumPy writes them for every member it streams) understood. .npy versions 1.0,
// 2.0 and 3.0; the 13 dtypes of abi.h in either byte order (big-endian data is
// swapped to native), C or Fortran order, any shape including () and (0,).
// Writing: stored members (.npy 1.0, C order), ZIP64 where a size or offset needs it.
//
// No exceptions anywhere (this builds with -fno-exceptions for wasm32-wasi): every
// function returns a Status whose message names the archive, the member and the problem.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../abi.h"
#include "inflate.hpp"

namespace ep::npz {

struct Status {
  bool ok = true;
  std::string message;
  explicit operator bool() const { return ok; }
  static Status error(std::string m) { return {false, std::move(m)}; }
};

struct DtypeInfo {
  const char* name;  // NumPy's name
  char kind;         // b i u f c
  int itemsize;
};

inline const DtypeInfo& dtype_info(int dtype) {
  static const DtypeInfo table[13] = {
      {"bool", 'b', 1},    {"int8", 'i', 1},   {"int16", 'i', 2},     {"int32", 'i', 4},      {"int64", 'i', 8},
      {"uint8", 'u', 1},   {"uint16", 'u', 2}, {"uint32", 'u', 4},    {"uint64", 'u', 8},     {"float32", 'f', 4},
      {"float64", 'f', 8}, {"complex64", 'c', 8}, {"complex128", 'c', 16}};
  return table[dtype >= 0 && dtype < 13 ? dtype : 0];
}

// ---------------------------------------------------------------------------------------------
// Arrays as read from .npy members: native byte order, in an aligned buffer of their own.

struct Array {
  int dtype = -1;  // ep_dtype
  int ndim = 0;
  int64_t shape[EP_MAX_NDIM] = {};
  int64_t strides[EP_MAX_NDIM] = {};  // bytes: C order, or Fortran order as the file says
  bool fortran = false;
  std::string descr;  // as the file spells it ('<f8', '>i4', ...)
  std::unique_ptr<std::max_align_t[]> storage;
  int64_t nbytes = 0;
  void* data() const { return storage.get(); }
  int64_t size() const {
    int64_t n = 1;
    for (int k = 0; k < ndim; ++k) n *= shape[k];
    return n;
  }
};

inline std::string shape_text(const int64_t* shape, int ndim) {
  std::string s = "(";
  for (int k = 0; k < ndim; ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + (ndim == 1 ? ",)" : ")");
}

namespace detail {

inline void skip_space(std::string_view h, size_t& i) {
  while (i < h.size() && (h[i] == ' ' || h[i] == '\t' || h[i] == '\n' || h[i] == '\r')) ++i;
}

// A Python string literal ('...' or "..."; NumPy never writes escapes in these headers).
inline bool parse_str(std::string_view h, size_t& i, std::string& out) {
  if (i >= h.size() || (h[i] != '\'' && h[i] != '"')) return false;
  const char q = h[i++];
  const size_t end = h.find(q, i);
  if (end == std::string_view::npos) return false;
  out.assign(h.substr(i, end - i));
  i = end + 1;
  return true;
}

// The header is a Python dict literal: {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
inline Status parse_header(std::string_view h, Array& a) {
  size_t i = 0;
  bool have_descr = false, have_order = false, have_shape = false;
  skip_space(h, i);
  if (i >= h.size() || h[i++] != '{') return Status::error("the .npy header is not a dict");
  for (;;) {
    skip_space(h, i);
    if (i < h.size() && h[i] == '}') break;
    std::string key;
    if (!parse_str(h, i, key)) return Status::error("the .npy header has a key that is not a string");
    skip_space(h, i);
    if (i >= h.size() || h[i++] != ':') return Status::error("the .npy header lacks ':' after '" + key + "'");
    skip_space(h, i);
    if (key == "descr") {
      if (i < h.size() && h[i] == '[')
        return Status::error("structured dtypes (a list descr) are not supported: store plain arrays");
      if (!parse_str(h, i, a.descr)) return Status::error("the .npy header's descr is not a string");
      have_descr = true;
    } else if (key == "fortran_order") {
      if (h.substr(i, 4) == "True") {
        a.fortran = true;
        i += 4;
      } else if (h.substr(i, 5) == "False") {
        a.fortran = false;
        i += 5;
      } else {
        return Status::error("the .npy header's fortran_order is neither True nor False");
      }
      have_order = true;
    } else if (key == "shape") {
      if (i >= h.size() || h[i++] != '(') return Status::error("the .npy header's shape is not a tuple");
      a.ndim = 0;
      for (;;) {
        skip_space(h, i);
        if (i < h.size() && h[i] == ')') {
          ++i;
          break;
        }
        int64_t v = 0;
        size_t digits = 0;
        while (i < h.size() && h[i] >= '0' && h[i] <= '9') {
          if (v > (INT64_MAX - 9) / 10) return Status::error("a dimension in the .npy header is too large");
          v = v * 10 + (h[i++] - '0');
          ++digits;
        }
        if (i < h.size() && h[i] == 'L') ++i;  // Python 2 longs
        if (digits == 0) return Status::error("the .npy header's shape holds something other than integers");
        if (a.ndim == EP_MAX_NDIM)
          return Status::error("the array has more than " + std::to_string(EP_MAX_NDIM) + " dimensions");
        a.shape[a.ndim++] = v;
        skip_space(h, i);
        if (i < h.size() && h[i] == ',') ++i;
      }
      have_shape = true;
    } else {
      return Status::error("the .npy header has an unknown key '" + key + "'");
    }
    skip_space(h, i);
    if (i < h.size() && h[i] == ',') ++i;
  }
  if (!have_descr || !have_order || !have_shape)
    return Status::error("the .npy header lacks one of 'descr', 'fortran_order', 'shape'");
  return {};
}

// '<f8' -> (EP_FLOAT64, swap = false); the byte order '>' means the data needs swapping.
inline Status dtype_of(const std::string& descr, int& dtype, bool& swap) {
  if (descr.size() < 3) return Status::error("unsupported dtype '" + descr + "'");
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '|' && order != '=')
    return Status::error("unsupported dtype '" + descr + "'");
  const std::string t = descr.substr(1);
  static const char* const names[13] = {"b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f4", "f8", "c8", "c16"};
  dtype = -1;
  for (int k = 0; k < 13; ++k)
    if (t == names[k]) dtype = k;
  if (dtype < 0)
    return Status::error("unsupported dtype '" + descr + "' (supported: bool, int8-64, uint8-64, float32, float64, "
                         "complex64, complex128)");
  swap = order == '>' && dtype_info(dtype).itemsize > 1;
  return {};
}

inline void byteswap(unsigned char* p, int64_t count, int width) {
  for (int64_t k = 0; k < count; ++k, p += width)
    for (int a = 0, b = width - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
}

inline uint16_t get16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t get32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t get64(const unsigned char* p) { return get32(p) | (static_cast<uint64_t>(get32(p + 4)) << 32); }
inline void put16(std::string& s, uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
inline void put32(std::string& s, uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}
inline void put64(std::string& s, uint64_t v) {
  put32(s, static_cast<uint32_t>(v));
  put32(s, static_cast<uint32_t>(v >> 32));
}

}  // namespace detail

// One .npy file's bytes -> Array (copied into an aligned native-order buffer).
inline Status parse_npy(const unsigned char* p, size_t n, Array& a) {
  static_assert(sizeof(int64_t) == 8);
  if (n < 10 || std::memcmp(p, "\x93NUMPY", 6) != 0) return Status::error("not a .npy file (bad magic)");
  const int major = p[6];
  size_t hlen = 0, pos = 0;
  if (major == 1) {
    hlen = detail::get16(p + 8);
    pos = 10;
  } else if (major == 2 || major == 3) {
    if (n < 12) return Status::error("truncated .npy header");
    hlen = detail::get32(p + 8);
    pos = 12;
  } else {
    return Status::error(".npy format version " + std::to_string(major) + "." + std::to_string(p[7]) +
                         " is not supported (1.0, 2.0, 3.0 are)");
  }
  if (pos + hlen > n) return Status::error("truncated .npy header");
  Status st = detail::parse_header(std::string_view(reinterpret_cast<const char*>(p + pos), hlen), a);
  if (!st) return st;
  pos += hlen;
  bool swap = false;
  st = detail::dtype_of(a.descr, a.dtype, swap);
  if (!st) return st;
  const int64_t item = dtype_info(a.dtype).itemsize;
  int64_t count = 1;
  for (int k = 0; k < a.ndim; ++k) {
    if (a.shape[k] != 0 && count > INT64_MAX / item / a.shape[k]) return Status::error("the array is too large");
    count *= a.shape[k];
  }
  a.nbytes = count * item;
  if (static_cast<uint64_t>(a.nbytes) > n - pos)
    return Status::error("the data is truncated: shape " + shape_text(a.shape, a.ndim) + " of " + a.descr +
                         " needs " + std::to_string(a.nbytes) + " bytes, the member has " + std::to_string(n - pos));
  const size_t words = static_cast<size_t>((a.nbytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
  a.storage.reset(new std::max_align_t[words ? words : 1]);
  auto* dst = reinterpret_cast<unsigned char*>(a.storage.get());
  if (a.nbytes) std::memcpy(dst, p + pos, static_cast<size_t>(a.nbytes));
  if (a.dtype == EP_COMPLEX64 || a.dtype == EP_COMPLEX128) {
    if (swap) detail::byteswap(dst, count * 2, static_cast<int>(item / 2));
  } else if (swap) {
    detail::byteswap(dst, count, static_cast<int>(item));
  }
  if (a.dtype == EP_BOOL)  // kernels read bools as 0/1 bytes
    for (int64_t k = 0; k < count; ++k) dst[k] = dst[k] != 0;
  int64_t stride = item;
  for (int j = 0; j < a.ndim; ++j) {
    const int k = a.fortran ? j : a.ndim - 1 - j;
    a.strides[k] = stride;
    stride *= a.shape[k] > 0 ? a.shape[k] : 1;
  }
  return {};
}

// A .npy 1.0 file (C order) of an array given by data and byte strides (any layout).
inline std::string npy_bytes(int dtype, int ndim, const int64_t* shape, const int64_t* strides, const void* data) {
  static const char* const descr[13] = {"|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2",
                                        "<u4", "<u8", "<f4", "<f8", "<c8", "<c16"};
  std::string dict = std::string("{'descr': '") + descr[dtype] + "', 'fortran_order': False, 'shape': " +
                     shape_text(shape, ndim) + ", }";
  const size_t unpadded = 10 + dict.size() + 1;  // magic, version, u16 length, dict, '\n'
  dict.append((64 - unpadded % 64) % 64, ' ');     // NumPy aligns the data to 64 bytes
  dict += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  detail::put16(out, static_cast<uint32_t>(dict.size()));
  out += dict;
  const int64_t item = dtype_info(dtype).itemsize;
  int64_t count = 1;
  for (int k = 0; k < ndim; ++k) count *= shape[k];
  const size_t start = out.size();
  out.resize(start + static_cast<size_t>(count * item));
  if (count == 0) return out;
  char* dst = out.data() + start;
  int64_t idx[EP_MAX_NDIM] = {};
  const char* base = static_cast<const char*>(data);
  for (int64_t e = 0; e < count; ++e) {  // C order walk over any strides
    int64_t off = 0;
    for (int k = 0; k < ndim; ++k) off += idx[k] * strides[k];
    std::memcpy(dst + e * item, base + off, static_cast<size_t>(item));
    for (int k = ndim - 1; k >= 0; --k) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Zip containers.

struct Member {
  std::string name;
  uint16_t method = 0;
  uint16_t flags = 0;
  uint32_t crc = 0;
  uint64_t csize = 0, usize = 0, local_offset = 0;
};

namespace detail {

// The ZIP64 extended-information extra field (id 1): 8-byte values, present only for the
// fields whose 32-bit slot holds 0xFFFFFFFF, in the order usize, csize, offset.
inline bool zip64_extra(const unsigned char* p, size_t n, Member& m, bool want_u, bool want_c, bool want_o) {
  for (size_t i = 0; i + 4 <= n;) {
    const uint16_t id = get16(p + i), len = get16(p + i + 2);
    if (i + 4 + len > n) return false;
    if (id == 1) {
      size_t k = i + 4;
      const size_t end = k + len;
      if (want_u) {
        if (k + 8 > end) return false;
        m.usize = get64(p + k);
        k += 8;
      }
      if (want_c) {
        if (k + 8 > end) return false;
        m.csize = get64(p + k);
        k += 8;
      }
      if (want_o) {
        if (k + 8 > end) return false;
        m.local_offset = get64(p + k);
      }
      return true;
    }
    i += 4 + len;
  }
  return !(want_u || want_c || want_o);
}

}  // namespace detail

// The central directory of a zip file held in memory.
inline Status zip_members(const unsigned char* p, size_t n, std::vector<Member>& out) {
  using namespace detail;
  if (n < 22) return Status::error("not a zip file (too short)");
  size_t eocd = std::string::npos;
  const size_t lowest = n > 22 + 65535 ? n - 22 - 65535 : 0;  // the comment is at most 64 KiB
  for (size_t i = n - 22 + 1; i-- > lowest;)
    if (get32(p + i) == 0x06054b50u) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) return Status::error("not a zip file (no end of central directory record)");
  uint64_t entries = get16(p + eocd + 10), cd_size = get32(p + eocd + 12), cd_offset = get32(p + eocd + 16);
  if (entries == 0xffff || cd_size == 0xffffffffu || cd_offset == 0xffffffffu) {
    // ZIP64: a locator just before the record points at the ZIP64 end of central directory
    if (eocd < 20 || get32(p + eocd - 20) != 0x07064b50u) return Status::error("ZIP64 locator missing");
    const uint64_t z = get64(p + eocd - 20 + 8);
    if (z + 56 > n || get32(p + z) != 0x06064b50u) return Status::error("ZIP64 end of central directory missing");
    entries = get64(p + z + 32);
    cd_size = get64(p + z + 40);
    cd_offset = get64(p + z + 48);
  }
  if (cd_offset > n || cd_size > n - cd_offset) return Status::error("the central directory lies outside the file");
  size_t i = static_cast<size_t>(cd_offset);
  const size_t end = static_cast<size_t>(cd_offset + cd_size);
  for (uint64_t e = 0; e < entries; ++e) {
    if (i + 46 > end || get32(p + i) != 0x02014b50u) return Status::error("corrupt central directory");
    Member m;
    m.flags = get16(p + i + 8);
    m.method = get16(p + i + 10);
    m.crc = get32(p + i + 16);
    m.csize = get32(p + i + 20);
    m.usize = get32(p + i + 24);
    const uint16_t nlen = get16(p + i + 28), xlen = get16(p + i + 30), clen = get16(p + i + 32);
    m.local_offset = get32(p + i + 42);
    if (i + 46 + nlen + xlen + clen > end) return Status::error("corrupt central directory");
    m.name.assign(reinterpret_cast<const char*>(p + i + 46), nlen);
    if (!zip64_extra(p + i + 46 + nlen, xlen, m, m.usize == 0xffffffffu, m.csize == 0xffffffffu,
                     m.local_offset == 0xffffffffu))
      return Status::error("member '" + m.name + "': bad ZIP64 extra field");
    out.push_back(std::move(m));
    i += 46 + nlen + xlen + clen;
  }
  return {};
}

// The uncompressed bytes of one member: a view into the file (stored) or `buf` (inflated).
inline Status member_bytes(const unsigned char* p, size_t n, const Member& m, std::vector<unsigned char>& buf,
                           const unsigned char*& data, size_t& size) {
  using namespace detail;
  const std::string who = "member '" + m.name + "'";
  if (m.flags & 1) return Status::error(who + " is encrypted");
  if (m.local_offset > n || n - m.local_offset < 30 || get32(p + m.local_offset) != 0x04034b50u)
    return Status::error(who + ": bad local header");
  const size_t at = static_cast<size_t>(m.local_offset);
  const uint64_t start = at + 30 + get16(p + at + 26) + get16(p + at + 28);
  if (start > n || m.csize > n - start) return Status::error(who + " is truncated");
  const unsigned char* src = p + start;
  if (m.method == 0) {
    if (m.csize != m.usize) return Status::error(who + ": stored with different sizes");
    data = src;
    size = static_cast<size_t>(m.usize);
  } else if (m.method == 8) {
    std::string why;
    if (!inflate::inflate(src, static_cast<size_t>(m.csize), static_cast<size_t>(m.usize), buf, why))
      return Status::error(who + ": corrupt deflate data (" + why + ")");
    data = buf.data();
    size = buf.size();
  } else {
    return Status::error(who + ": compression method " + std::to_string(m.method) +
                         " is not supported (stored and deflate are: np.savez, np.savez_compressed)");
  }
  if (inflate::crc32(data, size) != m.crc) return Status::error(who + ": CRC-32 mismatch (the file is corrupt)");
  return {};
}

inline Status read_file(const std::string& path, std::vector<unsigned char>& out) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return Status::error("cannot open " + path + ": " + std::strerror(errno));
  unsigned char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) out.insert(out.end(), chunk, chunk + got);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) return Status::error("cannot read " + path);
  return {};
}

struct Entry {
  std::string key;  // the member name without ".npy"
  Array array;
};

// Every member of an .npz file; members whose name does not end in .npy are an error.
inline Status read_npz(const std::string& path, std::vector<Entry>& out) {
  std::vector<unsigned char> file;
  Status st = read_file(path, file);
  if (!st) return st;
  std::vector<Member> members;
  st = zip_members(file.data(), file.size(), members);
  if (!st) return Status::error(path + ": " + st.message);
  for (const Member& m : members) {
    if (m.name.size() < 5 || m.name.compare(m.name.size() - 4, 4, ".npy") != 0)
      return Status::error(path + ": member '" + m.name + "' is not a .npy array (an .npz holds NAME.npy members)");
    std::vector<unsigned char> buf;
    const unsigned char* data = nullptr;
    size_t size = 0;
    st = member_bytes(file.data(), file.size(), m, buf, data, size);
    if (!st) return Status::error(path + ": " + st.message);
    Entry e;
    e.key = m.name.substr(0, m.name.size() - 4);
    for (const Entry& seen : out)
      if (seen.key == e.key) return Status::error(path + ": member '" + m.name + "' appears twice");
    st = parse_npy(data, size, e.array);
    if (!st) return Status::error(path + ": member '" + m.name + "': " + st.message);
    out.push_back(std::move(e));
  }
  return {};
}

// Writes members (name, bytes) as a stored zip file; ZIP64 records only where needed (or,
// force_zip64, everywhere: how the tests check that path without writing 4 GiB).
inline Status write_zip(const std::string& path, const std::vector<std::pair<std::string, std::string>>& members,
                        bool force_zip64 = false) {
  using namespace detail;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return Status::error("cannot create " + path + ": " + std::strerror(errno));
  std::string central;
  uint64_t offset = 0;
  bool ok = true;
  auto emit = [&](const std::string& s) {
    if (ok && std::fwrite(s.data(), 1, s.size(), f) != s.size()) ok = false;
    offset += s.size();
  };
  constexpr uint64_t kMax32 = 0xffffffffu;
  for (const auto& [name, bytes] : members) {
    const uint32_t crc = inflate::crc32(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    const uint64_t size = bytes.size(), at = offset;
    const bool big = size >= kMax32 || force_zip64, far = at >= kMax32 || force_zip64;
    std::string local;
    put32(local, 0x04034b50u);
    put16(local, big ? 45 : 20);  // version needed
    put16(local, 0);             // flags
    put16(local, 0);             // stored
    put16(local, 0);             // time 00:00
    put16(local, 0x21);          // date 1980-01-01
    put32(local, crc);
    put32(local, big ? 0xffffffffu : static_cast<uint32_t>(size));
    put32(local, big ? 0xffffffffu : static_cast<uint32_t>(size));
    put16(local, static_cast<uint32_t>(name.size()));
    put16(local, big ? 20 : 0);
    local += name;
    if (big) {
      put16(local, 1);
      put16(local, 16);
      put64(local, size);
      put64(local, size);
    }
    emit(local);
    emit(bytes);
    std::string extra;
    if (big || far) {
      put16(extra, 1);
      put16(extra, (big ? 16 : 0) + (far ? 8 : 0));
      if (big) {
        put64(extra, size);
        put64(extra, size);
      }
      if (far) put64(extra, at);
    }
    put32(central, 0x02014b50u);
    put16(central, (3 << 8) | 45);  // made by: unix, 4.5
    put16(central, big || far ? 45 : 20);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, big ? 0xffffffffu : static_cast<uint32_t>(size));
    put32(central, big ? 0xffffffffu : static_cast<uint32_t>(size));
    put16(central, static_cast<uint32_t>(name.size()));
    put16(central, static_cast<uint32_t>(extra.size()));
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, 0600u << 16);  // external attributes: rw-------
    put32(central, far ? 0xffffffffu : static_cast<uint32_t>(at));
    central += name;
    central += extra;
  }
  const uint64_t cd_offset = offset, cd_size = central.size(), count = members.size();
  emit(central);
  std::string tail;
  const bool zip64_end = cd_offset >= kMax32 || cd_size >= kMax32 || count >= 0xffff || force_zip64;
  if (zip64_end) {
    const uint64_t z = offset;
    put32(tail, 0x06064b50u);
    put64(tail, 44);
    put16(tail, (3 << 8) | 45);
    put16(tail, 45);
    put32(tail, 0);
    put32(tail, 0);
    put64(tail, count);
    put64(tail, count);
    put64(tail, cd_size);
    put64(tail, cd_offset);
    put32(tail, 0x07064b50u);
    put32(tail, 0);
    put64(tail, z);
    put32(tail, 1);
  }
  put32(tail, 0x06054b50u);
  put16(tail, 0);
  put16(tail, 0);
  put16(tail, zip64_end ? 0xffff : static_cast<uint32_t>(count));
  put16(tail, zip64_end ? 0xffff : static_cast<uint32_t>(count));
  put32(tail, zip64_end ? 0xffffffffu : static_cast<uint32_t>(cd_size));
  put32(tail, zip64_end ? 0xffffffffu : static_cast<uint32_t>(cd_offset));
  put16(tail, 0);
  emit(tail);
  if (std::fclose(f) != 0) ok = false;
  if (!ok) return Status::error("cannot write " + path + ": " + std::strerror(errno));
  return {};
}

}  // namespace ep::npz
