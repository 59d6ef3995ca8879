// Vector accesses for CUDA kernels: V elements of T moved as one load or
// store of V * sizeof(T) bytes (16 bytes at most), for pointers aligned to
// that many bytes.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tsgpu {
namespace ops {
namespace cuda {

/** V elements of T loaded or stored as one access of V * sizeof(T) bytes. */
template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

/** Elements of T in one 16-byte access (at most 8). */
template <typename T>
struct VecWidth {
  static constexpr int value = sizeof(T) >= 16 ? 1 : (16 / sizeof(T) > 8 ? 8 : static_cast<int>(16 / sizeof(T)));
};

/** True when p is a multiple of `bytes` (a power of two). */
inline bool alignedTo(const void* p, size_t bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
