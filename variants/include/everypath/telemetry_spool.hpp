// Spool files: how a standalone (no Python) program records operator calls.
// `everypath telemetry ingest SPOOL...` turns them into lake parts
// (telemetry/spool.py reads them; docs/telemetry.md documents the format).
//
//   header   "EPSPOOL1", u16 version = 1, u16 record size = 72, u32 reserved = 0
//   sites    u32 n + n bytes of UTF-8 JSON {"runtime": ..., "sites": [...], ...}
//   records  SpoolRecord structs (little-endian, 72 bytes) appended to the end
//
// A crash mid-write leaves at most one torn record at the end; readers drop it.
// Plain C++20, no dependencies; one SpoolWriter per file, one thread at a time.
//
// Errors (the file cannot be opened or written, calls out of order) throw
// std::runtime_error / std::logic_error. Without exceptions (EP_NO_EXCEPTIONS: wasm)
// the writer records the first error instead and ignores later writes: check ok()
// and error() (both exist in every build; with exceptions ok() is always true).
#pragma once

#include "config.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <bit>
#include <cstring>
#if defined(EP_HAVE_CXX_EXCEPTIONS)
#include <stdexcept>
#endif
#include <string>
#include <string_view>

namespace ep::tele {

// The shim's ring record (telemetry.hpp) less its timing and thinning fields, times in UNIX-epoch ns.
struct SpoolRecord {
  int64_t ts_ns;       // when the call started
  int64_t latency_ns;
  int32_t site;        // index into the spool's site table
  int16_t variant;     // index into that site's variants
  int8_t ndim;         // valid entries of shape
  uint8_t explore;     // 1: chosen by exploration
  int64_t shape[4];
  int64_t n_elements;
  int16_t threads;
  int16_t reserved;    // 0
  float propensity;    // probability with which this variant was chosen
};
static_assert(sizeof(SpoolRecord) == 72, "spool record layout changed: bump the spool version");
static_assert(offsetof(SpoolRecord, site) == 16 && offsetof(SpoolRecord, shape) == 24 &&
                  offsetof(SpoolRecord, n_elements) == 56 && offsetof(SpoolRecord, threads) == 64 &&
                  offsetof(SpoolRecord, propensity) == 68,
              "spool record offsets are part of the file format");

class SpoolWriter {
 public:
  static constexpr uint16_t kVersion = 1;

  explicit SpoolWriter(const std::string& path) : f_(std::fopen(path.c_str(), "wb")) {
    if (!f_) {
      fail_runtime("cannot open spool file " + path);
      return;
    }
    static_assert(std::endian::native == std::endian::little, "spool files are little-endian");
    char header[16] = {'E', 'P', 'S', 'P', 'O', 'O', 'L', '1'};
    const uint16_t version = kVersion, size = sizeof(SpoolRecord);
    std::memcpy(header + 8, &version, 2);
    std::memcpy(header + 10, &size, 2);
    write(header, sizeof header);
  }
  SpoolWriter(const SpoolWriter&) = delete;
  SpoolWriter& operator=(const SpoolWriter&) = delete;
  ~SpoolWriter() {
    if (f_) std::fclose(f_);
  }

  // false once an error stopped the writer (only without exceptions: else it threw)
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // The site table: a JSON object {"runtime": "native-executable", "sites": [{"function",
  // "op", "call_site", "dtype", "variants": [...]}, ...]} (optionally "table_version" and a
  // "device" block). Exactly once, before the first record.
  void add_sites(std::string_view json) {
    if (sites_written_) return fail_logic("SpoolWriter::add_sites: the site table is already written");
    if (!f_) return;
    const uint32_t n = static_cast<uint32_t>(json.size());
    write(&n, sizeof n);
    write(json.data(), json.size());
    std::fflush(f_);  // a spool whose records cannot be interpreted is useless
    sites_written_ = true;
  }

  void append(const SpoolRecord& r) {
    if (!sites_written_) return fail_logic("SpoolWriter::append: add_sites must come first");
    if (!f_) return;
    write(&r, sizeof r);
  }

  void flush() {
    if (f_) std::fflush(f_);
  }

 private:
  void write(const void* p, std::size_t n) {
    if (!f_) return;
    if (std::fwrite(p, 1, n, f_) != n) fail_runtime("spool write failed");
  }
  void fail_runtime(const std::string& what) {
#if defined(EP_NO_EXCEPTIONS)
    stop(what);
#else
    throw std::runtime_error(what);
#endif
  }
  void fail_logic(const std::string& what) {
#if defined(EP_NO_EXCEPTIONS)
    stop(what);
#else
    throw std::logic_error(what);
#endif
  }
  void stop(const std::string& what) {  // the first error wins; the file is closed
    if (error_.empty()) error_ = what;
    if (f_) std::fclose(f_);
    f_ = nullptr;
  }
  std::FILE* f_;
  bool sites_written_ = false;
  std::string error_;
};

}  // namespace ep::tele
