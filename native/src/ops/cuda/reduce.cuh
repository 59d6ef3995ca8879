// The CUDA reduce engine (same contract as cpu/reduce.h). Three shapes of work:
//  - block per output: the reduced elements are unit-stride (sum over the
//    last dim); a block's threads stride through them and combine in shared
//    memory;
//  - thread per output: the reduced elements are far apart (sum over dim 0)
//    or few; neighbouring threads read neighbouring outputs' elements;
//  - split: few outputs with many elements each (a full sum): several blocks
//    per output write partials to a static scratch area, and the last block to
//    finish (an atomic counter) combines them in block order.
// Queued on the call's stream; no synchronization.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/errors.h"
#include "ops/common/engine.h"
#include "ops/common/offset_calc.h"
#include "ops/common/reduce_plan.h"
#include "ops/common/reduce_store.h"
#include "ops/cuda/launch.cuh"

namespace tsgpu {
namespace ops {
namespace cuda {

constexpr int kSplitMaxBlocks = 1024;
constexpr int kSplitMaxOutputs = 64;
// Partials of split reductions (room for kSplitMaxBlocks accumulators of up to 32 bytes) and one
// arrival counter per output; zero-initialized, and the last block resets its counter.
static __device__ __align__(16) unsigned char gSplitScratch[kSplitMaxBlocks * 32];
static __device__ unsigned int gSplitArrivals[kSplitMaxOutputs];

/** Where a reduction reads and writes. */
template <typename T, typename O>
struct ReduceIo {
  const T* x;
  O* out;
  int64_t* indices;  // kValueAndIndex only
  int inOperand;     // operand index of the input in the outer plan
  uint32_t n;        // reduced elements per output
  uint32_t outs;     // outputs
  int64_t innerStride;  // when the inner plan has <= 1 dim
  bool inner1d;
};

template <typename T, typename O, ReduceStore S, typename R>
__device__ __forceinline__ void storeAcc(const R& r, const typename R::Acc& acc, const ReduceIo<T, O>& io,
                                         const int64_t* off) {
  if constexpr (S == ReduceStore::kIndex) {
    io.out[off[0]] = static_cast<O>(r.index(acc));
  } else {
    io.out[off[0]] = static_cast<O>(r.result(acc, io.n));
    if constexpr (S == ReduceStore::kValueAndIndex) io.indices[off[1]] = r.index(acc);
  }
}

template <typename T, typename R>
__device__ __forceinline__ typename R::Acc stepAt(const R& r, typename R::Acc acc, const T* base, uint32_t i,
                                                  bool inner1d, int64_t stride, const OffsetCalc<1, uint32_t>& inner) {
  int64_t off;
  if (inner1d) off = static_cast<int64_t>(i) * stride;
  else inner.get(i, &off);
  return r.step(acc, static_cast<OpMathType<T>>(base[off]), i);
}

/** Tree-combines one accumulator per thread into partial[0]. */
template <typename R>
__device__ __forceinline__ void blockCombine(const R& r, typename R::Acc* partial) {
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] = r.combine(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
}

template <typename T, typename O, ReduceStore S, typename R>
__global__ void blockPerOutput(R r, ReduceIo<T, O> io, OffsetCalc<3, uint32_t> outer, OffsetCalc<1, uint32_t> inner) {
  using Acc = typename R::Acc;
  __shared__ Acc partial[kBlockThreads];
  for (uint32_t o = blockIdx.x; o < io.outs; o += gridDim.x) {
    int64_t off[3];
    outer.get(o, off);
    const T* base = io.x + off[io.inOperand];
    Acc acc = r.init();
    for (uint32_t i = threadIdx.x; i < io.n; i += blockDim.x) acc = stepAt(r, acc, base, i, io.inner1d, io.innerStride, inner);
    partial[threadIdx.x] = acc;
    __syncthreads();
    blockCombine(r, partial);
    if (threadIdx.x == 0) storeAcc<T, O, S>(r, partial[0], io, off);
    __syncthreads();
  }
}

template <typename T, typename O, ReduceStore S, typename R>
__global__ void threadPerOutput(R r, ReduceIo<T, O> io, OffsetCalc<3, uint32_t> outer, OffsetCalc<1, uint32_t> inner) {
  for (int64_t o = globalThread(); o < io.outs; o += gridThreads()) {
    int64_t off[3];
    outer.get(static_cast<uint32_t>(o), off);
    const T* base = io.x + off[io.inOperand];
    typename R::Acc acc = r.init();
    for (uint32_t i = 0; i < io.n; ++i) acc = stepAt(r, acc, base, i, io.inner1d, io.innerStride, inner);
    storeAcc<T, O, S>(r, acc, io, off);
  }
}

/** Reads a partial written by another block (bypassing L1, which is not coherent across SMs). */
template <typename Acc>
__device__ __forceinline__ Acc loadFromL2(const Acc* p) {
  Acc v;
  const unsigned char* src = reinterpret_cast<const unsigned char*>(p);
  unsigned char* dst = reinterpret_cast<unsigned char*>(&v);
  for (unsigned b = 0; b < sizeof(Acc); ++b) dst[b] = __ldcg(src + b);
  return v;
}

template <typename T, typename O, ReduceStore S, typename R>
__global__ void splitReduce(R r, ReduceIo<T, O> io, OffsetCalc<3, uint32_t> outer, OffsetCalc<1, uint32_t> inner,
                            uint32_t splits) {
  using Acc = typename R::Acc;
  __shared__ Acc partial[kBlockThreads];
  __shared__ bool last;
  Acc* scratch = reinterpret_cast<Acc*>(gSplitScratch);
  const uint32_t o = blockIdx.x / splits, s = blockIdx.x % splits;
  int64_t off[3];
  outer.get(o, off);
  const T* base = io.x + off[io.inOperand];
  const uint32_t chunk = (io.n + splits - 1) / splits;
  const uint32_t begin = s * chunk, end = begin + chunk < io.n ? begin + chunk : io.n;
  Acc acc = r.init();
  for (uint32_t i = begin + threadIdx.x; i < end; i += blockDim.x) acc = stepAt(r, acc, base, i, io.inner1d, io.innerStride, inner);
  partial[threadIdx.x] = acc;
  __syncthreads();
  blockCombine(r, partial);
  if (threadIdx.x == 0) {
    scratch[blockIdx.x] = partial[0];
    __threadfence();
    last = atomicAdd(&gSplitArrivals[o], 1u) == splits - 1;
  }
  __syncthreads();
  if (!last || threadIdx.x != 0) return;
  __threadfence();
  Acc total = r.init();
  for (uint32_t k = 0; k < splits; ++k) total = r.combine(total, loadFromL2(scratch + o * splits + k));
  storeAcc<T, O, S>(r, total, io, off);
  gSplitArrivals[o] = 0;
}

/** Reduces on the GPU; same contract as ops::cpu::reduce. */
template <typename T, typename O, ReduceStore S = ReduceStore::kValue, typename R>
void reduce(const OpCall& call, const TensorView& in, const std::vector<TensorView*>& outputs, const ReducePlan& plan,
            const R& r) {
  using Acc = typename R::Acc;
  static_assert(sizeof(Acc) <= 32, "split scratch holds accumulators of at most 32 bytes");
  const int64_t outs = plan.outerNumel(), n = plan.innerNumel();
  if (outs == 0) return;
  if (outs >= (int64_t(1) << 31) || n >= (int64_t(1) << 31))
    throw ArgumentError(std::string(call.name()) + ": reductions of 2^31 or more elements per output (or outputs) are not supported on cuda");
  ReduceIo<T, O> io;
  io.x = in.data<T>();
  io.out = outputs[0]->data<O>();
  io.indices = S == ReduceStore::kValueAndIndex ? outputs[1]->data<int64_t>() : nullptr;
  io.inOperand = plan.numOutputs;
  io.n = static_cast<uint32_t>(n);
  io.outs = static_cast<uint32_t>(outs);
  io.inner1d = plan.inner.ndim <= 1;
  io.innerStride = plan.inner.innerStride(0);
  const OffsetCalc<3, uint32_t> outer(plan.outer);
  const OffsetCalc<1, uint32_t> inner(plan.inner);
  const cudaStream_t stream = streamOf(call);
  if (outs <= kSplitMaxOutputs && n >= 65536) {
    int64_t splits = (n + 16383) / 16384;
    if (splits > kSplitMaxBlocks / outs) splits = kSplitMaxBlocks / outs;
    splitReduce<T, O, S><<<static_cast<unsigned>(outs * splits), kBlockThreads, 0, stream>>>(
        r, io, outer, inner, static_cast<uint32_t>(splits));
  } else if (io.inner1d && io.innerStride == 1 && n >= 64) {
    blockPerOutput<T, O, S><<<static_cast<unsigned>(outs < kMaxBlocks ? outs : kMaxBlocks), kBlockThreads, 0, stream>>>(
        r, io, outer, inner);
  } else {
    threadPerOutput<T, O, S><<<gridFor(outs), kBlockThreads, 0, stream>>>(r, io, outer, inner);
  }
  checkLaunch(call);
}

/** The engine the shared kernels of ops/common/reduce_kernels.h run on for cuda. */
TSGPU_REDUCE_ENGINE(cuda::reduce)

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
