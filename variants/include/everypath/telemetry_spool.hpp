// Spool files: how a standalone (no Python) program records operator calls.
// `everypath telemetry ingest SPOOL...` turns them into lake parts
// (telemetry/spool.py reads them; docs/telemetry.md documents the format).
//
//   header   "EPSPOOL1", u16 version = 2, u16 record size = 80, u32 reserved = 0
//   sites    u32 n + n bytes of UTF-8 JSON {"runtime": ..., "sites": [...], ...}
//   chunks   u32 tag, u32 payload bytes, payload; appended per drain until the end:
//            "RECS": SpoolRecord structs (little-endian, 80 bytes each)
//            "AGGS": one drain interval's exact aggregates (SpoolAggHeader, rows, histograms)
//
// Version 1 (still read by spool.py) had 72-byte records without `inclusion` appended after the
// site table, and no aggregates. A crash mid-write leaves at most one torn chunk at the end:
// readers keep the whole records of a torn RECS chunk and drop a torn AGGS chunk (that interval's
// counts: what a crash may lose, as in a Python process).
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
  float inclusion;     // probability this call was recorded (timing share x sample x ring thinning)
  uint32_t reserved2;  // 0
};
static_assert(sizeof(SpoolRecord) == 80, "spool record layout changed: bump the spool version");
static_assert(offsetof(SpoolRecord, site) == 16 && offsetof(SpoolRecord, shape) == 24 &&
                  offsetof(SpoolRecord, n_elements) == 56 && offsetof(SpoolRecord, threads) == 64 &&
                  offsetof(SpoolRecord, propensity) == 68 && offsetof(SpoolRecord, inclusion) == 72,
              "spool record offsets are part of the file format");

// An AGGS chunk: this header, `rows` SpoolAggRow, then `bins` int64 hist_count and `bins` int32
// hist_bin (row i's bins are the next nbins of each; ns bins of telemetry_agg.hpp's numbering).
struct SpoolAggHeader {
  int64_t start_ns, end_ns;  // the drain interval, UNIX-epoch ns
  uint32_t rows, bins;
  uint64_t overflow;         // calls a full per-thread table could not attribute (counted only here)
};
static_assert(sizeof(SpoolAggHeader) == 32, "spool aggregates layout changed: bump the spool version");

struct SpoolAggRow {  // one (site, variant, size bucket) of the interval, merged over threads
  int32_t site;
  int16_t variant;
  uint8_t size_bucket;  // n_elements in [2^(b-1), 2^b); 0: no elements
  uint8_t reserved;     // 0
  uint32_t nbins;
  uint32_t reserved2;   // 0
  int64_t count, timed, sum_ns, min_ns, max_ns;  // as the lake's aggregates table
};
static_assert(sizeof(SpoolAggRow) == 56 && offsetof(SpoolAggRow, count) == 16,
              "spool aggregates layout changed: bump the spool version");

constexpr uint32_t spool_tag(const char (&t)[5]) noexcept {
  return static_cast<uint32_t>(static_cast<unsigned char>(t[0])) |
         static_cast<uint32_t>(static_cast<unsigned char>(t[1])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(t[2])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(t[3])) << 24;
}
constexpr uint32_t kRecordsTag = spool_tag("RECS"), kAggregatesTag = spool_tag("AGGS");

class SpoolWriter {
 public:
  static constexpr uint16_t kVersion = 2;

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

  // One drain's records as a RECS chunk (nothing for none).
  void append(const SpoolRecord* r, std::size_t n) {
    if (!sites_written_) return fail_logic("SpoolWriter::append: add_sites must come first");
    if (!f_ || n == 0) return;
    chunk(kRecordsTag, n * sizeof(SpoolRecord));
    write(r, n * sizeof(SpoolRecord));
  }
  void append(const SpoolRecord& r) { append(&r, 1); }

  // One drain interval's aggregates as an AGGS chunk: h.rows rows, h.bins (bin, count) pairs in all.
  void append_aggregates(const SpoolAggHeader& h, const SpoolAggRow* rows, const int64_t* hist_count,
                         const int32_t* hist_bin) {
    if (!sites_written_) return fail_logic("SpoolWriter::append_aggregates: add_sites must come first");
    if (!f_ || (h.rows == 0 && h.overflow == 0)) return;
    chunk(kAggregatesTag, sizeof h + h.rows * sizeof(SpoolAggRow) + h.bins * (sizeof(int64_t) + sizeof(int32_t)));
    write(&h, sizeof h);
    write(rows, h.rows * sizeof(SpoolAggRow));
    write(hist_count, h.bins * sizeof(int64_t));
    write(hist_bin, h.bins * sizeof(int32_t));
  }

  void flush() {
    if (f_) std::fflush(f_);
  }

 private:
  void chunk(uint32_t tag, std::size_t bytes) {
    if (bytes > 0xffffffffu) return fail_runtime("spool chunk over 4 GiB");
    const uint32_t head[2] = {tag, static_cast<uint32_t>(bytes)};
    write(head, sizeof head);
  }
  void write(const void* p, std::size_t n) {
    if (!f_ || n == 0) return;
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
