// adamStep and sgdStep on cuda (ops/common/optim_kernels.h): a
// multi-tensor apply. The parameters are cut into chunks of kChunk elements;
// one launch takes a table (passed as the kernel's argument, no device
// memory) of up to kTensors parameters' pointers and kBlocks chunks, a block
// a chunk, so that a model's hundreds of parameters update in a handful of
// launches. Each thread moves 16-byte vectors of every list when the chunk
// is aligned, single elements otherwise.
#include <vector>

#include "ops/common/optim_kernels.h"
#include "ops/cuda/launch.cuh"
#include "ops/cuda/vec.cuh"

namespace tsgpu {
namespace ops {
namespace {

constexpr int kTensors = 32;
constexpr int kBlocks = 256;
constexpr int64_t kChunk = 65536;
constexpr int kThreads = 512;

/** One launch's table: D pointers and the element count of each tensor, and (tensor, chunk) of each block. */
template <typename T, int D>
struct ChunkTable {
  T* ptrs[D][kTensors];
  int64_t numel[kTensors];
  int16_t tensor[kBlocks];
  int32_t chunk[kBlocks];
};

template <typename T, int D, typename F>
__global__ void __launch_bounds__(kThreads) multiTensorApply(ChunkTable<T, D> table, F f) {
  using A = OptimAcc<T>;
  using M = OpMathType<T>;
  constexpr int V = cuda::VecWidth<T>::value;
  const int t = table.tensor[blockIdx.x];
  const int64_t start = static_cast<int64_t>(table.chunk[blockIdx.x]) * kChunk;
  int64_t n = table.numel[t] - start;
  if (n > kChunk) n = kChunk;
  T* p[D];
  bool aligned = n % V == 0;
#pragma unroll
  for (int l = 0; l < D; ++l) {
    p[l] = table.ptrs[l][t] + start;
    aligned = aligned && reinterpret_cast<uintptr_t>(p[l]) % (sizeof(T) * V) == 0;
  }
  if (aligned) {
    for (int64_t q = threadIdx.x; q < n / V; q += blockDim.x) {
      cuda::Vec<T, V> in[D];
#pragma unroll
      for (int l = 0; l < D; ++l) in[l] = reinterpret_cast<const cuda::Vec<T, V>*>(p[l])[q];
#pragma unroll
      for (int k = 0; k < V; ++k) {
        A v[D];
#pragma unroll
        for (int l = 0; l < D; ++l) v[l] = static_cast<A>(static_cast<M>(in[l].v[k]));
        f(v);
#pragma unroll
        for (int l = 0; l < D; ++l) in[l].v[k] = static_cast<T>(static_cast<M>(v[l]));
      }
#pragma unroll
      for (int l = 0; l < D; ++l)
        if (l != 1) reinterpret_cast<cuda::Vec<T, V>*>(p[l])[q] = in[l];  // list 1 (the gradients) is read only
    }
  } else {
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
      A v[D];
#pragma unroll
      for (int l = 0; l < D; ++l) v[l] = static_cast<A>(static_cast<M>(p[l][i]));
      f(v);
#pragma unroll
      for (int l = 0; l < D; ++l)
        if (l != 1) p[l][i] = static_cast<T>(static_cast<M>(v[l]));
    }
  }
}

struct CudaOptim {
  template <typename T, int D, typename F>
  static void apply(const OpCall& call, const MultiTensor<T, D>& mt, const F& f) {
    static_assert(sizeof(ChunkTable<T, D>) <= 4096, "a kernel argument holds at most 4 KiB");
    ChunkTable<T, D> table;
    int tensors = 0, blocks = 0;
    const auto launch = [&]() {
      if (blocks > 0) multiTensorApply<T, D, F><<<blocks, kThreads, 0, cuda::streamOf(call)>>>(table, f);
      cuda::checkLaunch(call);
      tensors = 0;
      blocks = 0;
    };
    for (size_t k = 0; k < mt.numel.size(); ++k) {
      const int64_t n = mt.numel[k];
      if (n == 0) continue;
      if (tensors == kTensors) launch();
      for (int l = 0; l < D; ++l) table.ptrs[l][tensors] = mt.lists[l][k];
      table.numel[tensors] = n;
      const int64_t chunks = (n + kChunk - 1) / kChunk;
      for (int64_t c = 0; c < chunks; ++c) {
        table.tensor[blocks] = static_cast<int16_t>(tensors);
        table.chunk[blocks] = static_cast<int32_t>(c);
        if (++blocks == kBlocks) {
          // The tensor whose chunks are cut off stays in the next table (its pointers copied to slot 0).
          const bool more = c + 1 < chunks;
          launch();
          if (more) {
            for (int l = 0; l < D; ++l) table.ptrs[l][0] = mt.lists[l][k];
            table.numel[0] = n;
            tensors = 0;
          } else {
            tensors = -1;
          }
        }
      }
      ++tensors;
    }
    launch();
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_OPTIM_KERNELS(TSGPU_REGISTER_CUDA, CudaOptim)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
