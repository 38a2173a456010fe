// The runtime shim: every operator call site of generated code goes through
// ep::tele::site(), which picks the variant (the selection table in force, else
// each variant's default threshold; a configurable share explores), runs it, and, when telemetry
// is on, counts it in this thread's exact aggregates (telemetry_agg.hpp), times it (all calls,
// or a random share where the clock is costly next to the call) and pushes a sampled timed call
// as one fixed-size record into this thread's lock-free ring. A host (the Python runtime module,
// or a standalone program's spool writer) owns the Hub, drains the rings and converts ticks to
// nanoseconds off the hot path. With no hub attached, a site is one branch.
#pragma once

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#if defined(EP_HAVE_THREADS)
#include "paths/threads/pool.hpp"
#elif defined(_OPENMP)
#include <omp.h>
#endif

#include "array.hpp"
#include "dispatch.hpp"
#include "telemetry_agg.hpp"

namespace ep::tele {

constexpr int kMaxDims = 4;
constexpr int kHubAbi = 3;  // 3: exact aggregates per thread, thinning level in each record

// One recorded operator call (80 bytes). Times are in host ticks (TSC or
// steady-clock ns, see Hub::tsc); the host converts them when it drains.
struct Record {
  int64_t start_ticks;
  int64_t latency_ticks;
  int32_t site;      // process-wide site id (Hub::add_sites)
  int16_t variant;   // index into the site's variants
  int8_t ndim;       // of the largest operand (shape keeps kMaxDims dims)
  uint8_t explore;   // chosen by exploration
  int64_t shape[kMaxDims];
  int64_t n_elements;
  int16_t threads;
  int16_t table;     // generation of the selection table that chose (0: the built-in thresholds)
  float propensity;  // probability with which this variant was chosen
  float timed;       // probability with which this call was timed (telemetry_agg.hpp)
  uint8_t level;     // ring thinning: a timed call recorded with probability sample * 2^-level
};

// Single producer (the calling thread), single consumer (the host's drain).
// As the ring fills between drains the raw sample thins (level() halves the rate at half full,
// again at 3/4, ...): a burst spreads its records over the whole interval instead of keeping
// its first 4096 calls, and every record carries the probability it was kept with.
struct Ring {
  static constexpr int kLog = 12;
  static constexpr uint64_t kSize = uint64_t{1} << kLog;  // a power of two
  alignas(64) std::atomic<uint64_t> head{0};   // written by the producer
  alignas(64) std::atomic<uint64_t> tail{0};   // written by the consumer
  std::atomic<uint64_t> dropped{0};
  std::atomic<int> orphan{0};  // the owning thread has exited
  uint64_t rng = 0x9E3779B97F4A7C15ull;
  AggTable* agg = nullptr;  // this thread's exact aggregates (calloc'ed by the host: pages committed as used)
  Record buf[kSize];

  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() { std::free(agg); }

  // 0 while at most half full, then +1 each time the free part halves (kLog when one slot is left)
  int level() const noexcept {
    const uint64_t used = head.load(std::memory_order_relaxed) - tail.load(std::memory_order_relaxed);
    const uint64_t free = used >= kSize ? 0 : kSize - used;
    return free == 0 ? kLog : kLog - static_cast<int>(std::bit_width(free - 1));
  }

