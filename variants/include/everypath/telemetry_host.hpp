// The host side of the runtime shim: owns the Hub that kernel libraries attach
// to, hands each thread its ring, keeps the process-wide site table, and drains
// every ring into columns (ticks converted to UNIX-epoch nanoseconds). Used by
// the Python runtime module (lowering/runtime/telemetry.cpp) and by standalone
// programs, which write the drained columns to a spool file instead.
#pragma once

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#if !defined(EP_SINGLE_THREADED)
#include <thread>
#endif
#include <vector>

#include "telemetry.hpp"

namespace ep::tele {

struct SiteCopy {  // SiteInfo with owned strings
  std::string function, op, call_site, dtype, variants;
};

// One operator's entry of a selection table: variants[i] serves work sizes below
// bounds[i] (the last one everything larger); names a site lacks are skipped.
struct TableEntry {
  std::string op;
  std::vector<index_t> bounds;
  std::vector<std::string> variants;
  std::vector<std::vector<std::string>> topk = {};  // per slot, what exploration may try (empty: everything)
};

// Exact aggregates of one drain interval, merged over threads: one row per (site, variant, size
// bucket) that ran, its histogram as sparse (bin, count) pairs in ns bins (hist_offsets: n + 1).
struct DrainedAggregates {
  std::vector<int32_t> site;
  std::vector<int16_t> variant;
  std::vector<uint8_t> size_bucket;
  // count: every call; timed: those timed; sum_ns and the histogram estimate every call's (each
  // timed call weighted by 1/p), min/max are the timed calls'
  std::vector<int64_t> count, timed, sum_ns, min_ns, max_ns, hist_offsets{0}, hist_count;
  std::vector<int32_t> hist_bin;
  uint64_t overflow = 0;  // calls of keys a full per-thread table could not hold (counted only here)
  size_t size() const { return site.size(); }
};

struct Drained {  // columns of drained records, equal lengths
  std::vector<int64_t> ts_ns, latency_ns, shape, n_elements;  // shape: kMaxDims per record
  std::vector<int32_t> site;
  std::vector<int16_t> variant, threads, table;
  std::vector<int8_t> ndim;
  std::vector<uint8_t> explore;
  std::vector<float> propensity, inclusion;  // inclusion: probability this call was recorded
  uint64_t dropped = 0;  // records lost to full rings since the last drain
  DrainedAggregates aggregates;
  size_t size() const { return site.size(); }
};

class HostHub {
 public:
  HostHub() {
    hub_.owner = this;
    hub_.ring = &HostHub::ring_of;
    hub_.add_sites = &HostHub::add_sites_of;
    hub_.choose = &HostHub::choose_of;
    versions_.push_back("");  // generation 0: the built-in thresholds
#if defined(__x86_64__) || defined(__i386__)
    hub_.tsc = invariant_tsc() ? 1 : 0;
#endif
    tick0_ = ticks(&hub_);
    steady0_ = steady_ns();
    // what reading the clock costs here (two reads per timed call), for the timing budget
    int64_t sink = 0;
    for (int i = 0; i < 64; ++i) sink += ticks(&hub_);
    clock_ticks_ = std::max<double>(1.0, static_cast<double>(ticks(&hub_) - tick0_) / 65.0);
    (void)sink;
    real0_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                 std::chrono::system_clock::now().time_since_epoch()).count();
  }
  HostHub(const HostHub&) = delete;
  HostHub& operator=(const HostHub&) = delete;

  Hub* hub() { return &hub_; }

  // timing_budget: the share of a call's own time that timing it may cost (>= 1: time every call; the
  // hosts that keep aggregates, Python, spool files and wasm, pass 0.01: every call is counted anyway)
  void configure(bool enabled, double sample, double explore, double timing_budget = 1.0) {
    hub_.sample_below.store(rate_bits(sample), std::memory_order_relaxed);
    hub_.time_share_per_tick.store(timing_budget >= 1.0 ? HUGE_VAL : std::max(timing_budget, 0.0) / (2.0 * clock_ticks_),
                                   std::memory_order_relaxed);
    hub_.explore_below.store(rate_bits(explore), std::memory_order_relaxed);
    hub_.enabled.store(enabled ? 1 : 0, std::memory_order_release);
  }

