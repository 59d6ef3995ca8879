// LaunchQueue: the kernel calls of one device, run in order by a thread of
// their own, so that the JavaScript thread does not wait while a kernel is
// launched.
//
// Why: launching one CUDA kernel costs 4–5 µs of host time on an H200 host
// (bench/cuda_launch_floor.cu), as much as all the rest of a small op. With
// the launch on a second thread, the JavaScript thread checks, plans and
// allocates the next op while the previous one is launched, and a loop of
// small ops runs at the launch rate.
//
// What may be queued (the binding decides, see op_binding.cc): calls whose
// kernel only reads the call and launches work on the device's stream — no
// allocation, no generator, no host reads — and that have run once inline
// with the same op and dtypes without an error, so that argument errors stay
// synchronous. Everything else that touches the device first waits for the
// queue (drain()): other ops, copies, synchronize, returning memory to the
// driver (QueuedBackend does that for the backend's methods).
//
// Memory stays right without waiting: the JavaScript thread frees and
// allocates in program order, and the queue launches in that order onto the
// device's one stream, so a block freed after op A and reused by op B is
// written by B's kernel only after A's has run.
//
// A queued call that fails (a launch error) is reported by the next submit()
// or drain() on this device, as the error of that op, then forgotten.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/op_registry.h"

namespace tsgpu {

class Backend;

class LaunchQueue {
 public:
  /** Runs one call (runKernel in the runtime; tests pass their own). */
  using RunFn = void (*)(OpCall&);

  /** Calls the queue holds before submit() waits for room. */
  static constexpr size_t kSlots = 1024;
  /** How long the thread polls for work before it sleeps, in microseconds. */
  static constexpr int kSpinMicros = 50;

  /** A queue for `backend`'s device (activated on the queue's thread before its first call), running calls with `run`. */
  LaunchQueue(Backend* backend, RunFn run);
  /** Waits for every queued call and stops the thread (stop()). */
  ~LaunchQueue();
  LaunchQueue(const LaunchQueue&) = delete;
  LaunchQueue& operator=(const LaunchQueue&) = delete;

  /**
   * Copies `call` into the queue and returns (waits only while kSlots calls
   * are queued). Throws the error of a queued call that failed before. Any
   * JavaScript thread may submit.
   */
  void submit(const OpCall& call);

  /** Returns once every submitted call has run; throws the error of one that failed. */
  void drain();

  /**
   * Waits for every queued call, then ends the thread; later submits run their call on the calling thread.
   * Called by the destructor and, for every device's queue, at process exit (before the CUDA runtime's own
   * exit handlers), so that no launch is in flight while the runtime is torn down.
   */
  void stop();

  /** Calls submitted so far (for tests and diagnostics). */
  uint64_t submitted() const { return head_.load(std::memory_order_acquire); }

 private:
  void loop();
  void rethrowFailure();

  Backend* backend_;  // activated on the queue's thread
  RunFn run_;
  std::vector<OpCall> slots_;             // ring of kSlots calls; vectors keep their capacity
  // The three words both threads touch each have a cache line, so that a store to one does not take the
  // others' line away from the thread reading them.
  alignas(64) std::atomic<uint64_t> head_{0};      // calls submitted (the next slot to fill is head_ % kSlots)
  alignas(64) std::atomic<uint64_t> tail_{0};      // calls run (the next slot to run is tail_ % kSlots)
  alignas(64) std::atomic<bool> sleeping_{false};  // the thread waits on wake_
  std::atomic<bool> stop_{false};         // the destructor asks the thread to end
  std::mutex submitMutex_;                // one submitter at a time (several JavaScript threads)
  std::mutex sleepMutex_;                 // guards the thread's wait on wake_
  std::condition_variable wake_;          // new work or stop_
  std::atomic<bool> failed_{false};       // a queued call threw (written under failureMutex_, read without it)
  std::mutex failureMutex_;               // guards failed_'s writes and the two fields below
  std::string failureCode_;               // the error code of the call that threw (TSGPU_CUDA, TSGPU_ARG, ...)
  std::string failureMessage_;            // its message, starting with the op's name
  std::thread thread_;                    // started by the constructor
};

}  // namespace tsgpu