  bool push(const Record& r) noexcept {
    const uint64_t h = head.load(std::memory_order_relaxed);
    if (h - tail.load(std::memory_order_acquire) >= kSize) {  // full: count, never block
      dropped.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    buf[h & (kSize - 1)] = r;
    head.store(h + 1, std::memory_order_release);
    return true;
  }

  uint64_t next() noexcept {  // xorshift64*: the sampling and exploration draws
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
  }
};

// The static description of one call site (strings live in the kernel's rodata).
struct SiteInfo {
  const char* function;   // module-qualified Python function
  const char* op;         // operator key
  const char* call_site;  // file.py:LINE
  const char* dtype;      // result dtype
  const char* variants;   // comma-separated, in dispatch order
};

// What a host provides to every kernel library (ep_telemetry_attach).
struct Hub {
  int abi = kHubAbi;
  std::atomic<int> enabled{0};
  std::atomic<uint64_t> sample_below{~0ull};  // record when a draw is <= this (rate * 2^64)
  std::atomic<uint64_t> explore_below{0};     // explore when a draw is < this
  int tsc = 0;                                // ticks are TSC cycles (else steady-clock ns)
  // p per tick of latency: a call of L ticks makes its key's next calls timed with p = L * this
  // (the timing budget over the cost of two clock reads; +inf: time every call)
  std::atomic<double> time_share_per_tick{1.0};
  std::atomic<int> table{0};                  // generation of the selection table in force (0: none)
  Ring* (*ring)(Hub*) = nullptr;              // the calling thread's ring
  int32_t (*add_sites)(Hub*, const SiteInfo*, int32_t) = nullptr;  // id of the first
  // the table's variant for a site and work size in bits 0-7, and in bits 8-30 the set of
  // variants exploration may try (bit v: variant v; none set: every variant); -1: the table
  // has no say (keep the default)
  int (*choose)(Hub*, int32_t site, index_t n) = nullptr;
};

inline int64_t steady_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline int64_t ticks(const Hub* h) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  if (h->tsc) return static_cast<int64_t>(__rdtsc());
#endif
  (void)h;
  return steady_ns();
}

// the threads a threads-path variant runs on (pool.hpp: OpenMP's count, or the pool's)
inline int16_t max_threads() noexcept {
#if defined(EP_HAVE_THREADS)
  return static_cast<int16_t>(ep::threads::max_threads());
#elif defined(_OPENMP)
  return static_cast<int16_t>(omp_get_max_threads());
#else
  return 1;
#endif
}

// Size and shape of the largest array operand (what the selector buckets by).
struct Work {
  index_t n = 0;
  int8_t ndim = 0;
  int64_t shape[kMaxDims] = {0, 0, 0, 0};
};

template <class A>
inline void widen(Work& w, const A& a) {
  if constexpr (is_array_v<A>) {
    if (a.size() < w.n || (a.size() == w.n && w.ndim != 0)) return;
    constexpr int N = std::decay_t<A>::ndim;
    w.n = a.size();
    w.ndim = static_cast<int8_t>(N);
    for (int k = 0; k < kMaxDims; ++k) w.shape[k] = 0;
    for (int k = 0; k < N; ++k) {
      if (k < kMaxDims - 1 || N <= kMaxDims) w.shape[k] = a.shape[k];
      else w.shape[kMaxDims - 1] *= a.shape[k];  // rank > 4: the tail's product
    }
  }
}

template <class... A>
inline Work work_of_all(const A&... a) {
  Work w;
  (widen(w, a), ...);
  return w;
}

// One operator call: choose, run, and (sampled) record. min_work holds each
// variant's default threshold (the last one met wins, as ep::pick), threaded
// whether a variant runs on an OpenMP team.
template <class F0, class... F>
inline auto site(Hub* hub, int32_t id, std::initializer_list<index_t> min_work,
                 std::initializer_list<int8_t> threaded, const Work& w, F0&& f0, F&&... rest)
    -> decltype(f0()) {
  using R = decltype(f0());
  constexpr int nv = 1 + static_cast<int>(sizeof...(F));
  int chosen = nv > 1 ? pick(min_work, w.n) : 0;
  if (hub == nullptr) return dispatch(chosen, std::forward<F0>(f0), std::forward<F>(rest)...);
  int table = 0;
  uint32_t candidates = 0;  // variants exploration may try (0: all of them)
  if constexpr (nv > 1) {
    table = hub->table.load(std::memory_order_acquire);
    if (table != 0) {
      const int t = hub->choose(hub, id, w.n);
      if (t >= 0 && (t & 0xff) < nv) {
        chosen = t & 0xff;
        candidates = (static_cast<uint32_t>(t) >> 8) & ((1u << nv) - 1u);
        if (candidates != 0) candidates |= 1u << chosen;  // the greedy choice is always a candidate
      } else {
        table = 0;
      }
    }
  }
  if (!hub->enabled.load(std::memory_order_relaxed))
    return dispatch(chosen, std::forward<F0>(f0), std::forward<F>(rest)...);
  Ring* ring = hub->ring(hub);
  float propensity = 1.0f;
  bool explored = false;
  if constexpr (nv > 1) {
    const uint64_t below = hub->explore_below.load(std::memory_order_relaxed);
    if (below != 0) {
      const double eps = static_cast<double>(below) * 0x1p-64;
      const int greedy = chosen;
      // uniform over the candidates: the table's top-k where it names them, else every variant
      const int k = candidates != 0 ? std::popcount(candidates) : nv;
      if (ring->next() < below) {
        explored = true;
        int pick = static_cast<int>(ring->next() % static_cast<uint64_t>(k));
        if (candidates == 0) {
          chosen = pick;
        } else {
          uint32_t m = candidates;
          for (; pick > 0; --pick) m &= m - 1;  // drop the lowest set bits: the pick-th candidate remains lowest
          chosen = std::countr_zero(m);
        }
      }
      propensity = static_cast<float>(eps / k + (chosen == greedy ? 1.0 - eps : 0.0));
    }
  }
  // every call is counted; a random share is timed (all of them unless the clock is costly next to
  // the call: telemetry_agg.hpp), and a timed call is recorded raw (thinned as the ring fills)
  AggSlot* slot = ring->agg != nullptr ? ring->agg->find(agg_key(id, chosen, size_bucket(w.n))) : nullptr;
  if (slot != nullptr && !slot->count_and_time())
    return dispatch(chosen, std::forward<F0>(f0), std::forward<F>(rest)...);
  const double p_timed = slot != nullptr ? slot->p() : 1.0;
  const int64_t t0 = ticks(hub);
  auto finish = [&](int64_t t1) {
    const uint64_t dt = t1 > t0 ? static_cast<uint64_t>(t1 - t0) : 0;
    if (slot != nullptr) {
      uint32_t weight = 1;
      if (p_timed < 1.0) {  // 1/p, rounded up with probability its fraction
        const double inv = 1.0 / p_timed;
        weight = static_cast<uint32_t>(inv);
        if (static_cast<double>(ring->next()) * 0x1p-64 < inv - weight) ++weight;
      }
      const double u = (static_cast<double>(ring->next() >> 11) + 1.0) * 0x1p-53;  // (0, 1]
      slot->timed(dt, weight, static_cast<double>(dt) * hub->time_share_per_tick.load(std::memory_order_relaxed), u);
    }
    const int level = ring->level();
    if (ring->next() > (hub->sample_below.load(std::memory_order_relaxed) >> level)) return;
    Record r;
    r.start_ticks = t0;
    r.latency_ticks = static_cast<int64_t>(dt);
    r.site = id;
    r.variant = static_cast<int16_t>(chosen);
    r.ndim = w.ndim;
    r.explore = explored ? 1 : 0;
    for (int k = 0; k < kMaxDims; ++k) r.shape[k] = w.shape[k];
    r.n_elements = w.n;
    r.threads = threaded.begin()[chosen] ? max_threads() : int16_t(1);
    r.table = static_cast<int16_t>(table);
    r.propensity = propensity;
    r.timed = static_cast<float>(p_timed);
    r.level = static_cast<uint8_t>(level);
    ring->push(r);
  };
  if constexpr (std::is_void_v<R>) {
    dispatch(chosen, std::forward<F0>(f0), std::forward<F>(rest)...);
    finish(ticks(hub));
  } else {
    R out = dispatch(chosen, std::forward<F0>(f0), std::forward<F>(rest)...);
    finish(ticks(hub));
    return out;
  }
}

}  // namespace ep::tele
