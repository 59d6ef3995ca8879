#include "runtime/launch_queue.h"

#include <chrono>
#include <exception>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "base/errors.h"
#include "core/backend.h"

namespace tsgpu {

namespace {

/** One step of a busy wait: tells the core another thread may need it (the sibling hyperthread runs on). */
inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

/** Asks for the memory a queued call's kernel will read, while the previous call is being launched. */
void prefetchCall(const OpCall& call) {
  const auto lines = [](const void* p, size_t bytes) {
    const char* c = static_cast<const char*>(p);
    for (size_t i = 0; i < bytes; i += 64) __builtin_prefetch(c + i);
  };
  lines(&call, sizeof(OpCall));
  lines(call.outputs.data(), call.outputs.size() * sizeof(TensorView));
  lines(call.inputs.data(), call.inputs.size() * sizeof(TensorView));
  lines(call.attrs.data(), call.attrs.size() * sizeof(AttrValue));
}

}  // namespace

LaunchQueue::LaunchQueue(Backend* backend, RunFn run) : backend_(backend), run_(run), slots_(kSlots) {
  thread_ = std::thread([this] { loop(); });
}

LaunchQueue::~LaunchQueue() { stop(); }

void LaunchQueue::stop() {
  try {
    drain();
  } catch (...) {
    // The error of a queued call has nobody left to be reported to.
  }
  std::lock_guard<std::mutex> lock(submitMutex_);  // no submit while the thread ends
  stop_.store(true, std::memory_order_seq_cst);
  {
    std::lock_guard<std::mutex> sleepLock(sleepMutex_);
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void LaunchQueue::submit(const OpCall& call) {
  std::lock_guard<std::mutex> lock(submitMutex_);
  rethrowFailure();
  if (stop_.load(std::memory_order_acquire)) {  // stopped (process exit): run it here, in order
    OpCall copy = call;
    if (backend_ != nullptr) backend_->activate();
    run_(copy);
    return;
  }
  const uint64_t h = head_.load(std::memory_order_relaxed);
  while (h - tail_.load(std::memory_order_acquire) >= kSlots) std::this_thread::yield();  // full
  slots_[h % kSlots] = call;  // copies the views and attributes; the vectors reuse their capacity
  head_.store(h + 1, std::memory_order_seq_cst);
  if (sleeping_.load(std::memory_order_seq_cst)) {
    std::lock_guard<std::mutex> sleepLock(sleepMutex_);
    wake_.notify_one();
  }
}

void LaunchQueue::drain() {
  const uint64_t target = head_.load(std::memory_order_acquire);
  while (tail_.load(std::memory_order_acquire) < target) std::this_thread::yield();
  std::lock_guard<std::mutex> lock(submitMutex_);
  rethrowFailure();
}

void LaunchQueue::rethrowFailure() {
  if (!failed_.load(std::memory_order_acquire)) return;  // the common case, without the lock
  std::string code, message;
  {
    std::lock_guard<std::mutex> lock(failureMutex_);
    if (!failed_.load(std::memory_order_relaxed)) return;
    failed_.store(false, std::memory_order_release);
    code.swap(failureCode_);
    message.swap(failureMessage_);
  }
  throw Error(code, message + " (a queued op; it failed when its kernel was launched)");
}

void LaunchQueue::loop() {
  bool activated = false;
  for (;;) {
    const uint64_t t = tail_.load(std::memory_order_relaxed);
    if (t == head_.load(std::memory_order_acquire)) {
      // Poll a little (the next op of a loop comes within microseconds), then sleep.
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinMicros);
      bool work = false;
      while (!work && std::chrono::steady_clock::now() < until) {
        for (int k = 0; k < 16 && !work; ++k) {
          relax();
          work = t != head_.load(std::memory_order_acquire);
        }
      }
      if (!work) {
        std::unique_lock<std::mutex> lock(sleepMutex_);
        sleeping_.store(true, std::memory_order_seq_cst);
        wake_.wait_for(lock, std::chrono::milliseconds(100), [&] {
          return stop_.load(std::memory_order_seq_cst) || t != head_.load(std::memory_order_seq_cst);
        });
        sleeping_.store(false, std::memory_order_seq_cst);
      }
      if (stop_.load(std::memory_order_seq_cst) && t == head_.load(std::memory_order_acquire)) return;
      continue;
    }
    OpCall& call = slots_[t % kSlots];
    if (t + 1 < head_.load(std::memory_order_acquire)) prefetchCall(slots_[(t + 1) % kSlots]);
    try {
      if (!activated && backend_ != nullptr) backend_->activate();
      activated = true;
      run_(call);
    } catch (const Error& e) {
      std::lock_guard<std::mutex> lock(failureMutex_);
      if (!failed_.load(std::memory_order_relaxed)) {
        failureCode_ = e.code();
        failureMessage_ = e.what();
        failed_.store(true, std::memory_order_release);
      }
    } catch (const std::exception& e) {
      std::lock_guard<std::mutex> lock(failureMutex_);
      if (!failed_.load(std::memory_order_relaxed)) {
        failureCode_ = "TSGPU_INTERNAL";
        failureMessage_ = std::string(call.name()) + ": " + e.what();
        failed_.store(true, std::memory_order_release);
      }
    }
    tail_.store(t + 1, std::memory_order_release);
  }
}

}  // namespace tsgpu
