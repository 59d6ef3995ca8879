// softmax, logSoftmax and cumsum on cuda. A row whose elements are adjacent
// (dim is the innermost) gets a block: the threads stride through it for the
// maximum and the sum (combined in shared memory) and write; cumsum scans
// tiles of blockDim elements, carrying the running total between tiles.
// Other rows get a thread each (neighbouring threads read neighbouring
// columns). Queued on the call's stream.
#include "ops/common/dim_kernels.h"
#include "ops/common/offset_calc.h"
#include "ops/common/scalar_math.h"
#include "ops/cuda/block_reduce.cuh"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace {

using cuda::blockAll;
using cuda::globalThread;
using cuda::MaxNan;
using cuda::Plus;
using cuda::gridThreads;
using cuda::kBlockThreads;

struct RowIo {
  int64_t len, inStride, outStride;
  uint32_t rows;
};

template <typename T, bool Log>
__device__ void softmaxRow(const T* x, T* y, int64_t n, int64_t is, int64_t os, int64_t j0, int64_t step, bool block,
                           OpMathType<T>* shared) {
  using M = OpMathType<T>;
  M mx = sm::Limits<M>::lowest();
  for (int64_t j = j0; j < n; j += step) mx = MaxNan()(static_cast<M>(x[j * is]), mx);
  if (block) mx = blockAll(mx, shared, MaxNan());
  if (mx == sm::Limits<M>::lowest()) mx = M(0);
  M sum = 0;
  for (int64_t j = j0; j < n; j += step) sum += sm::exp(static_cast<M>(x[j * is]) - mx);
  if (block) sum = blockAll(sum, shared, Plus());
  if (Log) {
    const M shift = mx + sm::log(sum);
    for (int64_t j = j0; j < n; j += step) y[j * os] = static_cast<T>(static_cast<M>(x[j * is]) - shift);
  } else {
    const M inv = M(1) / sum;
    for (int64_t j = j0; j < n; j += step) y[j * os] = static_cast<T>(sm::exp(static_cast<M>(x[j * is]) - mx) * inv);
  }
}

template <typename T, bool Log>
__global__ void softmaxBlockPerRow(const T* in, T* out, RowIo io, OffsetCalc<2, uint32_t> rows) {
  __shared__ OpMathType<T> shared[kBlockThreads];
  for (uint32_t r = blockIdx.x; r < io.rows; r += gridDim.x) {
    int64_t off[2];
    rows.get(r, off);
    softmaxRow<T, Log>(in + off[1], out + off[0], io.len, io.inStride, io.outStride, threadIdx.x, blockDim.x, true, shared);
  }
}

template <typename T, bool Log>
__global__ void softmaxThreadPerRow(const T* in, T* out, RowIo io, OffsetCalc<2, uint32_t> rows) {
  for (int64_t r = globalThread(); r < io.rows; r += gridThreads()) {
    int64_t off[2];
    rows.get(static_cast<uint32_t>(r), off);
    softmaxRow<T, Log>(in + off[1], out + off[0], io.len, io.inStride, io.outStride, 0, 1, false, nullptr);
  }
}

template <typename T, typename O>
__global__ void cumsumBlockPerRow(const T* in, O* out, RowIo io, OffsetCalc<2, uint32_t> rows) {
  using Acc = red::AccOf<OpMathType<T>>;
  __shared__ Acc tile[kBlockThreads];
  for (uint32_t r = blockIdx.x; r < io.rows; r += gridDim.x) {
    int64_t off[2];
    rows.get(r, off);
    Acc carry = 0;
    for (int64_t base = 0; base < io.len; base += blockDim.x) {
      const int64_t j = base + threadIdx.x;
      tile[threadIdx.x] = j < io.len ? static_cast<Acc>(static_cast<OpMathType<T>>(in[off[1] + j * io.inStride])) : Acc(0);
      __syncthreads();
      for (unsigned s = 1; s < blockDim.x; s <<= 1) {  // Hillis–Steele inclusive scan
        const Acc add = threadIdx.x >= s ? tile[threadIdx.x - s] : Acc(0);
        __syncthreads();
        tile[threadIdx.x] += add;
        __syncthreads();
      }
      if (j < io.len) out[off[0] + j * io.outStride] = static_cast<O>(carry + tile[threadIdx.x]);
      carry += tile[blockDim.x - 1];
      __syncthreads();
    }
  }
}

template <typename T, typename O>
__global__ void cumsumThreadPerRow(const T* in, O* out, RowIo io, OffsetCalc<2, uint32_t> rows) {
  using Acc = red::AccOf<OpMathType<T>>;
  for (int64_t r = globalThread(); r < io.rows; r += gridThreads()) {
    int64_t off[2];
    rows.get(static_cast<uint32_t>(r), off);
    Acc acc = 0;
    for (int64_t j = 0; j < io.len; ++j) {
      acc += static_cast<Acc>(static_cast<OpMathType<T>>(in[off[1] + j * io.inStride]));
      out[off[0] + j * io.outStride] = static_cast<O>(acc);
    }
  }
}

RowIo rowIo(const OpCall& call, const DimPlan& p) {
  if (p.rows.numel >= (int64_t(1) << 31))
    throw ArgumentError(std::string(call.name()) + ": 2^31 or more rows are not supported on cuda");
  return RowIo{p.len, p.inStride, p.outStride, static_cast<uint32_t>(p.rows.numel)};
}

/** Block per row when the row is unit-stride and long enough to share; thread per row otherwise. */
bool blockPerRow(const DimPlan& p) { return p.inStride == 1 && p.len >= 128; }

unsigned rowBlocks(const DimPlan& p) {
  return static_cast<unsigned>(p.rows.numel < cuda::kMaxBlocks ? (p.rows.numel > 0 ? p.rows.numel : 1) : cuda::kMaxBlocks);
}

struct CudaDim {
  template <typename T, bool Log>
  static void softmax(const OpCall& call, const DimPlan& p, T* out, const T* in) {
    if (p.rows.numel == 0) return;
    const RowIo io = rowIo(call, p);
    const OffsetCalc<2, uint32_t> rows(p.rows);
    if (blockPerRow(p))
      softmaxBlockPerRow<T, Log><<<rowBlocks(p), kBlockThreads, 0, cuda::streamOf(call)>>>(in, out, io, rows);
    else
      softmaxThreadPerRow<T, Log><<<cuda::gridFor(p.rows.numel), kBlockThreads, 0, cuda::streamOf(call)>>>(in, out, io, rows);
    cuda::checkLaunch(call);
  }

  template <typename T, typename O>
  static void cumsum(const OpCall& call, const DimPlan& p, O* out, const T* in) {
    if (p.rows.numel == 0) return;
    const RowIo io = rowIo(call, p);
    const OffsetCalc<2, uint32_t> rows(p.rows);
    if (blockPerRow(p) || p.rows.numel < 1024)
      cumsumBlockPerRow<T, O><<<rowBlocks(p), kBlockThreads, 0, cuda::streamOf(call)>>>(in, out, io, rows);
    else
      cumsumThreadPerRow<T, O><<<cuda::gridFor(p.rows.numel), kBlockThreads, 0, cuda::streamOf(call)>>>(in, out, io, rows);
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_DIM_KERNELS(TSGPU_REGISTER_CUDA, CudaDim)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
