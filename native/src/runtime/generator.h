// The global random generator behind torch.manualSeed: a seed and a counter.
// Ops reserve counters; element i of a draw uses counter offset + i, turned
// into numbers by ops/common/philox.h on any device, so cpu and cuda agree.
#pragma once

#include <cstdint>

namespace tsgpu {

/** Seeds the generator and restarts its counter at 0. */
void manualSeed(uint64_t seed);
/** The current seed (torch.initialSeed). */
uint64_t initialSeed();
/** The generator's whole state: its seed and the next counter (torch.get_rng_state). */
void rngState(uint64_t* seed, uint64_t* offset);
/** Restores a state rngState gave (torch.set_rng_state): the same draws follow again. */
void setRngState(uint64_t seed, uint64_t offset);
/**
 * Reserves `count` counters, rounded up to a multiple of 4 (one Philox block),
 * and returns the first; `*seed` receives the seed. Thread-safe.
 */
uint64_t takeCounters(uint64_t count, uint64_t* seed);

}  // namespace tsgpu
