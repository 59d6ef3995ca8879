// Tests of the CPU thread pool (native/src/runtime/thread_pool.h).
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "harness.h"
#include "runtime/thread_pool.h"

using tsgpu::getNumThreads;
using tsgpu::parallel_for;
using tsgpu::setNumThreads;

namespace {

/** Restores the thread count a test changed. */
struct ThreadsGuard {
  int saved = getNumThreads();
  ~ThreadsGuard() { setNumThreads(saved); }
};

/** Counts how often each index of [0, n) is visited by parallel_for. */
std::vector<int> visits(int64_t n, int64_t grain) {
  std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
  parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) hits[static_cast<size_t>(i)].fetch_add(1);
  });
  std::vector<int> out;
  for (auto& h : hits) out.push_back(h.load());
  return out;
}

}  // namespace

TEST(thread_pool_visits_every_index_once) {
  ThreadsGuard guard;
  for (int threads : {1, 2, 3, 4, 7}) {
    setNumThreads(threads);
    for (int64_t n : {1, 2, 5, 63, 64, 1000, 100003}) {
      for (int64_t grain : {0, 1, 7, 64, 5000}) {
        std::vector<int> v = visits(n, grain);
        bool ok = true;
        for (int x : v) ok = ok && x == 1;
        if (!ok) harness::fail(__FILE__, __LINE__, "threads " + std::to_string(threads) + " n " + std::to_string(n) + " grain " + std::to_string(grain));
      }
    }
  }
}

TEST(thread_pool_offset_ranges_and_empty_range) {
  std::atomic<int> calls{0};
  parallel_for(10, 10, 1, [&](int64_t, int64_t) { calls++; });
  parallel_for(10, 3, 1, [&](int64_t, int64_t) { calls++; });
  CHECK_EQ(calls.load(), 0);
  std::atomic<int64_t> sum{0};
  parallel_for(-50, 150, 3, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) sum += i;
  });
  CHECK_EQ(sum.load(), int64_t(9900));  // sum of -50..149
}

TEST(thread_pool_chunk_count_and_threads_used) {
  ThreadsGuard guard;
  setNumThreads(4);
  CHECK_EQ(getNumThreads(), 4);
  CHECK_EQ(tsgpu::parallelChunkCount(0, 1000, 100), int64_t(4));
  CHECK_EQ(tsgpu::parallelChunkCount(0, 250, 100), int64_t(3));
  CHECK_EQ(tsgpu::parallelChunkCount(0, 100, 100), int64_t(1));
  CHECK_EQ(tsgpu::parallelChunkCount(5, 5, 1), int64_t(1));
  std::mutex m;
  std::set<std::thread::id> ids;
  std::atomic<int> chunks{0};
  parallel_for(0, 4, 1, [&](int64_t, int64_t) {
    chunks++;
    CHECK(tsgpu::inParallelRegion());
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::lock_guard<std::mutex> lk(m);
    ids.insert(std::this_thread::get_id());
  });
  CHECK_EQ(chunks.load(), 4);
  CHECK(ids.size() >= 2);  // the chunks sleep, so the workers take some of them
  CHECK(!tsgpu::inParallelRegion());
}

TEST(thread_pool_nested_call_runs_inline) {
  ThreadsGuard guard;
  setNumThreads(3);
  std::atomic<int> bad{0};
  std::atomic<int64_t> total{0};
  parallel_for(0, 3, 1, [&](int64_t b, int64_t e) {
    const auto me = std::this_thread::get_id();
    if (tsgpu::parallelChunkCount(0, 1000, 1) != 1) bad++;
    parallel_for(0, 1000, 1, [&](int64_t ib, int64_t ie) {
      if (std::this_thread::get_id() != me || ib != 0 || ie != 1000) bad++;
      total += (ie - ib) * (e - b);
    });
    CHECK_THROWS(setNumThreads(2), std::logic_error, "inside a parallel region");
  });
  CHECK_EQ(bad.load(), 0);
  CHECK_EQ(total.load(), int64_t(3000));
  CHECK_EQ(getNumThreads(), 3);
}

TEST(thread_pool_exception_reaches_caller_and_pool_survives) {
  ThreadsGuard guard;
  setNumThreads(4);
  std::atomic<int> ran{0};
  CHECK_THROWS(parallel_for(0, 400, 1, [&](int64_t b, int64_t) {
                 ran++;
                 if (b >= 200) throw std::runtime_error("chunk at " + std::to_string(b) + " failed");
               }),
               std::runtime_error, "failed");
  CHECK_EQ(ran.load(), 4);  // every chunk still ran
  std::vector<int> v = visits(10000, 10);
  int ok = 0;
  for (int x : v) ok += x == 1;
  CHECK_EQ(ok, 10000);
}

TEST(thread_pool_set_num_threads_validates) {
  ThreadsGuard guard;
  CHECK_THROWS(setNumThreads(0), std::invalid_argument, "got 0");
  CHECK_THROWS(setNumThreads(-3), std::invalid_argument, "expected a positive integer for n");
  setNumThreads(1);
  CHECK_EQ(getNumThreads(), 1);
  CHECK_EQ(tsgpu::parallelChunkCount(0, 1000000, 1), int64_t(1));
  setNumThreads(6);
  CHECK_EQ(getNumThreads(), 6);
}

TEST(thread_pool_reduce_is_deterministic) {
  ThreadsGuard guard;
  std::vector<float> x(1 << 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1.0f / static_cast<float>(i + 1);
  auto run = [&] {
    return tsgpu::parallel_reduce<float>(
        0, static_cast<int64_t>(x.size()), 1024, 0.0f,
        [&](int64_t b, int64_t e) {
          float s = 0;
          for (int64_t i = b; i < e; ++i) s += x[static_cast<size_t>(i)];
          return s;
        },
        [](float a, float b) { return a + b; });
  };
  setNumThreads(4);
  float first = run();
  for (int i = 0; i < 20; ++i) CHECK_EQ(run(), first);
  CHECK(first > 11.6f && first < 11.7f);  // harmonic number H(65536) = 11.667…
  CHECK_EQ(tsgpu::parallel_reduce<int>(3, 3, 1, 7, [](int64_t, int64_t) { return 1; }, [](int a, int b) { return a + b; }), 7);
}

TEST(thread_pool_concurrent_callers) {
  ThreadsGuard guard;
  setNumThreads(3);
  std::atomic<int> wrong{0};
  auto body = [&] {
    for (int r = 0; r < 200; ++r) {
      std::vector<int> v = visits(777, 16);
      for (int x : v) wrong += x != 1;
    }
  };
  std::thread a(body), b(body);
  body();
  a.join();
  b.join();
  CHECK_EQ(wrong.load(), 0);
}
