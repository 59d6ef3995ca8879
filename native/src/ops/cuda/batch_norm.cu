// batchNormForward / batchNormBackward on cuda (ops/common/batch_norm_kernels.h).
// Per-channel sums: a grid of C x splits blocks, each block summing a range of
// its channel's N * inner elements (element j at ((j / inner) * C + c) * inner
// + j % inner, so a warp reads runs of consecutive addresses) with warp
// shuffles; one split a channel finishes in the block, more write partials to
// a scratch array that a second kernel (a thread per channel, partials added
// in a fixed order: deterministic) finishes. The statistics are sums of
// x - pivot and (x - pivot)^2 in float (double for float64), the pivot being
// the channel's first element, so the variance does not lose what a mean far
// from zero would cost in E[x^2] - E[x]^2. Then one elementwise pass writes
// out (or gradInput). Queued on the call's stream; no synchronization.
#include "ops/common/batch_norm_kernels.h"
#include "ops/common/offset_calc.h"
#include "ops/cuda/launch.cuh"
#include "ops/cuda/warp_reduce.cuh"

namespace tsgpu {
namespace ops {
namespace {

using cuda::kBlockThreads;
using cuda::kWarp;

template <typename S>
struct Sums2 {
  S a;
  S b;
};

struct AddSums {
  template <typename V>
  __device__ V operator()(const V& x, const V& y) const {
    return V{x.a + y.a, x.b + y.b};
  }
};

/** Partials of the split per-channel sums (at most 16 bytes each). */
constexpr int64_t kMaxPartials = 65536;
static __device__ __align__(16) unsigned char gBnScratch[kMaxPartials * 16];

template <typename S, typename T>
__device__ __forceinline__ S ld(const T* p, int64_t j) {
  return static_cast<S>(static_cast<OpMathType<T>>(p[j]));
}

template <typename S, typename P>
__device__ __forceinline__ S ldParam(const P* p, int64_t c, S dflt) {
  return p ? static_cast<S>(static_cast<OpMathType<P>>(p[c])) : dflt;
}

/** Offset of element j of channel c (j < N * inner). */
template <typename Index, typename Div>
__device__ __forceinline__ int64_t channelOffset(const BnGeometry& g, const Div& innerDiv, int64_t c, Index j) {
  const Index n = innerDiv.div(j);
  const Index i = j - n * static_cast<Index>(g.inner);
  return (static_cast<int64_t>(n) * g.channels + c) * g.inner + static_cast<int64_t>(i);
}

/** How a channel's elements are split over blocks. */
struct SplitPlan {
  uint32_t splits = 1;
  int64_t chunk = 0;
};

inline SplitPlan planSplits(const BnGeometry& g) {
  static const int64_t target = [] {
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms <= 0) {
      cudaGetLastError();
      sms = 132;
    }
    return static_cast<int64_t>(sms) * 8;
  }();
  const int64_t count = g.count();
  int64_t splits = target / (g.channels > 0 ? g.channels : 1);
  const int64_t most = (count + 4095) / 4096;  // at least 4096 elements a block
  if (splits > most) splits = most;
  if (splits > kMaxPartials / (g.channels > 0 ? g.channels : 1)) splits = kMaxPartials / g.channels;
  if (splits > 65535) splits = 65535;
  if (splits < 1) splits = 1;
  SplitPlan p;
  p.splits = static_cast<uint32_t>(splits);
  p.chunk = (count + splits - 1) / splits;
  return p;
}

// ---------------------------------------------------------------- forward

template <typename T, typename P>
__device__ void finishStats(const BnForward<T, P>& a, int64_t c, BnStat<T> pivot, Sums2<BnStat<T>> s) {
  using S = BnStat<T>;
  const int64_t count = a.g.count();
  const S m1 = s.a / static_cast<S>(count);
  S var = s.b / static_cast<S>(count) - m1 * m1;
  if (var < S(0)) var = S(0);
  const S mean = pivot + m1;
  a.mean[c] = mean;
  a.invstd[c] = S(1) / sqrt(var + static_cast<S>(a.eps));
  bnUpdateRunning<P, S>(a.runMean, a.runVar, c, mean, var, count, a.momentum);
}

/** Block (c, s): the shifted sums of split s of channel c; finishes the channel when it is the only split. */
template <typename T, typename P, typename Index>
__global__ void statsKernel(BnForward<T, P> a, typename DividerFor<Index>::type innerDiv, uint32_t splits, Index chunk) {
  using S = BnStat<T>;
  __shared__ Sums2<S> shared[kWarp];
  const int64_t c = blockIdx.x;
  const Index count = static_cast<Index>(a.g.count());
  const Index begin = static_cast<Index>(blockIdx.y) * chunk;
  const uint64_t last = static_cast<uint64_t>(begin) + static_cast<uint64_t>(chunk);
  const Index end = last < static_cast<uint64_t>(count) ? static_cast<Index>(last) : count;
  const S pivot = ld<S>(a.x, c * a.g.inner);
  Sums2<S> acc{S(0), S(0)};
  for (Index j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const S d = ld<S>(a.x, channelOffset<Index>(a.g, innerDiv, c, j)) - pivot;
    acc.a += d;
    acc.b += d * d;
  }
  acc = cuda::blockCombine(acc, AddSums(), Sums2<S>{S(0), S(0)}, shared);
  if (threadIdx.x != 0) return;
  if (splits == 1)
    finishStats(a, c, pivot, acc);
  else
    reinterpret_cast<Sums2<S>*>(gBnScratch)[c * splits + blockIdx.y] = acc;
}

template <typename T, typename P>
__global__ void statsFinishKernel(BnForward<T, P> a, uint32_t splits) {
  using S = BnStat<T>;
  const Sums2<S>* partial = reinterpret_cast<const Sums2<S>*>(gBnScratch);
  TSGPU_GRID_STRIDE(c, a.g.channels) {
    Sums2<S> acc{S(0), S(0)};
    for (uint32_t k = 0; k < splits; ++k) acc = AddSums()(acc, partial[c * splits + k]);
    finishStats(a, c, ld<S>(a.x, c * a.g.inner), acc);
  }
}

template <typename T, typename P>
__global__ void evalStatsKernel(BnForward<T, P> a) {
  using S = BnStat<T>;
  TSGPU_GRID_STRIDE(c, a.g.channels) {
    a.mean[c] = ldParam<S>(a.runMean, c, S(0));
    a.invstd[c] = S(1) / sqrt(ldParam<S>(a.runVar, c, S(1)) + static_cast<S>(a.eps));
  }
}

template <typename T, typename P, typename Index>
__global__ void applyKernel(BnForward<T, P> a, typename DividerFor<Index>::type innerDiv,
                            typename DividerFor<Index>::type channelDiv, Index numel) {
  using S = BnStat<T>;
  for (Index idx = static_cast<Index>(cuda::globalThread()); idx < numel; idx += static_cast<Index>(cuda::gridThreads())) {
    const Index q = innerDiv.div(idx);
    const int64_t c = static_cast<int64_t>(q - channelDiv.div(q) * static_cast<Index>(a.g.channels));
    S v = (ld<S>(a.x, idx) - a.mean[c]) * a.invstd[c];
    if (a.w) v *= ldParam<S>(a.w, c, S(1));
    if (a.b) v += ldParam<S>(a.b, c, S(0));
    a.y[idx] = static_cast<T>(static_cast<OpMathType<T>>(v));
  }
}

// ---------------------------------------------------------------- backward

template <typename T, typename P>
__device__ void finishGrad(const BnBackward<T, P>& a, int64_t c, Sums2<BnStat<T>> s) {
  a.db[c] = s.a;
  a.dw[c] = s.b * a.invstd[c];
}

/** Block (c, s): sums of dy and dy * (x - mean) over split s of channel c. */
template <typename T, typename P, typename Index>
__global__ void gradSumsKernel(BnBackward<T, P> a, typename DividerFor<Index>::type innerDiv, uint32_t splits, Index chunk) {
  using S = BnStat<T>;
  __shared__ Sums2<S> shared[kWarp];
  const int64_t c = blockIdx.x;
  const Index count = static_cast<Index>(a.g.count());
  const Index begin = static_cast<Index>(blockIdx.y) * chunk;
  const uint64_t last = static_cast<uint64_t>(begin) + static_cast<uint64_t>(chunk);
  const Index end = last < static_cast<uint64_t>(count) ? static_cast<Index>(last) : count;
  const S mean = a.mean[c];
  Sums2<S> acc{S(0), S(0)};
  for (Index j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const int64_t o = channelOffset<Index>(a.g, innerDiv, c, j);
    const S d = ld<S>(a.dy, o);
    acc.a += d;
    acc.b += d * (ld<S>(a.x, o) - mean);
  }
  acc = cuda::blockCombine(acc, AddSums(), Sums2<S>{S(0), S(0)}, shared);
  if (threadIdx.x != 0) return;
  if (splits == 1)
    finishGrad(a, c, acc);
  else
    reinterpret_cast<Sums2<S>*>(gBnScratch)[c * splits + blockIdx.y] = acc;
}

template <typename T, typename P>
__global__ void gradFinishKernel(BnBackward<T, P> a, uint32_t splits) {
  using S = BnStat<T>;
  const Sums2<S>* partial = reinterpret_cast<const Sums2<S>*>(gBnScratch);
  TSGPU_GRID_STRIDE(c, a.g.channels) {
    Sums2<S> acc{S(0), S(0)};
    for (uint32_t k = 0; k < splits; ++k) acc = AddSums()(acc, partial[c * splits + k]);
    finishGrad(a, c, acc);
  }
}

template <typename T, typename P, typename Index>
__global__ void gradInputKernel(BnBackward<T, P> a, typename DividerFor<Index>::type innerDiv,
                                typename DividerFor<Index>::type channelDiv, Index numel) {
  using S = BnStat<T>;
  const S inv = S(1) / static_cast<S>(a.g.count() > 0 ? a.g.count() : 1);
  for (Index idx = static_cast<Index>(cuda::globalThread()); idx < numel; idx += static_cast<Index>(cuda::gridThreads())) {
    const Index q = innerDiv.div(idx);
    const int64_t c = static_cast<int64_t>(q - channelDiv.div(q) * static_cast<Index>(a.g.channels));
    const S invstd = a.invstd[c];
    const S scale = invstd * ldParam<S>(a.w, c, S(1));
    S d = ld<S>(a.dy, idx);
    if (a.training) d = d - a.db[c] * inv - (ld<S>(a.x, idx) - a.mean[c]) * invstd * a.dw[c] * inv;
    a.dx[idx] = static_cast<T>(static_cast<OpMathType<T>>(d * scale));
  }
}

// ---------------------------------------------------------------- launch

template <typename Index>
using Div = typename DividerFor<Index>::type;

struct CudaBatchNorm {
  template <typename T, typename P>
  static void forward(const OpCall& call, const BnForward<T, P>& a) {
    if (a.g.numel() < (int64_t(1) << 31)) launchForward<T, P, uint32_t>(call, a);
    else launchForward<T, P, uint64_t>(call, a);
  }

