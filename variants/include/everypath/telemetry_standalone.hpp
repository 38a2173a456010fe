// The runtime shim's host in a standalone program (no Python): a HostHub whose
// records a background thread appends to a spool file, which
// `everypath telemetry ingest` later turns into lake parts.
//
//   ep::tele::SpoolHost host;                 // one per process
//   ep_telemetry_attach(host.hub());          // each generated unit linked in (or dlopen'ed)
//   host.start("run.spool");                  // after the attaches: the site table goes first
//   ... call compiled functions ...           // ~/SpoolHost: final drain, flush, close
//
// Units attached after start() are not described in this spool (start a new one).
// Targets without threads (wasm32-wasi) have no background thread: records reach the
// file when the program calls poll() (each thread's ring holds 4096) and at stop().
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "config.hpp"
#if !defined(EP_SINGLE_THREADED)
#include <thread>
#endif

#include "telemetry_host.hpp"
#include "telemetry_spool.hpp"

namespace ep::tele {

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

class SpoolHost {
 public:
  SpoolHost() = default;
  SpoolHost(const SpoolHost&) = delete;
  SpoolHost& operator=(const SpoolHost&) = delete;
  ~SpoolHost() { stop(); }

  Hub* hub() { return host_.hub(); }
  HostHub& host() { return host_; }  // e.g. to put a selection table in force before start()

  // Record every sampled call into `path`, drained every flush_ms by a background thread.
  // False (nothing recorded) when the spool cannot be written and there are no exceptions
  // to report it (SpoolWriter::error() says why; with exceptions the writer throws).
  // `extra`: more members of the site table's JSON object (", \"device\": {...}", spool.py).
  // timing_budget: as the Python host's (telemetry_agg.hpp: every call is counted in the aggregates
  // chunk, a share timed; >= 1 times every call).
  bool start(const std::string& path, double sample = 1.0, double explore = 0.0, int flush_ms = 1000,
             const std::string& runtime = "native-executable", const std::string& extra = "",
             double timing_budget = 0.01) {
    writer_ = std::make_unique<SpoolWriter>(path);
    if (!writer_->ok()) {
      error_ = writer_->error();
      writer_.reset();
      return false;
    }
    std::string json = "{\"runtime\": " + json_string(runtime) + ", \"sites\": [";
    const auto sites = host_.sites_since(0);
    for (size_t i = 0; i < sites.size(); ++i) {
      const auto& s = sites[i];
      json += (i ? ", " : "") + std::string("{\"function\": ") + json_string(s.function) +
              ", \"op\": " + json_string(s.op) + ", \"call_site\": " + json_string(s.call_site) +
              ", \"dtype\": " + json_string(s.dtype) + ", \"variants\": [";
      for (size_t a = 0, b, k = 0; a <= s.variants.size(); a = b + 1, ++k) {
        b = s.variants.find(',', a);
        if (b == std::string::npos) b = s.variants.size();
        json += (k ? ", " : "") + json_string(s.variants.substr(a, b - a));
      }
      json += "]}";
    }
    writer_->add_sites(json + "]" + extra + "}");
    host_.configure(true, sample, explore, timing_budget);
    last_drain_ns_ = unix_ns();
    stop_.store(false);
#if defined(EP_SINGLE_THREADED)
    (void)flush_ms;
#else
    thread_ = std::thread([this, flush_ms] {
      while (!stop_.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(flush_ms));
        drain_to_spool();
      }
    });
#endif
    return writer_->ok();
  }

  // Write the records recorded so far now (what the background thread does every flush_ms).
  void poll() {
    if (writer_) drain_to_spool();
  }

  // Why start() returned false, or why the spool stopped being written (no exceptions).
  std::string error() const { return writer_ ? writer_->error() : error_; }

  // Stop recording, write what is left and close the file (idempotent).
  void stop() {
    if (!writer_) return;
    host_.configure(false, 0.0, 0.0);
    stop_.store(true);
#if !defined(EP_SINGLE_THREADED)
    if (thread_.joinable()) thread_.join();
#endif
    drain_to_spool();
    if (!writer_->ok()) error_ = writer_->error();
    writer_.reset();
  }

 private:
  HostHub host_;
  std::unique_ptr<SpoolWriter> writer_;
#if !defined(EP_SINGLE_THREADED)
  std::thread thread_;
#endif
  std::atomic<bool> stop_{false};
  Mutex drain_mu_;  // poll() and the background thread
  std::string error_;

  int64_t last_drain_ns_ = 0;  // the current interval's start (UNIX-epoch ns)

  static int64_t unix_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  // one drain: the interval's aggregates (every call) as an AGGS chunk, then its records
  void drain_to_spool() {
    LockGuard<Mutex> g(drain_mu_);
    const Drained d = host_.drain();
    const DrainedAggregates& a = d.aggregates;
    const int64_t now = unix_ns();
    SpoolAggHeader h{last_drain_ns_, now, static_cast<uint32_t>(a.size()), static_cast<uint32_t>(a.hist_bin.size()),
                     a.overflow};
    last_drain_ns_ = now;
    std::vector<SpoolAggRow> rows(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      SpoolAggRow& r = rows[i];
      r = SpoolAggRow{};
      r.site = a.site[i];
      r.variant = a.variant[i];
      r.size_bucket = a.size_bucket[i];
      r.nbins = static_cast<uint32_t>(a.hist_offsets[i + 1] - a.hist_offsets[i]);
      r.count = a.count[i];
      r.timed = a.timed[i];
      r.sum_ns = a.sum_ns[i];
      r.min_ns = a.min_ns[i];
      r.max_ns = a.max_ns[i];
    }
    writer_->append_aggregates(h, rows.data(), a.hist_count.data(), a.hist_bin.data());
    std::vector<SpoolRecord> recs(d.size());
    for (size_t i = 0; i < d.size(); ++i) {
      SpoolRecord& r = recs[i];
      r = SpoolRecord{};
      r.ts_ns = d.ts_ns[i];
      r.latency_ns = d.latency_ns[i];
      r.site = d.site[i];
      r.variant = d.variant[i];
      r.ndim = d.ndim[i];
      r.explore = d.explore[i];
      for (int k = 0; k < kMaxDims; ++k) r.shape[k] = d.shape[i * kMaxDims + static_cast<size_t>(k)];
      r.n_elements = d.n_elements[i];
      r.threads = d.threads[i];
      r.propensity = d.propensity[i];
      r.inclusion = d.inclusion[i];
    }
    writer_->append(recs.data(), recs.size());
    writer_->flush();
  }
};

}  // namespace ep::tele
