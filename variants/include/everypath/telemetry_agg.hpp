// Exact per-thread aggregates beside the sampled raw records: for every (site, variant,
// size bucket) a thread runs, the count, sum, min, max and a log-linear latency histogram of
// every call (none is sampled away, none is dropped when the raw ring is full).
//
// The histogram bins a latency v (ticks or ns) as HDR/OpenTelemetry-style log-linear buckets:
// v < 64 exactly, above that 64 sub-buckets per power of two, so a bucket's midpoint is within
// 1/128 (0.78%) of any value in it. Values of 2^40 and more share the last bucket (the exact
// max is kept beside). Relative error of a quantile read from the histogram: <= 0.78% where the
// clock counts ns, <= 1.6% where ticks are TSC cycles (re-binned to ns when drained).
//
// Timing a call costs two clock reads (~15 ns on bare metal, ~80 ns here in a VM): on a
// sub-microsecond kernel that is several percent. Every call is counted; a call is timed with
// probability p = min(1, budget * latency / clock cost) updated from the key's last timed call,
// so timing costs at most `budget` (default 1%) of the calls' own time; calls of 100x the clock
// cost and more are all timed. A timed call then counts 1/p times (stochastically rounded) in
// the histogram and the sum, unbiased estimates of every call's; min and max are the timed
// calls'. All exact where every call was timed (`timed == count`).
//
// Memory is fixed (one calloc'ed table per thread, pages committed as slots are used) and the
// hot path takes no lock and allocates nothing: the calling thread is the only writer, so
// counters are plain relaxed load + store; the host's drain reads them as cumulative values and
// keeps the previous reading (counts per drain interval are differences). min and max are the
// exception: the drain swaps them back to "none".
//
// A full table gives a slot whose counts the drain has read in full (no call since) to a new key:
// a long-lived thread whose keys change over time (new functions, new sizes) keeps attributing
// every call. Only a thread running more than kAggSlots keys within one drain interval counts
// the excess unattributed (`overflow`). The drain and an eviction exclude each other by a
// two-flag handshake (Dekker), so the drain never reads a slot half re-keyed.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>

namespace ep::tele {

constexpr int kSubBits = 6;  // 64 sub-buckets per power of two
constexpr int kSub = 1 << kSubBits;
constexpr int kMaxOctave = 40;  // values >= 2^40 land in the last bucket
constexpr int kBins = kSub * (kMaxOctave - kSubBits + 1);
#if defined(EP_SINGLE_THREADED)
constexpr int kAggLog = 6;  // wasm: linear memory is committed, keep the table small
#else
constexpr int kAggLog = 8;  // distinct (site, variant, size bucket) keys per thread
#endif
constexpr int kAggSlots = 1 << kAggLog;

constexpr int bin_of(uint64_t v) noexcept {
  if (v < static_cast<uint64_t>(kSub)) return static_cast<int>(v);
  v = std::min<uint64_t>(v, (uint64_t{1} << kMaxOctave) - 1);
  const int e = 63 - std::countl_zero(v);  // >= kSubBits
  return kSub * (e - kSubBits + 1) + static_cast<int>((v >> (e - kSubBits)) & (kSub - 1));
}

constexpr uint64_t bin_low(int i) noexcept {  // smallest value of bucket i
  if (i < kSub) return static_cast<uint64_t>(i);
  const int e = i / kSub + kSubBits - 1, sub = i % kSub;
  return static_cast<uint64_t>(kSub + sub) << (e - kSubBits);
}

constexpr uint64_t bin_width(int i) noexcept {
  return i < kSub ? 1 : uint64_t{1} << (i / kSub - 1);
}

static_assert(bin_of(63) == 63 && bin_of(64) == 64 && bin_of(127) == 127 && bin_of(128) == 128);
static_assert(bin_low(bin_of(1000)) <= 1000 && 1000 < bin_low(bin_of(1000)) + bin_width(bin_of(1000)));
static_assert(bin_of(~uint64_t{0}) == kBins - 1);

// size bucket of a work size: b means n in [2^(b-1), 2^b); 0 means n == 0
constexpr uint8_t size_bucket(int64_t n) noexcept {
  return n <= 0 ? 0 : static_cast<uint8_t>(std::bit_width(static_cast<uint64_t>(n)));
}

// (site, variant, size bucket) as a non-zero key (0 marks a free slot)
constexpr uint64_t agg_key(int32_t site, int variant, uint8_t bucket) noexcept {
  return (static_cast<uint64_t>(static_cast<uint32_t>(site) + 1u) << 24) |
         (static_cast<uint64_t>(static_cast<uint16_t>(variant)) << 8) | bucket;
}

struct AggSlot {
  uint64_t key;        // 0: free; set by the owning thread (again when the slot is evicted)
  uint64_t calls;      // cumulative: every call, timed or not
  uint64_t sum;        // cumulative latency of the timed calls
  uint64_t min_inv;    // ~min since the last drain (0: none yet)
  uint64_t max_plus1;  // max + 1 since the last drain (0: none yet)
  uint64_t next;       // the call number (calls) to time next: the gaps are geometric, Bernoulli(p) per call
  double q;            // 1 - p, p: the probability each call of this key is timed now (0: every call)
  uint64_t ntimed;     // cumulative: the calls that were timed
  uint64_t seen_calls, seen_timed;  // written by the drain: calls and ntimed as it last read them
  uint32_t bins[kBins];  // cumulative weighted counts (an interval holds < 2^32 of one key)

