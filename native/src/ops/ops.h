// Tensor kernels, dispatched on the device's kind: the CPU reference
// implementations (cpu_ops.cc) or the CUDA kernels (cuda_ops.cu). All tensors
// are contiguous float32 (the first ops, before the op registry); `n` counts elements.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/device_registry.h"
#include "base/host_device.h"

namespace tsgpu {
namespace ops {

enum class Binary { kAdd, kSub, kMul, kDiv };

/** One element of a binary op; the same code in the CPU reference and the CUDA kernels. */
TSGPU_HD float apply(Binary op, float x, float y) {
  switch (op) {
    case Binary::kAdd: return x + y;
    case Binary::kSub: return x - y;
    case Binary::kMul: return x * y;
    case Binary::kDiv: return x / y;
  }
  return 0.0f;
}

void binary(Device& d, Binary op, float* out, const float* a, const float* b, size_t n);
void binaryScalar(Device& d, Binary op, float* out, const float* a, float scalar, size_t n);
/** out[m×n] = a[m×k] · b[k×n], row-major. */
void matmul(Device& d, float* out, const float* a, const float* b, size_t m, size_t k, size_t n);
/** out[0] = sum of a[0..n). */
void sum(Device& d, float* out, const float* a, size_t n);

}  // namespace ops

// Backend-specific entry points (used by ops.cc).
namespace cpu {
void binary(ops::Binary op, float* out, const float* a, const float* b, size_t n);
void binaryScalar(ops::Binary op, float* out, const float* a, float scalar, size_t n);
void matmul(float* out, const float* a, const float* b, size_t m, size_t k, size_t n);
void sum(float* out, const float* a, size_t n);
}  // namespace cpu

namespace cuda {
void binary(int device, void* stream, ops::Binary op, float* out, const float* a, const float* b, size_t n);
void binaryScalar(int device, void* stream, ops::Binary op, float* out, const float* a, float scalar, size_t n);
void matmul(int device, void* stream, float* out, const float* a, const float* b, size_t m, size_t k, size_t n);
void sum(int device, void* stream, float* out, const float* a, size_t n);
}  // namespace cuda

}  // namespace tsgpu
