#include "ops/ops.h"


#include "base/errors.h"

namespace tsgpu {
namespace ops {

namespace {

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

void binary(Device& d, Binary op, float* out, const float* a, const float* b, size_t n) {
  TSGPU_DISPATCH(d, cpu::binary(op, out, a, b, n), cuda::binary(d.index, d.backend->stream(), op, out, a, b, n));
}

void binaryScalar(Device& d, Binary op, float* out, const float* a, float scalar, size_t n) {
  TSGPU_DISPATCH(d, cpu::binaryScalar(op, out, a, scalar, n), cuda::binaryScalar(d.index, d.backend->stream(), op, out, a, scalar, n));
}

void matmul(Device& d, float* out, const float* a, const float* b, size_t m, size_t k, size_t n) {
  TSGPU_DISPATCH(d, cpu::matmul(out, a, b, m, k, n), cuda::matmul(d.index, d.backend->stream(), out, a, b, m, k, n));
}

void sum(Device& d, float* out, const float* a, size_t n) {
  TSGPU_DISPATCH(d, cpu::sum(out, a, n), cuda::sum(d.index, d.backend->stream(), out, a, n));
}

}  // namespace ops
}  // namespace tsgpu
