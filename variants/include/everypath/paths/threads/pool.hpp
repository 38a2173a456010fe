// The threads path's fork/join primitive, portable: OpenMP where the build has it
// (host builds pass -fopenmp: OMP_NUM_THREADS / OMP_WAIT_POLICY apply as before),
// else a small persistent pool over std::thread (cross targets built with zig have
// no OpenMP runtime), else (targets without threads: wasm32-wasi) serial.
//
//   max_threads()                  threads a parallel region may use
//   parallel(nt, f)                f(t) for every t in [0, nt), on nt threads (t = 0: the caller)
//   parallel_for(b, e, nt, f)      f(i) for every i in [b, e), OpenMP's schedule(static) split
//                                  over nt threads (one contiguous range per thread)
//   parallel_for_simd(b, e, nt, f) the same, iterations also free to run in SIMD lanes
//                                  (OpenMP's `parallel for simd`: f must be element-wise)
//   static_range(n, t, nt)         thread t's share [lo, hi) of [0, n) under that split
//
// Results never depend on which of these runs the code: every site decides its own
// split from nt, and a share runs the same instructions wherever it runs.
//
// The std::thread pool: workers are started lazily (the first region that needs them)
// and once per process (per shared object: each unit has its own pool, since generated
// code has hidden visibility), sleep on a condition variable between regions, and are
// never joined (the pool outlives static destructors, as block_cache does). The caller
// runs share 0 and waits for the rest. A region started while the pool is busy (from
// inside a worker, from share 0 on the caller, or by a second calling thread) runs its
// shares serially on the calling thread, in order. Threads: EVERYPATH_THREADS (a
// positive integer) when set, else std::thread::hardware_concurrency(). An exception
// leaving f on any thread is re-thrown on the caller once every share has finished
// (the lowest-numbered thread's); without exceptions (wasm) f reports through ep::raise,
// which does not return. Under OpenMP no exception may leave f (the runtime terminates).
// Workers have 8 MiB stacks where threads are POSIX (as glibc's, whatever the libc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>

#include "../../config.hpp"

#if defined(_OPENMP)
#include <omp.h>
#elif !defined(EP_SINGLE_THREADED)
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>
#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>  // workers get a stack as large as a main thread's (musl's default is 128 KiB)
#define EP_POOL_PTHREADS 1
#endif
#endif

namespace ep::threads {

struct Range {
  int64_t lo, hi;
};

// OpenMP's schedule(static) without a chunk size (libgomp's split): the first n % nt
// threads get one element more
inline Range static_range(int64_t n, int t, int nt) {
  if (n <= 0 || nt <= 0) return {0, 0};
  int64_t q = n / nt, r = n % nt;
  if (t < r) {
    ++q;
    r = 0;
  }
  const int64_t lo = q * t + r;
  return {lo, lo + q};
}

#if defined(_OPENMP)

inline int max_threads() noexcept { return omp_get_max_threads(); }

template <class F>
void parallel(int nt, F&& f) {
#pragma omp parallel num_threads(nt)
  {
    // a team smaller than asked for (nested region, thread limit) runs the missing shares
    const int k = omp_get_num_threads();
    for (int t = omp_get_thread_num(); t < nt; t += k) f(t);
  }
}

template <class F>
void parallel_for(int64_t begin, int64_t end, int nt, F&& f) {
#pragma omp parallel for schedule(static) num_threads(nt)
  for (int64_t i = begin; i < end; ++i) f(i);
}

template <class F>
void parallel_for_simd(int64_t begin, int64_t end, int nt, F&& f) {
#pragma omp parallel for simd schedule(static) num_threads(nt)
  for (int64_t i = begin; i < end; ++i) f(i);
}

#elif defined(EP_SINGLE_THREADED)

inline int max_threads() noexcept { return 1; }

template <class F>
void parallel(int nt, F&& f) {
  for (int t = 0; t < nt; ++t) f(t);
}

template <class F>
void parallel_for(int64_t begin, int64_t end, int, F&& f) {
  for (int64_t i = begin; i < end; ++i) f(i);
}

template <class F>
void parallel_for_simd(int64_t begin, int64_t end, int nt, F&& f) {
  parallel_for(begin, end, nt, f);
}

#else

namespace pool_detail {

inline int configured_threads() noexcept {
  if (const char* s = std::getenv("EVERYPATH_THREADS")) {
    char* end = nullptr;
    const long v = std::strtol(s, &end, 10);
    if (end != s && *end == 0 && v > 0) return v > 4096 ? 4096 : static_cast<int>(v);
  }
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(h > 4096 ? 4096 : h);
}

class Pool {
 public:
  // a region of nt shares: run(ctx, t) for each t; false when it ran serially (pool busy)
  bool try_run(int nt, void (*run)(void*, int), void* ctx) {
    if (in_region()) return false;  // nested: this thread already runs a share
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;  // another thread's region holds the pool
    std::unique_lock<std::mutex> g(mu_);
    while (workers_ + 1 < nt && workers_ < kMaxWorkers && start_worker(workers_ + 1)) ++workers_;
    team_ = std::min(nt, workers_ + 1);  // fewer threads than shares (none could start): shares stride
    shares_ = nt;
    run_ = run;
    ctx_ = ctx;
    pending_ = team_ - 1;
#if defined(EP_HAVE_CXX_EXCEPTIONS)
    errors_.assign(static_cast<size_t>(team_), nullptr);
#endif
    ++generation_;
    g.unlock();
    wake_.notify_all();
    share(0);
    g.lock();
    done_.wait(g, [this] { return pending_ == 0; });
    run_ = nullptr;
#if defined(EP_HAVE_CXX_EXCEPTIONS)
    std::exception_ptr first;
    for (auto& e : errors_)
      if (e && !first) first = e;
    errors_.clear();
    g.unlock();
    busy.unlock();
    if (first) std::rethrow_exception(first);
#endif
    return true;
  }