  // Put a selection table in force for every registered (and later registered) site;
  // returns its generation, the number records carry. An empty table: back to defaults.
  int set_table(const std::string& version, std::vector<TableEntry> entries) {
    LockGuard<Mutex> g(mu_);
    table_ = std::move(entries);
    versions_.push_back(version);
    const int gen = static_cast<int>(versions_.size()) - 1;
    publish_resolved();
    hub_.table.store(table_.empty() ? 0 : gen, std::memory_order_release);
    return gen;
  }

  std::vector<std::string> table_versions() {
    LockGuard<Mutex> g(mu_);
    return versions_;
  }

  std::vector<SiteCopy> sites_since(size_t first) {
    LockGuard<Mutex> g(mu_);
    if (first >= sites_.size()) return {};
    return std::vector<SiteCopy>(sites_.begin() + static_cast<std::ptrdiff_t>(first), sites_.end());
  }

  size_t site_count() {
    LockGuard<Mutex> g(mu_);
    return sites_.size();
  }

  // Whether some thread's ring is at least half full (its raw sample has begun to thin): the
  // host drains early instead of waiting for its timer.
  bool pressure() {
    LockGuard<Mutex> g(mu_);
    for (const RingState& st : rings_)
      if (st.ring->level() > 0) return true;
    return false;
  }

  // Everything pushed so far (each ring read from tail to head), oldest first per thread, and
  // the exact aggregates of every call since the last drain.
  Drained drain() {
    Drained d;
    LockGuard<Mutex> g(mu_);
    const double ns_per_tick = scale();
    const double rate = static_cast<double>(hub_.sample_below.load(std::memory_order_relaxed)) * 0x1p-64;
    std::map<uint64_t, Merged> merged;
    for (size_t i = 0; i < rings_.size();) {
      Ring* r = rings_[i].ring.get();
      const uint64_t t = r->tail.load(std::memory_order_relaxed);
      const uint64_t h = r->head.load(std::memory_order_acquire);
      for (uint64_t k = t; k < h; ++k) append(d, r->buf[k & (Ring::kSize - 1)], ns_per_tick, rate);
      r->tail.store(h, std::memory_order_release);
      d.dropped += r->dropped.exchange(0, std::memory_order_relaxed);
      const bool orphan = r->orphan.load(std::memory_order_acquire);  // before the last reading
      harvest(rings_[i], merged, d.aggregates.overflow);
      if (orphan && r->head.load(std::memory_order_acquire) == h)
        rings_.erase(rings_.begin() + static_cast<std::ptrdiff_t>(i));  // its thread is gone and it is empty
      else
        ++i;
    }
    emit(merged, d.aggregates, ns_per_tick);
    return d;
  }

 private:
  struct OwnedHub : Hub {
    HostHub* owner = nullptr;
  };
  struct Resolved {  // a table entry in one site's variant numbering
    std::vector<index_t> bounds;
    std::vector<int16_t> variant;  // -1: the site lacks it
    std::vector<uint32_t> explore;  // per slot, the exploration candidates as a bit set (0: every variant)
  };
  using Resolution = std::vector<Resolved>;  // by site id
  // a thread's ring and what the previous drain read of its aggregates (counters are cumulative)
  struct RingState {
    std::shared_ptr<Ring> ring;
    std::vector<std::vector<uint32_t>> bins;  // per slot, allocated when the slot is first seen
    std::vector<uint64_t> key, sum, calls, ntimed;  // per slot, as last read (key: whose counts they are)
    uint64_t overflow = 0;
  };
  struct Merged {  // one key's interval, over threads, in ticks
    std::map<int, int64_t> bins;
    uint64_t sum = 0, min = ~uint64_t{0}, max = 0, calls = 0, timed = 0;
  };
  OwnedHub hub_;
  Mutex mu_;
  std::vector<RingState> rings_;
  std::vector<SiteCopy> sites_;
  std::vector<TableEntry> table_;
  std::vector<std::string> versions_;
  // readers (choose_of) load the pointer without a lock; replaced ones stay alive (tables
  // change rarely and are small), so a reader never sees a freed resolution
  std::atomic<const Resolution*> resolved_{nullptr};
  std::vector<std::unique_ptr<Resolution>> retired_;

