// The CUDA reduce engine (same contract as cpu/reduce.h). The shapes of work:
//  - rows: the reduced elements of an output are adjacent (sum over the last
//    dim); a warp (rows up to 4096 elements) or a block per output reads them
//    with 16-byte vector loads into several accumulators each, combined by
//    warp shuffles;
//  - thread per output: the reduced elements are far apart (sum over dim 0)
//    or few; neighbouring threads read neighbouring outputs' elements;
//  - split: few outputs with many elements each (a full sum), or up to
//    kSplitMaxBlocks outputs with many strided elements each (a per-channel
//    sum over N, H, W): as many blocks as the GPU holds at once share each
//    output's elements (vector loads,
//    several accumulators, interleaved so that every block finishes
//    together) and write one partial each; a second kernel combines each
//    output's partials in a fixed order (no atomics: the same input gives
//    the same bits every time).
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
#include "ops/cuda/vec.cuh"
#include "ops/cuda/warp_reduce.cuh"

namespace tsgpu {
namespace ops {
namespace cuda {

constexpr int kSplitMaxBlocks = 2048;
constexpr int kSplitMaxOutputs = 64;
// Partials of split reductions: room for kSplitMaxBlocks accumulators of up to 32 bytes.
static __device__ __align__(16) unsigned char gSplitScratch[kSplitMaxBlocks * 32];

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
  bool contiguous;   // inner1d with stride 1: vector loads
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

/** Accumulators a thread keeps (independent chains of steps, so that loads and arithmetic overlap). */
constexpr int kAccs = 4;

/**
 * Folds elements [begin, end) of a contiguous run `base` into acc: thread
 * `tid` of `threads` takes every threads-th vector of VecWidth<T>::value elements
 * (kAccs vectors in flight, one accumulator each), after the elements before
 * the first 16-byte boundary and before the last elements that fill no
 * vector. Step indices are positions in the run.
 */
template <typename T, typename R>
__device__ __forceinline__ typename R::Acc foldRun(const R& r, const T* base, uint32_t begin, uint32_t end,
                                                   uint32_t tid, uint32_t threads) {
  using Acc = typename R::Acc;
  using M = OpMathType<T>;
  constexpr int V = VecWidth<T>::value;
  Acc acc[kAccs];
#pragma unroll
  for (int a = 0; a < kAccs; ++a) acc[a] = r.init();
  if (begin >= end) return acc[0];
  const uint32_t mis = static_cast<uint32_t>((reinterpret_cast<uintptr_t>(base + begin) / sizeof(T)) % V);
  uint32_t head = mis == 0 ? 0 : V - mis;
  if (head > end - begin) head = end - begin;
  if (tid < head) acc[0] = r.step(acc[0], static_cast<M>(base[begin + tid]), begin + tid);
  const uint32_t vbegin = begin + head;
  const uint32_t nvec = (end - vbegin) / V;
  const Vec<T, V>* vp = reinterpret_cast<const Vec<T, V>*>(base + vbegin);
  uint32_t iv = tid;
  for (; iv + (kAccs - 1) * threads < nvec; iv += kAccs * threads) {
    Vec<T, V> x[kAccs];
#pragma unroll
    for (int a = 0; a < kAccs; ++a) x[a] = vp[iv + a * threads];
#pragma unroll
    for (int a = 0; a < kAccs; ++a) {
      const uint32_t i0 = vbegin + (iv + a * threads) * V;
#pragma unroll
      for (int j = 0; j < V; ++j) acc[a] = r.step(acc[a], static_cast<M>(x[a].v[j]), i0 + j);
    }
  }
  for (; iv < nvec; iv += threads) {
    const Vec<T, V> x = vp[iv];
    const uint32_t i0 = vbegin + iv * V;
#pragma unroll
    for (int j = 0; j < V; ++j) acc[0] = r.step(acc[0], static_cast<M>(x.v[j]), i0 + j);
  }
  const uint32_t rest = vbegin + nvec * V;
  if (rest + tid < end) acc[1] = r.step(acc[1], static_cast<M>(base[rest + tid]), rest + tid);
#pragma unroll
  for (int a = 1; a < kAccs; ++a) acc[0] = r.combine(acc[0], acc[a]);
  return acc[0];
}

/** Reducer combine as a functor for the shuffle trees. */
template <typename R>
struct CombineOf {
  const R& r;
  __device__ __forceinline__ typename R::Acc operator()(const typename R::Acc& a, const typename R::Acc& b) const {
    return r.combine(a, b);
  }
};

/** Outputs whose elements are adjacent: a warp per output (Warp) or a block per output. */
template <typename T, typename O, ReduceStore S, bool Warp, typename R>
__global__ void rowsReduce(R r, ReduceIo<T, O> io, OffsetCalc<3, uint32_t> outer) {
  using Acc = typename R::Acc;
  __shared__ Acc shared[kWarp];
  const CombineOf<R> combine{r};
  const uint32_t perBlock = Warp ? blockDim.x / kWarp : 1;
  const uint32_t tid = Warp ? threadIdx.x % kWarp : threadIdx.x;
  const uint32_t threads = Warp ? kWarp : blockDim.x;
  const uint32_t first = blockIdx.x * perBlock + (Warp ? threadIdx.x / kWarp : 0);
  // Every thread of a block runs the same number of rounds (blockCombine syncs the block).
  for (uint32_t round = blockIdx.x * perBlock; round < io.outs; round += gridDim.x * perBlock) {
    const uint32_t o = first + (round - blockIdx.x * perBlock);
    const bool live = o < io.outs;
    int64_t off[3] = {0, 0, 0};
    if (live) outer.get(o, off);
    Acc acc = live ? foldRun<T>(r, io.x + off[io.inOperand], 0, io.n, tid, threads) : r.init();
    if (Warp) {
      acc = warpCombine(acc, combine);
    } else {
      acc = blockCombine(acc, combine, r.init(), shared);
    }
    if (live && tid == 0) storeAcc<T, O, S>(r, acc, io, off);
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

/**
 * First pass of a split reduction: block s of output o (blockIdx.x = o * splits + s) folds its share of
 * o's elements and writes one partial to gSplitScratch[blockIdx.x]. Contiguous inputs are shared out by
 * vectors, block-cyclically (all blocks finish together); others by chunks.
 */
template <typename T, typename O, typename R>
__global__ void splitPartials(R r, ReduceIo<T, O> io, OffsetCalc<3, uint32_t> outer, OffsetCalc<1, uint32_t> inner,
                              uint32_t splits) {
  using Acc = typename R::Acc;
  __shared__ Acc shared[kWarp];
  const uint32_t o = blockIdx.x / splits, s = blockIdx.x % splits;
  int64_t off[3];
  outer.get(o, off);
  const T* base = io.x + off[io.inOperand];
  Acc acc = r.init();
  if (io.contiguous) {
    // Interleave whole vectors between blocks: thread t of block s is thread s * blockDim + t of one
    // grid-wide walk over the run (foldRun's alignment prologue and tail belong to block 0's threads).
    acc = foldRun<T>(r, base, 0, io.n, s * blockDim.x + threadIdx.x, splits * blockDim.x);
  } else {
    const uint32_t chunk = (io.n + splits - 1) / splits;
    const uint32_t begin = s * chunk, end = begin + chunk < io.n ? begin + chunk : io.n;
    for (uint32_t i = begin + threadIdx.x; i < end; i += blockDim.x)
      acc = stepAt(r, acc, base, i, io.inner1d, io.innerStride, inner);
  }
  acc = blockCombine(acc, CombineOf<R>{r}, r.init(), shared);
  if (threadIdx.x == 0) reinterpret_cast<Acc*>(gSplitScratch)[blockIdx.x] = acc;
}

/** Second pass: block o combines output o's `splits` partials (a tree in a fixed order) and stores. */
template <typename T, typename O, ReduceStore S, typename R>
__global__ void splitFinish(R r, ReduceIo<T, O> io, OffsetCalc<3, uint32_t> outer, uint32_t splits) {
  using Acc = typename R::Acc;
  __shared__ Acc shared[kWarp];
  const uint32_t o = blockIdx.x;
  const Acc* partial = reinterpret_cast<const Acc*>(gSplitScratch) + static_cast<size_t>(o) * splits;
  Acc acc = r.init();
  for (uint32_t k = threadIdx.x; k < splits; k += blockDim.x) acc = r.combine(acc, partial[k]);
  acc = blockCombine(acc, CombineOf<R>{r}, r.init(), shared);
  if (threadIdx.x == 0) {
    int64_t off[3];
    outer.get(o, off);
    storeAcc<T, O, S>(r, acc, io, off);
  }
}

/** Blocks of kBlockThreads of `kernel` that the device runs at once (looked up once per kernel). */
template <typename K>
int residentBlocks(K kernel) {
  static int resident = [&] {
    int device = 0, sms = 0, perSm = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, kBlockThreads, 0) != cudaSuccess) {
      cudaGetLastError();
      return 132 * 4;
    }
    return sms * (perSm > 0 ? perSm : 1);
  }();
  return resident;
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
  io.contiguous = io.inner1d && (io.innerStride == 1 || n <= 1);
  const OffsetCalc<3, uint32_t> outer(plan.outer);
  const OffsetCalc<1, uint32_t> inner(plan.inner);
  const cudaStream_t stream = streamOf(call);
  // Split also when each output's elements are many and strided (a per-channel sum over [N, C, H, W], as batch
  // norm's): one thread per output would walk them alone, a block (or several) per output reads them in runs.
  const bool manyStrided = !io.contiguous && n >= 4096 && outs <= kSplitMaxBlocks;
  if ((outs <= kSplitMaxOutputs && n >= 65536) || manyStrided) {
    int64_t splits = residentBlocks(splitPartials<T, O, R>) / outs;
    const int64_t most = (n + 8191) / 8192;  // at least 8192 elements a block
    if (splits > most) splits = most;
    if (splits > kSplitMaxBlocks / outs) splits = kSplitMaxBlocks / outs;
    if (splits < 1) splits = 1;
    splitPartials<T, O><<<static_cast<unsigned>(outs * splits), kBlockThreads, 0, stream>>>(
        r, io, outer, inner, static_cast<uint32_t>(splits));
    checkLaunch(call);
    splitFinish<T, O, S><<<static_cast<unsigned>(outs), kBlockThreads, 0, stream>>>(r, io, outer,
                                                                                   static_cast<uint32_t>(splits));
  } else if (io.contiguous && n >= 16 && n <= 4096) {
    rowsReduce<T, O, S, true><<<gridFor(outs * kWarp), kBlockThreads, 0, stream>>>(r, io, outer);
  } else if (io.contiguous && n > 4096) {
    rowsReduce<T, O, S, false><<<static_cast<unsigned>(outs < kMaxBlocks ? outs : kMaxBlocks), kBlockThreads, 0,
                                 stream>>>(r, io, outer);
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