  // (not const: atomic_ref<const T> is C++26, libc++ refuses it)
  double p() noexcept { return 1.0 - std::atomic_ref<double>(q).load(std::memory_order_relaxed); }
  // count this call; true: time it (one load, one store and a compare on the untimed path)
  bool count_and_time() noexcept {
    std::atomic_ref<uint64_t> c(calls);
    const uint64_t n = c.load(std::memory_order_relaxed) + 1;
    c.store(n, std::memory_order_relaxed);
    return n > std::atomic_ref<uint64_t>(next).load(std::memory_order_relaxed);
  }

  // a timed call's latency, standing for `weight` calls (1/p stochastically rounded: the
  // histogram and sum estimate every call's without bias; exact when every call is timed);
  // p_next: the probability to time each of this key's calls from now on, u a uniform draw in (0, 1]
  void timed(uint64_t v, uint32_t weight, double p_next, double u) noexcept {
    bump(bins[bin_of(v)], weight);
    bump(sum, v * weight);
    std::atomic_ref<uint64_t> mn(min_inv), mx(max_plus1), nx(next), nt(ntimed);
    if (~v > mn.load(std::memory_order_relaxed)) mn.store(~v, std::memory_order_relaxed);
    if (v + 1 > mx.load(std::memory_order_relaxed)) mx.store(v + 1, std::memory_order_relaxed);
    // last, releasing the bins, sum, min and max: a drain that reads this count reads them too
    nt.store(nt.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    p_next = std::max(p_next, 1e-6);  // at least one call in a million timed: every key keeps a latency sample
    std::atomic_ref<double>(q).store(p_next >= 1.0 ? 0.0 : 1.0 - p_next, std::memory_order_relaxed);
    // the untimed calls before the next timed one: Geometric(p_next), i.e. each call timed with p_next
    const uint64_t gap = p_next >= 1.0 ? 0 : static_cast<uint64_t>(std::min(std::floor(std::log(u) / std::log1p(-p_next)), 0x1p32));
    nx.store(std::atomic_ref<uint64_t>(calls).load(std::memory_order_relaxed) + gap, std::memory_order_relaxed);
  }

  template <class T>
  static void bump(T& x, T by) noexcept {  // single writer: no read-modify-write instruction needed
    std::atomic_ref<T> a(x);
    a.store(a.load(std::memory_order_relaxed) + by, std::memory_order_relaxed);
  }
};

struct AggTable {
  AggSlot slot[kAggSlots];
  uint64_t overflow;  // calls of keys beyond kAggSlots (cumulative; counted, not attributed)
  uint32_t evicting;    // the owning thread is re-keying a slot
  uint32_t harvesting;  // the drain is reading the table

  // this key's slot (claimed on first use, or an idle slot evicted for it when the table is full);
  // nullptr when none is free or idle (the call is counted in overflow)
  AggSlot* find(uint64_t key) noexcept {
    const uint32_t home = static_cast<uint32_t>((key * 0x9E3779B97F4A7C15ull) >> (64 - kAggLog));
    uint32_t i = home;
    for (int probe = 0; probe < kAggSlots; ++probe, i = (i + 1) & (kAggSlots - 1)) {
      AggSlot& s = slot[i];
      std::atomic_ref<uint64_t> k(s.key);
      const uint64_t cur = k.load(std::memory_order_relaxed);
      if (cur == key) return &s;
      if (cur == 0) {
        k.store(key, std::memory_order_release);
        return &s;
      }
    }
    if (AggSlot* s = evict(home, key)) return s;
    AggSlot::bump(overflow, uint64_t{1});
    return nullptr;
  }

 private:
  static bool idle(AggSlot& s) noexcept {  // every count of this slot read by the drain
    auto ld = [](uint64_t& x) { return std::atomic_ref<uint64_t>(x).load(std::memory_order_acquire); };
    return ld(s.calls) == ld(s.seen_calls) && ld(s.ntimed) == ld(s.seen_timed);
  }

  // the first idle slot from the key's home, cleared and given the key (no slot ever empties, so
  // every other key's probe sequence stays intact); not while the drain reads
  AggSlot* evict(uint32_t home, uint64_t key) noexcept {
    std::atomic_ref<uint32_t> mine(evicting), theirs(harvesting);
    mine.store(1, std::memory_order_seq_cst);
    AggSlot* found = nullptr;
    if (theirs.load(std::memory_order_seq_cst) == 0) {
      for (int probe = 0, i = static_cast<int>(home); probe < kAggSlots && found == nullptr;
           ++probe, i = (i + 1) & (kAggSlots - 1))
        if (idle(slot[i])) found = &slot[i];
      if (found != nullptr) {
        AggSlot& s = *found;
        for (uint64_t* f : {&s.calls, &s.sum, &s.min_inv, &s.max_plus1, &s.next, &s.ntimed, &s.seen_calls, &s.seen_timed})
          std::atomic_ref<uint64_t>(*f).store(0, std::memory_order_relaxed);
        std::atomic_ref<double>(s.q).store(0.0, std::memory_order_relaxed);
        for (uint32_t& b : s.bins)
          if (std::atomic_ref<uint32_t>(b).load(std::memory_order_relaxed) != 0)
            std::atomic_ref<uint32_t>(b).store(0, std::memory_order_relaxed);
        std::atomic_ref<uint64_t>(s.key).store(key, std::memory_order_relaxed);
      }
    }
    mine.store(0, std::memory_order_release);
    return found;
  }
};

}  // namespace ep::tele
