// LaunchQueue: calls run in submission order on the queue's thread, drain()
// waits for all of them, a full queue makes submit() wait, a failed call is
// reported once by the next drain() or submit(), and the destructor runs what
// is left. The run function here records calls instead of launching kernels.
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/errors.h"
#include "harness.h"
#include "runtime/launch_queue.h"

using namespace tsgpu;

namespace {

std::mutex gMutex;
std::vector<int64_t> gSeen;        // sequence numbers in the order they ran
std::thread::id gRunner;           // the thread that ran the last call
std::atomic<int> gSlowMicros{0};   // each call sleeps this long
std::atomic<int64_t> gFailAt{-1};  // the call with this sequence number throws

/** Records the call's sequence number (its first attribute). */
void record(OpCall& call) {
  if (gSlowMicros.load() > 0) std::this_thread::sleep_for(std::chrono::microseconds(gSlowMicros.load()));
  const int64_t seq = call.attrs[0].i;
  if (seq == gFailAt.load()) throw ArgumentError("add: call " + std::to_string(seq) + " refused");
  std::lock_guard<std::mutex> lock(gMutex);
  gSeen.push_back(seq);
  gRunner = std::this_thread::get_id();
}

OpCall callNumbered(int64_t seq) {
  OpCall c;
  c.op = OpId::add;
  c.attrs.resize(1);
  c.attrs[0].present = true;
  c.attrs[0].i = seq;
  return c;
}

void reset() {
  std::lock_guard<std::mutex> lock(gMutex);
  gSeen.clear();
  gSlowMicros = 0;
  gFailAt = -1;
}

}  // namespace

TEST(launch_queue_runs_calls_in_order_on_its_own_thread) {
  reset();
  LaunchQueue q(nullptr, record);
  const int n = 5000;  // several times the ring, so slots are reused
  for (int i = 0; i < n; ++i) q.submit(callNumbered(i));
  q.drain();
  std::lock_guard<std::mutex> lock(gMutex);
  CHECK_EQ(gSeen.size(), size_t(n));
  bool ordered = true;
  for (int i = 0; i < n && ordered; ++i) ordered = gSeen[i] == i;
  CHECK(ordered);
  CHECK(gRunner != std::this_thread::get_id());
  CHECK_EQ(q.submitted(), uint64_t(n));
}

TEST(launch_queue_submit_waits_when_full_and_drain_waits_for_all) {
  reset();
  gSlowMicros = 20;
  LaunchQueue q(nullptr, record);
  const int n = static_cast<int>(LaunchQueue::kSlots) + 200;
  for (int i = 0; i < n; ++i) q.submit(callNumbered(i));
  {
    std::lock_guard<std::mutex> lock(gMutex);
    CHECK(gSeen.size() >= size_t(200));  // submit waited for room: at least 200 had run
  }
  q.drain();
  std::lock_guard<std::mutex> lock(gMutex);
  CHECK_EQ(gSeen.size(), size_t(n));
}

TEST(launch_queue_reports_a_failed_call_once_and_keeps_running) {
  reset();
  gFailAt = 3;
  LaunchQueue q(nullptr, record);
  for (int i = 0; i < 6; ++i) q.submit(callNumbered(i));
  std::string message, code;
  try {
    q.drain();
  } catch (const Error& e) {
    message = e.what();
    code = e.code();
  }
  CHECK_EQ(code, std::string("TSGPU_ARG"));
  CHECK(message.find("add: call 3 refused") == 0);
  CHECK(message.find("queued") != std::string::npos);
  q.drain();  // reported once
  q.submit(callNumbered(6));
  q.drain();
  std::lock_guard<std::mutex> lock(gMutex);
  CHECK_EQ(gSeen.size(), size_t(6));  // 0, 1, 2, 4, 5, 6
  CHECK_EQ(gSeen.back(), int64_t(6));
}

TEST(launch_queue_wakes_after_sleeping_and_destructor_runs_the_rest) {
  reset();
  {
    LaunchQueue q(nullptr, record);
    q.submit(callNumbered(0));
    q.drain();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the poll: the thread sleeps
    gSlowMicros = 100;
    for (int i = 1; i <= 50; ++i) q.submit(callNumbered(i));
  }  // the destructor waits for all 50
  std::lock_guard<std::mutex> lock(gMutex);
  CHECK_EQ(gSeen.size(), size_t(51));
}

TEST(launch_queue_stop_finishes_the_queue_then_runs_calls_inline) {
  reset();
  LaunchQueue q(nullptr, record);
  gSlowMicros = 50;
  for (int i = 0; i < 40; ++i) q.submit(callNumbered(i));
  q.stop();
  {
    std::lock_guard<std::mutex> lock(gMutex);
    CHECK_EQ(gSeen.size(), size_t(40));
  }
  gSlowMicros = 0;
  q.submit(callNumbered(40));  // after stop: run by the caller, at once
  std::lock_guard<std::mutex> lock(gMutex);
  CHECK_EQ(gSeen.size(), size_t(41));
  CHECK(gRunner == std::this_thread::get_id());
}