  static bool& in_region() {
    static thread_local bool flag = false;
    return flag;
  }

 private:
  static constexpr int kMaxWorkers = 255;
  static constexpr size_t kStack = size_t(8) << 20;  // glibc's default (ulimit -s), as libgomp's threads
  std::mutex busy_;  // held by the thread running a region
  std::mutex mu_;
  std::condition_variable wake_, done_;
  int workers_ = 0;  // started, detached, never stopped
  uint64_t generation_ = 0;
  int team_ = 0, shares_ = 0, pending_ = 0;
  void (*run_)(void*, int) = nullptr;
  void* ctx_ = nullptr;
#if defined(EP_HAVE_CXX_EXCEPTIONS)
  std::vector<std::exception_ptr> errors_;
#endif

  // thread j of the team runs shares j, j + team, ... (one share each unless nt > team)
  void share(int j) {
    bool& flag = in_region();
    flag = true;
#if defined(EP_HAVE_CXX_EXCEPTIONS)
    try {
      for (int t = j; t < shares_; t += team_) run_(ctx_, t);
    } catch (...) {
      errors_[static_cast<size_t>(j)] = std::current_exception();
    }
#else
    for (int t = j; t < shares_; t += team_) run_(ctx_, t);
#endif
    flag = false;
  }

  // worker `id`, detached; false when the system refuses a thread
  bool start_worker(int id) {
#if defined(EP_POOL_PTHREADS)
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return false;
    pthread_attr_setstacksize(&attr, kStack);
    auto* arg = new std::pair<Pool*, int>(this, id);
    pthread_t th;
    const int rc = pthread_create(&th, &attr, &Pool::entry, arg);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
      delete arg;
      return false;
    }
    pthread_detach(th);
    return true;
#elif defined(EP_HAVE_CXX_EXCEPTIONS)
    try {
      std::thread([this, id] { work(id); }).detach();
      return true;
    } catch (...) {  // std::system_error: no thread
      return false;
    }
#else
    std::thread([this, id] { work(id); }).detach();
    return true;
#endif
  }

#if defined(EP_POOL_PTHREADS)
  static void* entry(void* p) {
    auto* arg = static_cast<std::pair<Pool*, int>*>(p);
    Pool* self = arg->first;
    const int id = arg->second;
    delete arg;
    self->work(id);
    return nullptr;
  }
#endif

  [[noreturn]] void work(int id) {
    uint64_t seen = 0;
    std::unique_lock<std::mutex> g(mu_);
    seen = generation_ - 1;  // started for the region being set up now
    while (true) {
      wake_.wait(g, [&] { return generation_ != seen; });
      seen = generation_;
      if (id >= team_) continue;
      g.unlock();
      share(id);
      g.lock();
      if (--pending_ == 0) done_.notify_one();
    }
  }
};

// never destroyed: workers sleep in it until the process ends
inline Pool& pool() {
  static Pool* p = new Pool();
  return *p;
}

}  // namespace pool_detail

inline int max_threads() noexcept {
  static const int n = pool_detail::configured_threads();
  return n;
}

template <class F>
void parallel(int nt, F&& f) {
  if (nt <= 1) {
    if (nt == 1) f(0);
    return;
  }
  using Fn = std::remove_reference_t<F>;
  auto run = [](void* ctx, int t) { (*static_cast<Fn*>(ctx))(t); };
  void* ctx = const_cast<void*>(static_cast<const void*>(std::addressof(f)));
  if (!pool_detail::pool().try_run(nt, run, ctx))
    for (int t = 0; t < nt; ++t) f(t);  // nested or concurrent: serially, in share order
}

template <class F>
void parallel_for(int64_t begin, int64_t end, int nt, F&& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  if (nt > n) nt = static_cast<int>(n);
  parallel(nt, [&](int t) {
    const Range r = static_range(n, t, nt);
    for (int64_t i = begin + r.lo; i < begin + r.hi; ++i) f(i);
  });
}

// as OpenMP's `simd`: iterations are independent, so each thread's range may vectorise
// (g++ then also uses the libmvec declarations of simd_math.hpp, as the OpenMP build does)
template <class F>
void parallel_for_simd(int64_t begin, int64_t end, int nt, F&& f) {
  const int64_t n = end - begin;
  if (n <= 0) return;
  if (nt > n) nt = static_cast<int>(n);
  parallel(nt, [&](int t) {
    const Range r = static_range(n, t, nt);
    const int64_t lo = begin + r.lo, hi = begin + r.hi;
#if defined(__clang__)
#pragma clang loop vectorize(assume_safety)
#elif defined(__GNUC__)
#pragma GCC ivdep
#endif
    for (int64_t i = lo; i < hi; ++i) f(i);
  });
}

#endif

}  // namespace ep::threads