  template <typename T, typename P>
  static void backward(const OpCall& call, const BnBackward<T, P>& a) {
    if (a.g.numel() < (int64_t(1) << 31)) launchBackward<T, P, uint32_t>(call, a);
    else launchBackward<T, P, uint64_t>(call, a);
  }

  template <typename T, typename P, typename Index>
  static void launchForward(const OpCall& call, const BnForward<T, P>& a) {
    const BnGeometry& g = a.g;
    if (g.channels == 0) return;
    const cudaStream_t stream = cuda::streamOf(call);
    const Div<Index> innerDiv(static_cast<Index>(g.inner > 0 ? g.inner : 1));
    const Div<Index> channelDiv(static_cast<Index>(g.channels));
    if (a.training && g.count() > 0) {
      const SplitPlan p = planSplits(g);
      statsKernel<T, P, Index><<<dim3(static_cast<unsigned>(g.channels), p.splits), kBlockThreads, 0, stream>>>(
          a, innerDiv, p.splits, static_cast<Index>(p.chunk));
      cuda::checkLaunch(call);
      if (p.splits > 1) {
        statsFinishKernel<T, P><<<cuda::gridFor(g.channels), kBlockThreads, 0, stream>>>(a, p.splits);
        cuda::checkLaunch(call);
      }
    } else {
      evalStatsKernel<T, P><<<cuda::gridFor(g.channels), kBlockThreads, 0, stream>>>(a);
      cuda::checkLaunch(call);
    }
    if (g.numel() == 0) return;
    applyKernel<T, P, Index><<<cuda::gridFor(g.numel(), 4), kBlockThreads, 0, stream>>>(
        a, innerDiv, channelDiv, static_cast<Index>(g.numel()));
    cuda::checkLaunch(call);
  }