  void publish_resolved() {  // under mu_
    auto res = std::make_unique<Resolution>(sites_.size());
    for (size_t i = 0; i < sites_.size(); ++i) {
      const auto it = std::find_if(table_.begin(), table_.end(), [&](const TableEntry& e) { return e.op == sites_[i].op; });
      if (it == table_.end()) continue;
      std::vector<std::string> names;
      for (size_t a = 0, b; a <= sites_[i].variants.size(); a = b + 1) {
        b = sites_[i].variants.find(',', a);
        if (b == std::string::npos) b = sites_[i].variants.size();
        names.push_back(sites_[i].variants.substr(a, b - a));
      }
      Resolved& r = (*res)[i];
      r.bounds = it->bounds;
      auto index_of = [&](const std::string& v) {
        const auto k = std::find(names.begin(), names.end(), v);
        return k == names.end() || k - names.begin() > 22 ? -1 : static_cast<int>(k - names.begin());
      };
      for (size_t slot = 0; slot < it->variants.size(); ++slot) {
        r.variant.push_back(static_cast<int16_t>(index_of(it->variants[slot])));
        uint32_t mask = 0;
        if (slot < it->topk.size())
          for (const auto& v : it->topk[slot])
            if (const int k = index_of(v); k >= 0) mask |= 1u << k;
        // one candidate (or none the site has) explores nothing useful: fall back to every variant
        r.explore.push_back(std::popcount(mask) >= 2 ? mask : 0u);
      }
    }
    resolved_.store(res.get(), std::memory_order_release);
    retired_.push_back(std::move(res));
  }

  static int choose_of(Hub* h, int32_t site, index_t n) {
    const Resolution* res = from(h)->resolved_.load(std::memory_order_acquire);
    if (res == nullptr || site < 0 || static_cast<size_t>(site) >= res->size()) return -1;
    const Resolved& r = (*res)[static_cast<size_t>(site)];
    if (r.variant.empty()) return -1;
    const size_t i = std::min(static_cast<size_t>(std::upper_bound(r.bounds.begin(), r.bounds.end(), n) -
                                                  r.bounds.begin()), r.variant.size() - 1);
    if (r.variant[i] < 0) return -1;
    return r.variant[i] | static_cast<int>(r.explore[i] << 8);
  }
  int64_t tick0_, steady0_, real0_;
  double clock_ticks_ = 1.0;  // ticks one clock read costs

  // a share as a threshold for 64-bit draws (1.0: every draw; 0.0: only a draw of 0, p = 2^-64)
  static uint64_t rate_bits(double rate) {
    if (!(rate > 0.0)) return 0;
    if (rate >= 1.0) return ~0ull;
    return static_cast<uint64_t>(rate * 0x1p64);
  }

  static bool invariant_tsc() {
#if defined(__x86_64__)
    unsigned a, b, c, d;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000000u), "c"(0));
    if (a < 0x80000007u) return false;
    __asm__ volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0x80000007u), "c"(0));
    return (d >> 8) & 1u;  // invariant TSC: constant rate across P/C states
#else
    return false;
