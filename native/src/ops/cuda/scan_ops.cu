// cumprod, logcumsumexp, cummax and cummin on cuda (ops/common/scan_kernels.h).
// Rows with adjacent elements long enough to share, or few rows: a block per
// row scans tiles of blockDim elements (Hillis–Steele over the op's state in
// shared memory), carrying the state of the tiles before. Other rows: a
// thread each, scanning from the first element (neighbouring threads read
// neighbouring columns). Queued on the call's stream.
#include "ops/common/offset_calc.h"
#include "ops/common/scan_kernels.h"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace {

using cuda::kBlockThreads;

struct ScanIo {
  int64_t len, outStride, indexStride, inStride;
  uint32_t rows;
};

template <typename Op>
__global__ void scanBlockPerRow(const typename Op::In* in, typename Op::Out* out, int64_t* indices, ScanIo io,
                                OffsetCalc<3, uint32_t> rows) {
  using S = typename Op::S;
  using M = typename Op::M;
  extern __shared__ __align__(16) unsigned char smem[];
  S* tile = reinterpret_cast<S*>(smem);
  for (uint32_t r = blockIdx.x; r < io.rows; r += gridDim.x) {
    int64_t off[3];
    rows.get(r, off);
    S carry = Op::identity();
    for (int64_t base = 0; base < io.len; base += blockDim.x) {
      const int64_t j = base + threadIdx.x;
      tile[threadIdx.x] = j < io.len ? Op::lift(static_cast<M>(in[off[2] + j * io.inStride]), j) : Op::identity();
      __syncthreads();
      for (unsigned s = 1; s < blockDim.x; s <<= 1) {
        const S before = threadIdx.x >= s ? tile[threadIdx.x - s] : Op::identity();
        __syncthreads();
        tile[threadIdx.x] = Op::combine(before, tile[threadIdx.x]);
        __syncthreads();
      }
      if (j < io.len) {
        const S st = Op::combine(carry, tile[threadIdx.x]);
        out[off[0] + j * io.outStride] = Op::value(st);
        if constexpr (Op::kIndices) indices[off[1] + j * io.indexStride] = Op::index(st);
      }
      carry = Op::combine(carry, tile[blockDim.x - 1]);
      __syncthreads();
    }
  }
}

template <typename Op>
__global__ void scanThreadPerRow(const typename Op::In* in, typename Op::Out* out, int64_t* indices, ScanIo io,
                                 OffsetCalc<3, uint32_t> rows) {
  using M = typename Op::M;
  for (int64_t r = cuda::globalThread(); r < io.rows; r += cuda::gridThreads()) {
    int64_t off[3];
    rows.get(static_cast<uint32_t>(r), off);
    typename Op::S s = Op::identity();
    for (int64_t j = 0; j < io.len; ++j) {
      s = Op::combine(s, Op::lift(static_cast<M>(in[off[2] + j * io.inStride]), j));
      out[off[0] + j * io.outStride] = Op::value(s);
      if constexpr (Op::kIndices) indices[off[1] + j * io.indexStride] = Op::index(s);
    }
  }
}

struct CudaScan {
  template <typename Op>
  static void scan(const OpCall& call, const ScanPlan& p, typename Op::Out* out, int64_t* indices,
                   const typename Op::In* in) {
    if (p.rows.numel == 0) return;
    if (p.rows.numel >= (int64_t(1) << 31))
      throw ArgumentError(std::string(call.name()) + ": 2^31 or more rows are not supported on cuda");
    const ScanIo io{p.len, p.outStride, p.indexStride, p.inStride, static_cast<uint32_t>(p.rows.numel)};
    const OffsetCalc<3, uint32_t> rows(p.rows);
    const cudaStream_t stream = cuda::streamOf(call);
    if ((p.inStride == 1 && p.len >= 128) || p.rows.numel < 1024) {
      const unsigned blocks = static_cast<unsigned>(p.rows.numel < cuda::kMaxBlocks ? p.rows.numel : cuda::kMaxBlocks);
      const size_t shared = sizeof(typename Op::S) * kBlockThreads;
      scanBlockPerRow<Op><<<blocks, kBlockThreads, shared, stream>>>(in, out, indices, io, rows);
    } else {
      scanThreadPerRow<Op><<<cuda::gridFor(p.rows.numel), kBlockThreads, 0, stream>>>(in, out, indices, io, rows);
    }
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_SCAN_KERNELS(TSGPU_REGISTER_CUDA, CudaScan)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
