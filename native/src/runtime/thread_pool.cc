// The process-wide CPU thread pool behind parallel_for (see thread_pool.h).
//
// Workers sleep on a condition variable and spin briefly after each region so
// that back-to-back regions (a kernel's consecutive passes) skip the futex
// wake-up. A region is a Job on the caller's stack; workers reach it through
// `job_` under the pool's mutex and hold a reference while they run chunks,
// and the caller returns only once every reference is dropped, so a late
// worker can never see a finished job.
#include "runtime/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define TSGPU_CPU_RELAX() _mm_pause()
#else
#define TSGPU_CPU_RELAX() std::this_thread::yield()
#endif

namespace tsgpu {
namespace {

thread_local bool tInRegion = false;

/** Rounds of spinning (a pause each) before a thread blocks; about 20-60 µs. */
constexpr int kSpinRounds = 20000;

int threadsFromEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return 0;
  char* endp = nullptr;
  long n = std::strtol(v, &endp, 10);
  if (endp == v || *endp != '\0' || n < 1 || n > 4096) return 0;
  return static_cast<int>(n);
}

int defaultThreads() {
  if (int n = threadsFromEnv("TSGPU_NUM_THREADS")) return n;
  if (int n = threadsFromEnv("OMP_NUM_THREADS")) return n;
  unsigned hc = std::thread::hardware_concurrency();
  return hc == 0 ? 1 : static_cast<int>(hc);
}

struct Job {
  const RangeFn* fn;
  int64_t begin, length, chunks;
  std::atomic<int64_t> next{0};  // the next unclaimed chunk
  std::atomic<int> refs{0};      // workers inside runChunks (changed under the pool mutex)
  std::exception_ptr error;      // the first chunk's exception (guarded by the pool mutex)
};

class Pool {
 public:
  static Pool& get() {
    // Leaked on purpose: workers may still be parked when static destructors run.
    static Pool* pool = new Pool(defaultThreads());
    return *pool;
  }

  int threads() const { return threads_.load(std::memory_order_relaxed); }

  void resize(int n) {
    std::lock_guard<std::mutex> region(regionMutex_);
    if (n == threads()) return;
    stopWorkers();
    startWorkers(n);
  }

  /** Runs a region with `chunks` > 1 chunks; returns false if another region is in flight. */
  bool tryRun(int64_t begin, int64_t length, int64_t chunks, const RangeFn& fn) {
    std::unique_lock<std::mutex> region(regionMutex_, std::try_to_lock);
    if (!region.owns_lock()) return false;
    Job job;
    job.fn = &fn;
    job.begin = begin;
    job.length = length;
    job.chunks = chunks;
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &job;
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    runChunks(job);
    std::unique_lock<std::mutex> lk(m_);
    job_ = nullptr;  // no worker may join from here on
    if (job.refs > 0) {
      lk.unlock();
      for (int i = 0; i < kSpinRounds && job.refs.load(std::memory_order_acquire) > 0; ++i) TSGPU_CPU_RELAX();
      lk.lock();
      done_.wait(lk, [&] { return job.refs == 0; });
    }
    if (job.error) std::rethrow_exception(job.error);
    return true;
  }

 private:
  explicit Pool(int n) { startWorkers(n); }

  /** Claims and runs chunks of `job` until none is left. */
  void runChunks(Job& job) {
    const bool outer = tInRegion;
    tInRegion = true;
    for (;;) {
      const int64_t c = job.next.fetch_add(1, std::memory_order_relaxed);
      if (c >= job.chunks) break;
      const int64_t b = job.begin + job.length * c / job.chunks;
      const int64_t e = job.begin + job.length * (c + 1) / job.chunks;
      try {
        (*job.fn)(b, e);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!job.error) job.error = std::current_exception();
      }
    }
    tInRegion = outer;
  }

  void workerLoop(uint64_t seen) {
    for (;;) {
      for (int i = 0; i < kSpinRounds && generation_.load(std::memory_order_acquire) == seen; ++i) {
        if (stop_.load(std::memory_order_relaxed)) return;
        TSGPU_CPU_RELAX();
      }
      Job* job = nullptr;
      {
        std::unique_lock<std::mutex> lk(m_);
        wake_.wait(lk, [&] { return stop_.load() || generation_.load() != seen; });
        if (stop_.load()) return;
        seen = generation_.load();
        job = job_;
        if (job == nullptr) continue;  // that region already finished
        ++job->refs;
      }
      runChunks(*job);
      {
        std::lock_guard<std::mutex> lk(m_);
        if (--job->refs == 0) done_.notify_all();
      }
    }
  }

  void startWorkers(int n) {
    threads_.store(n);
    stop_.store(false);
    const uint64_t seen = generation_.load();
    for (int i = 1; i < n; ++i) workers_.emplace_back([this, seen] { workerLoop(seen); });
  }

  void stopWorkers() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_.store(true);
    }
    wake_.notify_all();
    for (auto& t : workers_) t.join();
    workers_.clear();
  }

  std::mutex regionMutex_;  // one top-level region at a time; held while resizing
  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<bool> stop_{false};
  std::atomic<int> threads_{1};
  Job* job_ = nullptr;
};

}  // namespace

int64_t parallelChunkCount(int64_t begin, int64_t end, int64_t grain) {
  if (end <= begin || tInRegion) return 1;
  const int64_t length = end - begin;
  const int64_t g = std::max<int64_t>(grain, 1);
  if (length <= g) return 1;
  const int64_t threads = Pool::get().threads();
  return std::min<int64_t>(threads, (length + g - 1) / g);
}

void parallel_for(int64_t begin, int64_t end, int64_t grain, const RangeFn& fn) {
  if (end <= begin) return;
  const int64_t chunks = parallelChunkCount(begin, end, grain);
  if (chunks > 1 && Pool::get().tryRun(begin, end - begin, chunks, fn)) return;
  // One chunk, a nested call, or another thread's region in flight: run inline
  // (not marked as a region, so a one-chunk outer loop leaves inner loops parallel).
  fn(begin, end);
}

void setNumThreads(int n) {
  if (n < 1) throw std::invalid_argument("setNumThreads: expected a positive integer for n, got " + std::to_string(n));
  if (tInRegion) throw std::logic_error("setNumThreads: cannot change the thread count from inside a parallel region");
  Pool::get().resize(n);
}

int getNumThreads() { return Pool::get().threads(); }

bool inParallelRegion() { return tInRegion; }

}  // namespace tsgpu