#endif
  }

  // ns per tick, from the ticks and the steady clock elapsed since construction
  double scale() const {
    if (!hub_.tsc) return 1.0;
    const int64_t dt = ticks(&hub_) - tick0_, dn = steady_ns() - steady0_;
    return (dt > 0 && dn > 0) ? static_cast<double>(dn) / static_cast<double>(dt) : 1.0;
  }

  // what each slot gained since the last drain, into merged (under mu_)
  static void harvest(RingState& st, std::map<uint64_t, Merged>& merged, uint64_t& overflow) {
    AggTable* a = st.ring->agg;
    if (a == nullptr) return;
    if (st.bins.empty()) {
      st.bins.resize(kAggSlots);
      for (auto* v : {&st.key, &st.sum, &st.calls, &st.ntimed}) v->assign(kAggSlots, 0);
    }
    // excludes the owning thread's evictions (telemetry_agg.hpp); one in progress is short
    std::atomic_ref<uint32_t> mine(a->harvesting), theirs(a->evicting);
    mine.store(1, std::memory_order_seq_cst);
#if !defined(EP_SINGLE_THREADED)
    while (theirs.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();
#endif
    auto load = [](uint64_t& x) { return std::atomic_ref<uint64_t>(x).load(std::memory_order_relaxed); };
    for (size_t i = 0; i < static_cast<size_t>(kAggSlots); ++i) {
      AggSlot& s = a->slot[i];
      const uint64_t key = std::atomic_ref<uint64_t>(s.key).load(std::memory_order_acquire);
      if (key == 0) continue;
      std::vector<uint32_t>& prev = st.bins[i];
      if (key != st.key[i]) {  // claimed or evicted since the last reading: its counts start at 0
        st.key[i] = key;
        st.calls[i] = st.sum[i] = st.ntimed[i] = 0;
        std::fill(prev.begin(), prev.end(), 0u);
      }
      const uint64_t calls = load(s.calls);  // first: a call counted now has its timing in this or the next reading
      const uint64_t nt = std::atomic_ref<uint64_t>(s.ntimed).load(std::memory_order_acquire);  // then its timings
      if (calls == st.calls[i] && nt == st.ntimed[i]) continue;
      Merged& m = merged[key];
      m.calls += calls - st.calls[i];
      st.calls[i] = calls;
      if (prev.empty()) prev.assign(kBins, 0);
      for (size_t b = 0; b < static_cast<size_t>(kBins); ++b) {
        const uint32_t now = std::atomic_ref<uint32_t>(s.bins[b]).load(std::memory_order_relaxed);
        if (now == prev[b]) continue;
        m.bins[static_cast<int>(b)] += static_cast<uint32_t>(now - prev[b]);  // modulo 2^32
        prev[b] = now;
      }
      const uint64_t sum = load(s.sum);
      m.sum += sum - st.sum[i];
      m.timed += nt - st.ntimed[i];
      st.sum[i] = sum;
      st.ntimed[i] = nt;
      const uint64_t mn = std::atomic_ref<uint64_t>(s.min_inv).exchange(0, std::memory_order_relaxed);
      const uint64_t mx = std::atomic_ref<uint64_t>(s.max_plus1).exchange(0, std::memory_order_relaxed);
      // a call timed as the drain read may have its min/max in the neighbouring interval
      if (mn != 0) m.min = std::min(m.min, ~mn);
      if (mx != 0) m.max = std::max(m.max, mx - 1);
      // what this reading covers: the owning thread may give the slot to another key once both match
      std::atomic_ref<uint64_t>(s.seen_calls).store(calls, std::memory_order_release);
      std::atomic_ref<uint64_t>(s.seen_timed).store(nt, std::memory_order_release);
    }
    mine.store(0, std::memory_order_release);
    const uint64_t of = std::atomic_ref<uint64_t>(a->overflow).load(std::memory_order_relaxed);
    overflow += of - st.overflow;
    st.overflow = of;
  }

  // merged keys as rows; tick bins re-binned to ns bins by their midpoints
  static void emit(const std::map<uint64_t, Merged>& merged, DrainedAggregates& out, double ns_per_tick) {
    for (const auto& [key, m] : merged) {
      std::map<int, int64_t> ns_bins;
      for (const auto& [b, c] : m.bins)
        if (c != 0) ns_bins[ns_per_tick == 1.0 ? b : bin_of(to_ns(mid(b), ns_per_tick))] += c;
      out.site.push_back(static_cast<int32_t>((key >> 24) - 1));
      out.variant.push_back(static_cast<int16_t>((key >> 8) & 0xffff));
      out.size_bucket.push_back(static_cast<uint8_t>(key & 0xff));
      out.count.push_back(static_cast<int64_t>(m.calls));
      out.timed.push_back(static_cast<int64_t>(m.timed));
      out.sum_ns.push_back(static_cast<int64_t>(to_ns(m.sum, ns_per_tick)));
      // min/max from the bins' bounds when the interval saw no update of them (see harvest)
      uint64_t mn = m.min, mx = m.max;
      if (mn == ~uint64_t{0}) {
        mn = m.bins.empty() ? 0 : bin_low(m.bins.begin()->first);
        mx = m.bins.empty() ? 0 : bin_low(m.bins.rbegin()->first) + bin_width(m.bins.rbegin()->first) - 1;
      }
      out.min_ns.push_back(static_cast<int64_t>(to_ns(mn, ns_per_tick)));
      out.max_ns.push_back(static_cast<int64_t>(to_ns(std::max(mx, mn), ns_per_tick)));
      for (const auto& [b, c] : ns_bins) {
        out.hist_bin.push_back(b);
        out.hist_count.push_back(c);
      }
      out.hist_offsets.push_back(static_cast<int64_t>(out.hist_bin.size()));
    }
  }

  static uint64_t mid(int b) { return bin_low(b) + (bin_width(b) - 1) / 2; }
  static uint64_t to_ns(uint64_t ticks, double ns_per_tick) {
    return static_cast<uint64_t>(static_cast<double>(ticks) * ns_per_tick);
  }

  void append(Drained& d, const Record& r, double ns_per_tick, double rate) const {
    d.ts_ns.push_back(real0_ + static_cast<int64_t>(static_cast<double>(r.start_ticks - tick0_) * ns_per_tick));
    d.latency_ns.push_back(static_cast<int64_t>(static_cast<double>(r.latency_ticks) * ns_per_tick));
    d.site.push_back(r.site);
    d.variant.push_back(r.variant);
    d.ndim.push_back(r.ndim);
    d.explore.push_back(r.explore);
    d.shape.insert(d.shape.end(), r.shape, r.shape + kMaxDims);
    d.n_elements.push_back(r.n_elements);
    d.threads.push_back(r.threads);
    d.table.push_back(r.table);
    d.propensity.push_back(r.propensity);
    d.inclusion.push_back(static_cast<float>(std::min(1.0, std::ldexp(rate * r.timed, -static_cast<int>(r.level)))));
  }

  // This thread's ring, shared with the hub's list: either may go first (a hub on a
  // standalone program's stack ends before the main thread's thread_locals do).
  struct ThreadRing {
    std::shared_ptr<Ring> ring;
    const HostHub* owner = nullptr;
    ~ThreadRing() {
      if (ring) ring->orphan.store(1, std::memory_order_release);
    }
  };

  static Ring* ring_of(Hub* h) {
#if defined(EP_SINGLE_THREADED)
    static ThreadRing mine;  // one thread (wasm32-wasi has no __cxa_thread_atexit for thread_local destructors)
#else
    thread_local ThreadRing mine;
#endif
    HostHub* self = from(h);
    if (mine.owner != self) {  // first call on this thread (or a new hub): a ring of its own
      if (mine.ring) mine.ring->orphan.store(1, std::memory_order_release);
      auto r = std::make_shared<Ring>();
      r->rng ^= reinterpret_cast<uintptr_t>(r.get()) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(steady_ns());
      // calloc: zero pages from the OS, committed only as slots and bins are touched (null when
      // memory is short: that thread then records raw samples only)
      r->agg = static_cast<AggTable*>(std::calloc(1, sizeof(AggTable)));
      LockGuard<Mutex> g(self->mu_);
      RingState st;
      st.ring = r;
      self->rings_.push_back(std::move(st));
      mine.ring = std::move(r);
      mine.owner = self;
    }
    return mine.ring.get();
  }

  static int32_t add_sites_of(Hub* h, const SiteInfo* s, int32_t n) {
    HostHub* self = from(h);
    LockGuard<Mutex> g(self->mu_);
    const auto first = static_cast<int32_t>(self->sites_.size());
    for (int32_t i = 0; i < n; ++i)
      self->sites_.push_back({s[i].function, s[i].op, s[i].call_site, s[i].dtype, s[i].variants});
    if (!self->table_.empty()) self->publish_resolved();  // the table in force covers new sites too
    return first;
  }

  static HostHub* from(Hub* h) { return static_cast<OwnedHub*>(h)->owner; }
};

}  // namespace ep::tele
