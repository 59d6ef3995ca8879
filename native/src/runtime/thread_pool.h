// The CPU thread pool that every CPU kernel shares.
//
// One fixed pool for the process, sized to the machine's cores (or to
// OMP_NUM_THREADS / TSGPU_NUM_THREADS when set), created on first use.
// `parallel_for` splits [begin, end) into at most getNumThreads() contiguous
// chunks of at least `grain` elements; the calling thread runs chunks too.
// A `parallel_for` reached from inside a parallel region (a nested one) runs
// its whole range inline on the current thread, so kernels may call each
// other freely. Nothing here touches JavaScript values.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

namespace tsgpu {

/** A chunk body: processes the half-open range [begin, end). */
using RangeFn = std::function<void(int64_t begin, int64_t end)>;

/**
 * Runs fn over [begin, end) in parallel chunks of at least `grain` elements
 * (grain < 1 counts as 1). Chunk boundaries depend only on the range, the
 * grain and getNumThreads(), so a reduction that combines per-chunk partials
 * in chunk order is deterministic. Returns when every chunk is done; the first
 * exception thrown by a chunk is rethrown on the calling thread (the other
 * chunks still run to their end).
 */
void parallel_for(int64_t begin, int64_t end, int64_t grain, const RangeFn& fn);

/**
 * Sets the number of threads parallel regions use (the caller included),
 * as torch.set_num_threads. Throws std::invalid_argument for n < 1 and
 * std::logic_error when called from inside a parallel region.
 */
void setNumThreads(int n);

/** The number of threads parallel regions use (the caller included). */
int getNumThreads();

/** True on a thread that is running a chunk of a parallel region. */
bool inParallelRegion();

/**
 * The number of chunks parallel_for(begin, end, grain, …) splits its range
 * into: 1 for an empty range, a range no longer than the grain, a nested call
 * or one thread; otherwise min(getNumThreads(), ceil(length / grain)).
 */
int64_t parallelChunkCount(int64_t begin, int64_t end, int64_t grain);

/**
 * Reduces [begin, end): each chunk computes fn(chunkBegin, chunkEnd) -> T and
 * the partials are combined left to right with combine(acc, partial) starting
 * from `identity`, in chunk order (deterministic for a fixed thread count).
 */
template <typename T, typename F, typename C>
T parallel_reduce(int64_t begin, int64_t end, int64_t grain, T identity, const F& fn, const C& combine) {
  const int64_t chunks = parallelChunkCount(begin, end, grain);
  if (chunks <= 1) return end > begin ? combine(identity, fn(begin, end)) : identity;
  // Partials indexed by chunk, with the boundaries parallel_for would use.
  std::unique_ptr<T[]> partials(new T[static_cast<size_t>(chunks)]);
  const int64_t length = end - begin;
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) partials[c] = fn(begin + length * c / chunks, begin + length * (c + 1) / chunks);
  });
  T acc = identity;
  for (int64_t c = 0; c < chunks; ++c) acc = combine(acc, partials[c]);
  return acc;
}

}  // namespace tsgpu
