// sort / topk on cuda (ops/common/sort_kernels.h): a block per row sorts up
// to 2048 (value, index) pairs in shared memory with a bitonic network (the
// row padded with entries that sort last; ties ordered by index, so the result
// is stable); longer rows are refused. Queued on the call's stream.
#include "ops/common/offset_calc.h"
#include "ops/common/sort_kernels.h"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace {

constexpr int kMaxSortLen = 2048;

template <typename M>
__device__ bool pairBefore(M a, int64_t ia, M b, int64_t ib, bool descending) {
  if (ia < 0 || ib < 0) return ib < 0 && ia >= 0;  // padding (index -1) sorts last
  if (sortsBefore(a, b, descending)) return true;
  if (sortsBefore(b, a, descending)) return false;
  return ia < ib;
}

template <typename T>
__global__ void bitonicRows(SortPlan p, OffsetCalc<3, uint32_t> rows, uint32_t numRows, int n2, int64_t k, bool descending,
                            T* values, int64_t* indices, const T* self) {
  using M = OpMathType<T>;
  extern __shared__ unsigned char smem[];
  M* v = reinterpret_cast<M*>(smem);
  int64_t* ix = reinterpret_cast<int64_t*>(smem + sizeof(M) * n2 + (8 - (sizeof(M) * n2) % 8) % 8);
  for (uint32_t r = blockIdx.x; r < numRows; r += gridDim.x) {
    int64_t off[3];
    rows.get(r, off);
    for (int j = threadIdx.x; j < n2; j += blockDim.x) {
      const bool real = j < p.len;
      v[j] = real ? static_cast<M>(self[off[2] + j * p.inStride]) : M(0);
      ix[j] = real ? j : -1;
    }
    __syncthreads();
    for (int size = 2; size <= n2; size <<= 1) {
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        for (int j = threadIdx.x; j < n2; j += blockDim.x) {
          const int partner = j ^ stride;
          if (partner <= j) continue;
          const bool up = (j & size) == 0;
          const bool swap = up ? pairBefore(v[partner], ix[partner], v[j], ix[j], descending)
                               : pairBefore(v[j], ix[j], v[partner], ix[partner], descending);
          if (swap) {
            const M tv = v[j];
            v[j] = v[partner];
            v[partner] = tv;
            const int64_t ti = ix[j];
            ix[j] = ix[partner];
            ix[partner] = ti;
          }
        }
        __syncthreads();
      }
    }
    for (int64_t j = threadIdx.x; j < k; j += blockDim.x) {
      values[off[0] + j * p.valueStride] = static_cast<T>(v[j]);
      indices[off[1] + j * p.indexStride] = ix[j];
    }
    __syncthreads();
  }
}

struct CudaSort {
  template <typename T>
  static void sortRows(const OpCall& call, const SortPlan& p, int64_t k, bool descending, T* values, int64_t* indices,
                       const T* self) {
    if (p.len > kMaxSortLen)
      throw ArgumentError(std::string(call.name()) + ": rows of " + std::to_string(p.len) +
                          " elements are longer than cuda's sort supports (" + std::to_string(kMaxSortLen) + ")");
    if (!fitsIndex32(p.rows)) throw ArgumentError(std::string(call.name()) + ": 2^31 or more rows are not supported on cuda");
    int n2 = 1;
    while (n2 < p.len) n2 <<= 1;
    const size_t shared = sizeof(OpMathType<T>) * n2 + 8 + sizeof(int64_t) * n2;
    const unsigned blocks = static_cast<unsigned>(p.rows.numel < cuda::kMaxBlocks ? p.rows.numel : cuda::kMaxBlocks);
    bitonicRows<T><<<blocks, cuda::kBlockThreads, shared, cuda::streamOf(call)>>>(
        p, OffsetCalc<3, uint32_t>(p.rows), static_cast<uint32_t>(p.rows.numel), n2, k, descending, values, indices, self);
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_SORT_KERNELS(TSGPU_REGISTER_CUDA, CudaSort)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
