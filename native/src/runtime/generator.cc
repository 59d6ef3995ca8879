#include "runtime/generator.h"

#include <mutex>

namespace tsgpu {

namespace {
std::mutex gMutex;
uint64_t gSeed = 0x5EED5EEDULL;  // until manualSeed, as PyTorch has a default seed
uint64_t gOffset = 0;
}  // namespace

void manualSeed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(gMutex);
  gSeed = seed;
  gOffset = 0;
}

uint64_t initialSeed() {
  std::lock_guard<std::mutex> lock(gMutex);
  return gSeed;
}

void rngState(uint64_t* seed, uint64_t* offset) {
  std::lock_guard<std::mutex> lock(gMutex);
  *seed = gSeed;
  *offset = gOffset;
}

void setRngState(uint64_t seed, uint64_t offset) {
  std::lock_guard<std::mutex> lock(gMutex);
  gSeed = seed;
  gOffset = offset;
}

uint64_t takeCounters(uint64_t count, uint64_t* seed) {
  std::lock_guard<std::mutex> lock(gMutex);
  *seed = gSeed;
  const uint64_t first = gOffset;
  gOffset += (count + 3) & ~static_cast<uint64_t>(3);
  return first;
}

}  // namespace tsgpu
