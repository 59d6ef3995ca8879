// softmax, logSoftmax and cumsum on cuda. softmax rows whose elements are
// adjacent (dim is the innermost) get a warp each up to 1024 elements (the row
// in registers: one read, one write, 16-byte accesses where rows are aligned)
// and a block each beyond (unless TSGPU_CUDA_FUSED=0, softmax_stream.cuh: an
// online maximum and sum in one read, then the write; otherwise, and for rows
// written with a stride, the row is kept in
// shared memory while it fits); the maximum and the sum are combined with warp
// shuffles, in float (double for float64). cumsum scans tiles of blockDim
// elements, carrying the running total between tiles. Other rows get a thread
// each (neighbouring threads read neighbouring columns). Queued on the call's
// stream.
#include "ops/common/dim_kernels.h"
#include "ops/common/offset_calc.h"
#include "ops/common/scalar_math.h"
#include "ops/cuda/launch.cuh"
#include "ops/cuda/rows.cuh"
#include "ops/cuda/softmax_stream.cuh"

namespace tsgpu {
namespace ops {
namespace {

using cuda::globalThread;
using cuda::gridThreads;
using cuda::kBlockThreads;
using cuda::kWarp;
using cuda::MaxNan;
using cuda::Plus;

struct RowIo {
  int64_t len, inStride, outStride;
  uint32_t rows;
};

/** A row with a thread of its own (elements `is` / `os` apart). */
template <typename T, bool Log>
__device__ void softmaxRowAlone(const T* x, T* y, int64_t n, int64_t is, int64_t os) {
  using M = OpMathType<T>;
  M mx = sm::Limits<M>::lowest();
  for (int64_t j = 0; j < n; ++j) mx = MaxNan()(static_cast<M>(x[j * is]), mx);
  if (mx == sm::Limits<M>::lowest()) mx = M(0);  // all -inf: exp(-inf - 0) = 0
  M sum = 0;
  for (int64_t j = 0; j < n; ++j) sum += sm::exp(static_cast<M>(x[j * is]) - mx);
  if (Log) {
    const M shift = mx + sm::log(sum);
    for (int64_t j = 0; j < n; ++j) y[j * os] = static_cast<T>(static_cast<M>(x[j * is]) - shift);
  } else {
    const M inv = M(1) / sum;
    for (int64_t j = 0; j < n; ++j) y[j * os] = static_cast<T>(sm::exp(static_cast<M>(x[j * is]) - mx) * inv);
  }
}

/**
 * A warp per unit-stride row of at most 32 * E elements, held in registers. Scalar (V = 1): lane l holds
 * elements e * 32 + l. Vectors (V > 1, rows and pointers aligned to V elements, len a multiple of V, out
 * unit-stride): lane l holds elements (g * 32 + l) * V + k, loaded and stored V at a time. Full: the row
 * has exactly 32 * E elements, so no access needs a bounds check (with the checks, a row of 1024 floats
 * ran at 84% of the bandwidth it reaches without them on an H200: the loads were not all issued before
 * the first combine).
 */
template <typename T, bool Log, int E, int V, bool Full>
__global__ void __launch_bounds__(cuda::kWarpRowThreads) softmaxWarpRows(const T* in, T* out, RowIo io,
                                                                        OffsetCalc<2, uint32_t> rows) {
  using M = OpMathType<T>;
  static_assert(E % V == 0, "a lane holds whole vectors");
  const int lane = threadIdx.x % kWarp;
  const auto at = [&](int e) -> int64_t {  // row position of the lane's element e
    return V == 1 ? static_cast<int64_t>(e) * kWarp + lane : (static_cast<int64_t>(e / V) * kWarp + lane) * V + e % V;
  };
  const auto inRow = [&](int64_t j) { return Full || j < io.len; };
  for (int64_t r = cuda::firstWarpRow(); r < io.rows; r += cuda::warpRowStep()) {
    int64_t off[2];
    rows.get(static_cast<uint32_t>(r), off);
    const T* x = in + off[1];
    T* y = out + off[0];
    M v[E];
    if constexpr (V == 1) {
#pragma unroll
      for (int e = 0; e < E; ++e) v[e] = inRow(at(e)) ? static_cast<M>(x[at(e)]) : sm::Limits<M>::lowest();
    } else {
#pragma unroll
      for (int g = 0; g < E / V; ++g) {
        const int64_t j = at(g * V);
        cuda::Vec<T, V> p;
        if (inRow(j)) p = *reinterpret_cast<const cuda::Vec<T, V>*>(x + j);
#pragma unroll
        for (int k = 0; k < V; ++k) v[g * V + k] = inRow(j) ? static_cast<M>(p.v[k]) : sm::Limits<M>::lowest();
      }
    }
    M mx = cuda::warpCombineAll(cuda::laneTree(v, MaxNan()), MaxNan());
    if (mx == sm::Limits<M>::lowest()) mx = M(0);  // all -inf: exp(-inf - 0) = 0
    M ex[E];
#pragma unroll
    for (int e = 0; e < E; ++e) ex[e] = inRow(at(e)) ? sm::exp(v[e] - mx) : M(0);
    const M sum = cuda::warpCombineAll(cuda::laneTree(ex, Plus()), Plus());
    const M shift = Log ? mx + sm::log(sum) : M(0);
    const M inv = Log ? M(0) : M(1) / sum;
#pragma unroll
    for (int e = 0; e < E; ++e) v[e] = Log ? v[e] - shift : ex[e] * inv;
    if constexpr (V == 1) {
#pragma unroll
      for (int e = 0; e < E; ++e)
        if (inRow(at(e))) y[at(e) * io.outStride] = static_cast<T>(v[e]);
    } else {
#pragma unroll
      for (int g = 0; g < E / V; ++g) {
        const int64_t j = at(g * V);
        if (!inRow(j)) continue;
        cuda::Vec<T, V> p;
#pragma unroll
        for (int k = 0; k < V; ++k) p.v[k] = static_cast<T>(v[g * V + k]);
        *reinterpret_cast<cuda::Vec<T, V>*>(y + j) = p;
      }
    }
  }
}

/** True when every row of the plan (operands out, in) starts on a multiple of v elements. */
bool rowsAligned(const DimPlan& p, const void* out, const void* in, size_t elementBytes, int v) {
  if (!cuda::alignedTo(out, elementBytes * v) || !cuda::alignedTo(in, elementBytes * v)) return false;
  for (int d = 0; d < p.rows.ndim; ++d)
    for (int k = 0; k < 2; ++k)
      if (p.rows.strides[k][d] % v != 0) return false;
  return true;
}

/**
 * A block per unit-stride row; Cached keeps the row's values in shared memory (each thread its own
 * elements j = threadIdx.x + k * blockDim.x, so no barrier guards them) instead of reading it again.
 */
template <typename T, bool Log, bool Cached>
__global__ void softmaxBlockRows(const T* in, T* out, RowIo io, OffsetCalc<2, uint32_t> rows) {
  using M = OpMathType<T>;
  extern __shared__ __align__(16) unsigned char rowCache[];
  __shared__ M shared[kWarp];
  M* cache = reinterpret_cast<M*>(rowCache);
  for (uint32_t r = blockIdx.x; r < io.rows; r += gridDim.x) {
    int64_t off[2];
    rows.get(r, off);
    const T* x = in + off[1];
    T* y = out + off[0];
    M mx = sm::Limits<M>::lowest();
    for (int64_t j = threadIdx.x; j < io.len; j += blockDim.x) {
      const M v = static_cast<M>(x[j]);
      if (Cached) cache[j] = v;
      mx = MaxNan()(v, mx);
    }
    mx = cuda::blockCombineAll(mx, MaxNan(), sm::Limits<M>::lowest(), shared);
    if (mx == sm::Limits<M>::lowest()) mx = M(0);
    M sum = 0;
    for (int64_t j = threadIdx.x; j < io.len; j += blockDim.x) {
      const M ex = sm::exp((Cached ? cache[j] : static_cast<M>(x[j])) - mx);
      if (Cached && !Log) cache[j] = ex;
      sum += ex;
    }
    sum = cuda::blockCombineAll(sum, Plus(), M(0), shared);
    if (Log) {
      const M shift = mx + sm::log(sum);
      for (int64_t j = threadIdx.x; j < io.len; j += blockDim.x)
        y[j * io.outStride] = static_cast<T>((Cached ? cache[j] : static_cast<M>(x[j])) - shift);
    } else {
      const M inv = M(1) / sum;
      for (int64_t j = threadIdx.x; j < io.len; j += blockDim.x)
        y[j * io.outStride] = static_cast<T>((Cached ? cache[j] : sm::exp(static_cast<M>(x[j]) - mx)) * inv);
    }
  }
}

template <typename T, bool Log>
__global__ void softmaxThreadPerRow(const T* in, T* out, RowIo io, OffsetCalc<2, uint32_t> rows) {
  for (int64_t r = globalThread(); r < io.rows; r += gridThreads()) {
    int64_t off[2];
    rows.get(static_cast<uint32_t>(r), off);
    softmaxRowAlone<T, Log>(in + off[1], out + off[0], io.len, io.inStride, io.outStride);
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
    using M = OpMathType<T>;
    if (p.rows.numel == 0) return;
    const RowIo io = rowIo(call, p);
    const OffsetCalc<2, uint32_t> rows(p.rows);
    const cudaStream_t stream = cuda::streamOf(call);
    if (p.inStride == 1 && p.len <= cuda::kWarpRowMax) {
      constexpr int V = cuda::VecWidth<T>::value;
      const bool vec = p.outStride == 1 && p.len % V == 0 && rowsAligned(p, out, in, sizeof(T), V);
      const unsigned blocks = cuda::warpRowBlocks(io.rows);
      cuda::withLaneElems(p.len, [&](auto e) {
        constexpr int E = decltype(e)::value;
        const bool full = p.len == kWarp * E;
        if constexpr (E % V == 0) {
          if (vec && full) return softmaxWarpRows<T, Log, E, V, true><<<blocks, cuda::kWarpRowThreads, 0, stream>>>(in, out, io, rows);
          if (vec) return softmaxWarpRows<T, Log, E, V, false><<<blocks, cuda::kWarpRowThreads, 0, stream>>>(in, out, io, rows);
        }
        softmaxWarpRows<T, Log, E, 1, false><<<blocks, cuda::kWarpRowThreads, 0, stream>>>(in, out, io, rows);
      });
    } else if (p.inStride == 1 && p.outStride == 1 && cuda::fusedCudaKernelsEnabled()) {
      constexpr int V = cuda::VecWidth<T>::value;
      const unsigned blocks = cuda::blockRowBlocks(io.rows);
      if (p.len % V == 0 && rowsAligned(p, out, in, sizeof(T), V))
        cuda::softmaxStreamRows<T, Log, V><<<blocks, cuda::streamThreads(p.len, V), 0, stream>>>(in, out, p.len, io.rows, rows);
      else
        cuda::softmaxStreamRows<T, Log, 1><<<blocks, cuda::streamThreads(p.len, 1), 0, stream>>>(in, out, p.len, io.rows, rows);
    } else if (p.inStride == 1) {
      const size_t bytes = static_cast<size_t>(p.len) * sizeof(M);
      if (bytes <= cuda::kRowCacheBytes)
        softmaxBlockRows<T, Log, true><<<cuda::blockRowBlocks(io.rows), kBlockThreads, bytes, stream>>>(in, out, io, rows);
      else
        softmaxBlockRows<T, Log, false><<<cuda::blockRowBlocks(io.rows), kBlockThreads, 0, stream>>>(in, out, io, rows);
    } else {
      softmaxThreadPerRow<T, Log><<<cuda::gridFor(p.rows.numel), kBlockThreads, 0, stream>>>(in, out, io, rows);
    }
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