  template <typename T, typename P, typename Index>
  static void launchBackward(const OpCall& call, const BnBackward<T, P>& a) {
    const BnGeometry& g = a.g;
    if (g.channels == 0) return;
    const cudaStream_t stream = cuda::streamOf(call);
    const Div<Index> innerDiv(static_cast<Index>(g.inner > 0 ? g.inner : 1));
    const Div<Index> channelDiv(static_cast<Index>(g.channels));
    // With no elements the sums are zeros: one split of an empty range writes them.
    const SplitPlan p = g.count() > 0 ? planSplits(g) : SplitPlan{1, 0};
    gradSumsKernel<T, P, Index><<<dim3(static_cast<unsigned>(g.channels), p.splits), kBlockThreads, 0, stream>>>(
        a, innerDiv, p.splits, static_cast<Index>(p.chunk));
    cuda::checkLaunch(call);
    if (p.splits > 1) {
      gradFinishKernel<T, P><<<cuda::gridFor(g.channels), kBlockThreads, 0, stream>>>(a, p.splits);
      cuda::checkLaunch(call);
    }
    if (!a.dx || g.numel() == 0) return;
    gradInputKernel<T, P, Index><<<cuda::gridFor(g.numel(), 4), kBlockThreads, 0, stream>>>(
        a, innerDiv, channelDiv, static_cast<Index>(g.numel()));
    cuda::checkLaunch(call);
  }
};

}  // namespace

#define TSGPU_REGISTER_CUDA(op, kernel) TSGPU_REGISTER_KERNEL(op, kCuda, kernel);
TSGPU_BATCH_NORM_KERNELS(TSGPU_REGISTER_CUDA, CudaBatchNorm)
#undef TSGPU_REGISTER_CUDA

}  // namespace ops
}  // namespace tsgpu
