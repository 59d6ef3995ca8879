// sort / topk on cuda (ops/common/sort_kernels.h), a bitonic network over
// (value, index) pairs: ties are ordered by index, so the order is total and
// the result stable. The network is the variant whose comparators all put the
// earlier pair at the lower position (each merge starts by comparing mirrored
// positions), so a row of any length sorts as if padded with pairs that sort
// last: comparators reaching past the row are skipped.
//  - rows up to kChunk elements: a block per row sorts it in shared memory
//    and writes the first k;
//  - longer rows (all of the row kept: k = len; the op's TypeScript function
//    sorts the whole row and keeps the first k for topk): blocks sort chunks
//    of kChunk in shared memory straight into the outputs, then each merge
//    size runs its steps of kChunk elements or more as grid-wide kernels over
//    the outputs and its shorter steps in shared memory, chunk by chunk.
// Queued on the call's stream.
#include "ops/common/offset_calc.h"
#include "ops/common/sort_kernels.h"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace {

constexpr int kChunk = 2048;  // elements a block sorts in shared memory

/** Pair (a, ia) sorts before (b, ib): by value (NaN largest), then by index. */
template <typename M>
__device__ __forceinline__ bool pairBefore(M a, int64_t ia, M b, int64_t ib, bool descending) {
  if (sortsBefore(a, b, descending)) return true;
  if (sortsBefore(b, a, descending)) return false;
  return ia < ib;
}

/** Where one launch reads and writes. */
template <typename T>
struct SortIo {
  SortPlan p;
  uint32_t rows;
  bool descending;
  T* values;
  int64_t* indices;
  const T* self;
};

/** Compare-exchange of positions j < partner of the shared arrays (partner < valid). */
template <typename M>
__device__ __forceinline__ void exchange(M* v, int64_t* ix, int j, int partner, bool descending) {
  if (pairBefore(v[partner], ix[partner], v[j], ix[j], descending)) {
    const M tv = v[j];
    v[j] = v[partner];
    v[partner] = tv;
    const int64_t ti = ix[j];
    ix[j] = ix[partner];
    ix[partner] = ti;
  }
}

/**
 * Block b handles chunk b % chunksPerRow of row b / chunksPerRow (chunk elements from position
 * chunk * c). Seed: reads self (index = position) and sorts the chunk completely; otherwise reads the
 * outputs and runs the steps of stride chunk / 2 .. 1 (the end of a merge whose longer steps ran
 * grid-wide). Writes the chunk's first `keep` positions back to the outputs.
 */
template <typename T>
__global__ void chunkKernel(SortIo<T> io, OffsetCalc<3, uint32_t> rows, int chunk, uint32_t chunksPerRow, bool seed,
                            int64_t keep) {
  using M = OpMathType<T>;
  extern __shared__ __align__(16) unsigned char smem[];
  int64_t* ix = reinterpret_cast<int64_t*>(smem);
  M* v = reinterpret_cast<M*>(smem + sizeof(int64_t) * chunk);
  const SortPlan& p = io.p;
  const uint64_t blocks = static_cast<uint64_t>(io.rows) * chunksPerRow;
  for (uint64_t b = blockIdx.x; b < blocks; b += gridDim.x) {
    const uint32_t r = static_cast<uint32_t>(b / chunksPerRow);
    const int64_t base = static_cast<int64_t>(b % chunksPerRow) * chunk;
    int64_t off[3];
    rows.get(r, off);
    const int valid = static_cast<int>(p.len - base < chunk ? p.len - base : chunk);
    for (int j = threadIdx.x; j < valid; j += blockDim.x) {
      const int64_t g = base + j;
      if (seed) {
        v[j] = static_cast<M>(io.self[off[2] + g * p.inStride]);
        ix[j] = g;
      } else {
        v[j] = static_cast<M>(io.values[off[0] + g * p.valueStride]);
        ix[j] = io.indices[off[1] + g * p.indexStride];
      }
    }
    __syncthreads();
    const auto flipStep = [&](int size) {  // the mirrored first step of merge `size`
      for (int q = threadIdx.x; q < chunk / 2; q += blockDim.x) {
        const int blk = q / (size / 2), w = q % (size / 2);
        const int j = blk * size + w, partner = blk * size + size - 1 - w;
        if (partner < valid) exchange(v, ix, j, partner, io.descending);
      }
      __syncthreads();
    };
    const auto strideStep = [&](int stride) {
      for (int q = threadIdx.x; q < chunk / 2; q += blockDim.x) {
        const int j = (q / stride) * 2 * stride + q % stride, partner = j + stride;
        if (partner < valid) exchange(v, ix, j, partner, io.descending);
      }
      __syncthreads();
    };
    if (seed) {
      for (int size = 2; size <= chunk; size <<= 1) {
        flipStep(size);
        for (int stride = size / 4; stride > 0; stride >>= 1) strideStep(stride);
      }
    } else {
      for (int stride = chunk / 2; stride > 0; stride >>= 1) strideStep(stride);
    }
    const int64_t upTo = keep - base < valid ? keep - base : valid;
    for (int64_t j = threadIdx.x; j < upTo; j += blockDim.x) {
      const int64_t g = base + j;
      io.values[off[0] + g * p.valueStride] = static_cast<T>(v[j]);
      io.indices[off[1] + g * p.indexStride] = ix[j];
    }
    __syncthreads();
  }
}

