#include "ops/ops.h"

#include <mutex>

#include "base/errors.h"

namespace tsgpu {
namespace ops {

namespace {

std::mutex gMutex;
uint64_t gSeed = 0x5EED5EEDULL;  // default seed until manualSeed
uint64_t gOffset = 0;

[[noreturn]] void noKernels(const Device& d) {
  throw Error("TSGPU_ARG", "device " + d.name + " has no kernels");
}

#ifdef TSGPU_WITH_CUDA
#define TSGPU_DISPATCH(dev, cpuCall, cudaCall) \
  do {                                         \
    if ((dev).kind == DeviceKind::kCpu) {      \
      cpuCall;                                 \
    } else if ((dev).kind == DeviceKind::kCuda) { \
      cudaCall;                                \
    } else {                                   \
      noKernels(dev);                          \
    }                                          \
  } while (0)
#else
#define TSGPU_DISPATCH(dev, cpuCall, cudaCall) \
  do {                                         \
    if ((dev).kind == DeviceKind::kCpu) {      \
      cpuCall;                                 \
    } else {                                   \
      noKernels(dev);                          \
    }                                          \
  } while (0)
#endif

}  // namespace

void manualSeed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(gMutex);
  gSeed = seed;
  gOffset = 0;
}

uint64_t takeCounters(size_t n, uint64_t* seed) {
  std::lock_guard<std::mutex> lock(gMutex);
  *seed = gSeed;
  uint64_t first = gOffset;
  gOffset += (n + 1) & ~static_cast<uint64_t>(1);
  return first;
}

void fill(Device& d, float* out, size_t n, float value) {
  TSGPU_DISPATCH(d, cpu::fill(out, n, value), cuda::fill(d.index, out, n, value));
}

void randn(Device& d, float* out, size_t n) {
  uint64_t seed = 0;
  uint64_t offset = takeCounters(n, &seed);
  TSGPU_DISPATCH(d, cpu::randn(out, n, seed, offset), cuda::randn(d.index, out, n, seed, offset));
}

void rand(Device& d, float* out, size_t n) {
  uint64_t seed = 0;
  uint64_t offset = takeCounters(n, &seed);
  TSGPU_DISPATCH(d, cpu::rand(out, n, seed, offset), cuda::rand(d.index, out, n, seed, offset));
}

void binary(Device& d, Binary op, float* out, const float* a, const float* b, size_t n) {
  TSGPU_DISPATCH(d, cpu::binary(op, out, a, b, n), cuda::binary(d.index, op, out, a, b, n));
}

void binaryScalar(Device& d, Binary op, float* out, const float* a, float scalar, size_t n) {
  TSGPU_DISPATCH(d, cpu::binaryScalar(op, out, a, scalar, n), cuda::binaryScalar(d.index, op, out, a, scalar, n));
}

void matmul(Device& d, float* out, const float* a, const float* b, size_t m, size_t k, size_t n) {
  TSGPU_DISPATCH(d, cpu::matmul(out, a, b, m, k, n), cuda::matmul(d.index, out, a, b, m, k, n));
}

void sum(Device& d, float* out, const float* a, size_t n) {
  TSGPU_DISPATCH(d, cpu::sum(out, a, n), cuda::sum(d.index, out, a, n));
}

}  // namespace ops
}  // namespace tsgpu
