// softmax / logSoftmax of unit-stride rows longer than a warp takes
// (dim_ops.cu): a block per row, in two passes over the row in 16-byte
// vectors — the first keeps the online maximum and sum of exponentials
// (online_rows.cuh), the second (served from L2) writes the result. Any row
// length, with no shared-memory copy of the row.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "ops/cuda/online_rows.cuh"
#include "ops/cuda/warp_reduce.cuh"

namespace tsgpu {
namespace ops {
namespace cuda {

// The fused CUDA kernels (this streaming softmax, the fused cross-entropy and
// the multi-tensor optimizer) are on unless TSGPU_CUDA_FUSED=0 is in the
// environment; then the paths they replace are taken (native/ops/cuda_gates.ts).
inline bool fusedCudaKernelsEnabled() {
  static const bool on = [] {
    const char* v = std::getenv("TSGPU_CUDA_FUSED");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  return on;
}

/**
 * Rows r = blockIdx.x, +gridDim.x, ... < rows of len elements; rowsAt.get(r, off) gives the row's
 * output (off[0]) and input (off[1]) offsets. V > 1: every row aligned to V elements, len a multiple
 * of V, output unit-stride too.
 */
template <typename T, bool Log, int V, typename Rows>
__global__ void __launch_bounds__(kStreamMaxThreads) softmaxStreamRows(const T* in, T* out, int64_t len, int64_t rows, Rows rowsAt) {
  using M = OpMathType<T>;
  __shared__ OnlineMax<M> shared[kWarp];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    int64_t off[2];
    rowsAt.get(static_cast<uint32_t>(r), off);
    const T* x = in + off[1];
    T* y = out + off[0];
    OnlineMax<M> acc = OnlineMax<M>::empty();
    forRowVectors<V, M>(x, len, [&](int64_t, const M(&v)[V]) { acc.add(v); });
    acc = blockCombineAll(acc, OnlineCombine(), OnlineMax<M>::empty(), shared);
    // A row of -inf gives NaN, as the other softmax kernels (a maximum of 0 and a sum of 0).
    const M mx = acc.m == sm::Limits<M>::lowest() ? M(0) : acc.m;
    const M shift = Log ? mx + sm::log(acc.s) : mx;
    const M inv = M(1) / acc.s;
    forRowVectors<V, M>(x, len, [&](int64_t j, const M(&v)[V]) {
      M o[V];
#pragma unroll
      for (int k = 0; k < V; ++k) o[k] = Log ? v[k] - shift : sm::exp(v[k] - shift) * inv;
      storeVector<V>(y, j, o);
    });
  }
}

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