/** One grid-wide step of merge `size` over the outputs: the mirrored first step (flip) or stride `stride`. */
template <typename T>
__global__ void mergeStepKernel(SortIo<T> io, OffsetCalc<3, uint32_t> rows, int64_t pairsPerRow, int64_t size,
                                int64_t stride, bool flip) {
  using M = OpMathType<T>;
  const SortPlan& p = io.p;
  const int64_t total = static_cast<int64_t>(io.rows) * pairsPerRow;
  for (int64_t t = cuda::globalThread(); t < total; t += cuda::gridThreads()) {
    const int64_t q = t % pairsPerRow;
    int64_t j, partner;
    if (flip) {
      const int64_t blk = q / (size / 2), w = q % (size / 2);
      j = blk * size + w;
      partner = blk * size + size - 1 - w;
    } else {
      j = (q / stride) * 2 * stride + q % stride;
      partner = j + stride;
    }
    if (partner >= p.len) continue;
    int64_t off[3];
    rows.get(static_cast<uint32_t>(t / pairsPerRow), off);
    T* vj = io.values + off[0] + j * p.valueStride;
    T* vp = io.values + off[0] + partner * p.valueStride;
    int64_t* ij = io.indices + off[1] + j * p.indexStride;
    int64_t* ip = io.indices + off[1] + partner * p.indexStride;
    const M a = static_cast<M>(*vj), b = static_cast<M>(*vp);
    const int64_t ia = *ij, ib = *ip;
    if (pairBefore(b, ib, a, ia, io.descending)) {
      const T ta = *vj;
      *vj = *vp;
      *vp = ta;
      *ij = ib;
      *ip = ia;
    }
  }
}

struct CudaSort {
  template <typename T>
  static void sortRows(const OpCall& call, const SortPlan& p, int64_t k, bool descending, T* values, int64_t* indices,
                       const T* self) {
    if (!fitsIndex32(p.rows)) throw ArgumentError(std::string(call.name()) + ": 2^31 or more rows are not supported on cuda");
    if (p.len > kChunk && k != p.len)
      throw ArgumentError(std::string(call.name()) + ": on cuda, rows longer than " + std::to_string(kChunk) +
                          " elements are sorted whole (expected k = " + std::to_string(p.len) + ", got " +
                          std::to_string(k) + ")");
    using M = OpMathType<T>;
    const SortIo<T> io{p, static_cast<uint32_t>(p.rows.numel), descending, values, indices, self};
    const OffsetCalc<3, uint32_t> rows(p.rows);
    const cudaStream_t stream = cuda::streamOf(call);
    int64_t n2 = 1;
    while (n2 < p.len) n2 <<= 1;
    const int chunk = static_cast<int>(n2 < kChunk ? n2 : kChunk);
    const uint32_t chunksPerRow = static_cast<uint32_t>((p.len + chunk - 1) / chunk);
    const size_t shared = (sizeof(int64_t) + sizeof(M)) * static_cast<size_t>(chunk);
    const int64_t blocks = p.rows.numel * chunksPerRow;
    const unsigned grid = static_cast<unsigned>(blocks < cuda::kMaxBlocks ? blocks : cuda::kMaxBlocks);
    chunkKernel<T><<<grid, cuda::kBlockThreads, shared, stream>>>(io, rows, chunk, chunksPerRow, true,
                                                                 chunksPerRow == 1 ? k : p.len);
    cuda::checkLaunch(call);
    for (int64_t size = 2 * kChunk; size <= n2; size <<= 1) {
      const int64_t pairs = n2 / 2;
      const unsigned g = cuda::gridFor(p.rows.numel * pairs);
      mergeStepKernel<T><<<g, cuda::kBlockThreads, 0, stream>>>(io, rows, pairs, size, size / 2, true);
      for (int64_t stride = size / 4; stride >= kChunk; stride >>= 1)
        mergeStepKernel<T><<<g, cuda::kBlockThreads, 0, stream>>>(io, rows, pairs, size, stride, false);
      chunkKernel<T><<<grid, cuda::kBlockThreads, shared, stream>>>(io, rows, chunk, chunksPerRow, false, p.len);
      cuda::checkLaunch(call);
    }
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_SORT_KERNELS(TSGPU_REGISTER_CUDA, CudaSort)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
