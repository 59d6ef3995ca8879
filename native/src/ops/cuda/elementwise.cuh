// The CUDA elementwise engine: out = f(in0, in1, ...) over broadcast, strided
// views, as PyTorch computes it (load as the compute type, store converted).
// Contiguous operands take a flat grid-stride kernel with vector accesses of
// 16 bytes where every pointer is aligned to them (a scalar one otherwise, and
// for the last elements that do not fill a vector);
// others a kernel that maps each linear index to offsets with OffsetCalc
// (32-bit fast division).
// Plans of 2^31 elements or more are launched in slices of their outermost
// dim. Everything is queued on the call's stream; nothing synchronizes.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "base/errors.h"
#include "ops/common/engine.h"
#include "ops/common/offset_calc.h"
#include "ops/common/operands.h"
#include "ops/cuda/launch.cuh"
#include "ops/cuda/vec.cuh"

namespace tsgpu {
namespace ops {
namespace cuda {

/** Operand pointers of one launch (raw bytes; typed in the kernel). */
template <int N>
struct Pointers {
  char* p[N];
};

template <typename Out, typename... In, typename F, size_t... I>
__device__ __forceinline__ void applyOffsets(const F& f, const Pointers<1 + sizeof...(In)>& ptr, const int64_t* off,
                                             std::index_sequence<I...>) {
  reinterpret_cast<Out*>(ptr.p[0])[off[0]] =
      static_cast<Out>(f(static_cast<OpMathType<In>>(reinterpret_cast<const In*>(ptr.p[I + 1])[off[I + 1]])...));
}

template <typename Out, typename... In, typename F, size_t... I>
__device__ __forceinline__ Out computeAt(const F& f, const Pointers<1 + sizeof...(In)>& ptr, int64_t i,
                                         std::index_sequence<I...>) {
  return static_cast<Out>(f(static_cast<OpMathType<In>>(reinterpret_cast<const In*>(ptr.p[I + 1])[i])...));
}

/** Elements each thread of the contiguous scalar kernel handles per pass: loads in flight before the first store. */
constexpr int kContiguousUnroll = 4;

/**
 * Contiguous operands that are not all aligned for vector loads: each thread computes kContiguousUnroll
 * elements, a block width apart (coalesced), every load before any store, so that several loads are in
 * flight per thread. Stores after loads also keep in-place ops right.
 */
template <typename Out, typename F, typename... In>
__global__ void contiguousKernel(int64_t n, F f, Pointers<1 + sizeof...(In)> ptr) {
  const int64_t width = blockDim.x;
  const int64_t step = gridThreads() * kContiguousUnroll;
  for (int64_t base = blockIdx.x * width * kContiguousUnroll + threadIdx.x; base < n; base += step) {
    Out r[kContiguousUnroll];
#pragma unroll
    for (int j = 0; j < kContiguousUnroll; ++j) {
      const int64_t i = base + j * width;
      if (i < n) r[j] = computeAt<Out, In...>(f, ptr, i, std::index_sequence_for<In...>{});
    }
#pragma unroll
    for (int j = 0; j < kContiguousUnroll; ++j) {
      const int64_t i = base + j * width;
      if (i < n) reinterpret_cast<Out*>(ptr.p[0])[i] = r[j];
    }
  }
}

/** The vector width of a contiguous launch: as many elements of the widest operand as fill 16 bytes (at most 8). */
template <typename Out, typename... In>
constexpr int vectorWidth() {
  size_t widest = sizeof(Out);
  ((widest = sizeof(In) > widest ? sizeof(In) : widest), ...);
  const size_t v = 16 / widest;
  return static_cast<int>(v > 8 ? 8 : (v < 1 ? 1 : v));
}

/** One loaded vector per input (a tuple that device code can index). */
template <int V, typename... T>
struct VecPack {};
template <int V, typename T, typename... R>
struct VecPack<V, T, R...> {
  Vec<T, V> head;
  VecPack<V, R...> tail;
};

template <size_t I>
struct PackAt {
  template <typename P>
  __device__ __forceinline__ static auto& get(P& p) {
    return PackAt<I - 1>::get(p.tail);
  }
};
template <>
struct PackAt<0> {
  template <typename P>
  __device__ __forceinline__ static auto& get(P& p) {
    return p.head;
  }
};

template <typename Out, int V, typename... In, typename F, size_t... I>
__device__ __forceinline__ Vec<Out, V> computeVec(const F& f, const Pointers<1 + sizeof...(In)>& ptr, int64_t iv,
                                                  std::index_sequence<I...>) {
  VecPack<V, In...> in;
  ((PackAt<I>::get(in) = reinterpret_cast<const Vec<In, V>*>(ptr.p[I + 1])[iv]), ...);
  Vec<Out, V> r;
#pragma unroll
  for (int j = 0; j < V; ++j) r.v[j] = static_cast<Out>(f(static_cast<OpMathType<In>>(PackAt<I>::get(in).v[j])...));
  return r;
}

/**
 * Contiguous operands whose pointers are aligned to V elements: every access is a vector of V elements
 * (16 bytes of the widest operand), one vector a thread and pass (as many threads as vectors, so the most
 * warps hide the latency of compute-heavy functors such as erf and tanh). The kernel has no tail: the last
 * n % V elements are left to the caller. A tail inside the kernel kept its bounds live through the loop
 * and raised gelu's registers from 31 to 40, a quarter of the warps an SM could hold, which cost 8% of
 * gelu's bandwidth on an H200.
 */
template <typename Out, int V, typename F, typename... In>
__global__ void vectorKernel(int64_t nvec, F f, Pointers<1 + sizeof...(In)> ptr) {
  for (int64_t iv = globalThread(); iv < nvec; iv += gridThreads())
    reinterpret_cast<Vec<Out, V>*>(ptr.p[0])[iv] = computeVec<Out, V, In...>(f, ptr, iv, std::index_sequence_for<In...>{});
}

/**
 * Below this many elements, a contiguous plan whose size is not a multiple of the vector width runs in one
 * scalar launch rather than a vector launch and a second one for its tail (a launch costs about 4 us of
 * host time, more than the scalar kernel loses on small tensors).
 */
constexpr int64_t kVectorTailLaunchMin = int64_t(1) << 20;

/** True when every operand's pointer is a multiple of its vector's bytes. */
template <int N>
bool vectorAligned(const Pointers<N>& ptr, const size_t* sizes, int v) {
  for (int k = 0; k < N; ++k)
    if (reinterpret_cast<uintptr_t>(ptr.p[k]) % (sizes[k] * v) != 0) return false;
  return true;
}

template <typename Out, typename F, typename... In>
__global__ void stridedKernel(uint32_t n, F f, Pointers<1 + sizeof...(In)> ptr,
                              OffsetCalc<1 + sizeof...(In), uint32_t> calc) {
  for (int64_t i = globalThread(); i < n; i += gridThreads()) {
    int64_t off[1 + sizeof...(In)];
    calc.get(static_cast<uint32_t>(i), off);
    applyOffsets<Out, In...>(f, ptr, off, std::index_sequence_for<In...>{});
  }
}

/** Launches one plan (numel < 2^31 unless contiguous) on the call's stream. */
template <typename Out, typename... In, typename F>
void launchPlan(const OpCall& call, const IterPlan& plan, const Pointers<1 + sizeof...(In)>& ptr, const F& f) {
  if (plan.numel == 0) return;
  constexpr int V = vectorWidth<Out, In...>();
  const size_t sizes[] = {sizeof(Out), sizeof(In)...};
  const int64_t tail = plan.numel % V;
  if (plan.isContiguous() && V > 1 && plan.numel >= V && (tail == 0 || plan.numel >= kVectorTailLaunchMin) &&
      vectorAligned(ptr, sizes, V)) {
    const int64_t nvec = plan.numel / V;
    vectorKernel<Out, V, F, In...><<<gridFor(nvec, 1, int64_t(1) << 24), kBlockThreads, 0, streamOf(call)>>>(
        nvec, f, ptr);
    if (tail != 0) {
      Pointers<1 + sizeof...(In)> rest = ptr;
      for (size_t k = 0; k < 1 + sizeof...(In); ++k) rest.p[k] += nvec * V * static_cast<int64_t>(sizes[k]);
      contiguousKernel<Out, F, In...><<<1, kBlockThreads, 0, streamOf(call)>>>(tail, f, rest);
    }
  } else if (plan.isContiguous()) {
    contiguousKernel<Out, F, In...><<<gridFor(plan.numel, kContiguousUnroll), kBlockThreads, 0, streamOf(call)>>>(
        plan.numel, f, ptr);
  } else {
    OffsetCalc<1 + sizeof...(In), uint32_t> calc(plan);
    stridedKernel<Out, F, In...><<<gridFor(plan.numel), kBlockThreads, 0, streamOf(call)>>>(
        static_cast<uint32_t>(plan.numel), f, ptr, calc);
  }
  checkLaunch(call);
}

/**
 * out[...] = f(inputs[0][...], ...) on the GPU; same contract as
 * ops::cpu::elementwise.
 */
template <typename Out, typename... In, typename F>
void elementwise(const OpCall& call, const TensorView& out, ViewList inputs, F f) {
  constexpr int N = 1 + static_cast<int>(sizeof...(In));
  const IterPlan plan = planFor(out, inputs, call.name());
  Pointers<N> ptr;
  ptr.p[0] = static_cast<char*>(out.data());
  for (int k = 1; k < N; ++k) ptr.p[k] = static_cast<char*>(inputs.begin()[k - 1]->data());
  if (plan.isContiguous() || fitsIndex32(plan)) {
    launchPlan<Out, In...>(call, plan, ptr, f);
    return;
  }
  // Slice the outermost dim so each launch indexes fewer than 2^31 elements.
  IterPlan slice = plan;
  const int outer = plan.ndim - 1;
  slice.ndim = outer;
  slice.numel = plan.numel / plan.sizes[outer];
  if (outer == 0 || !fitsIndex32(slice))
    throw ArgumentError(std::string(call.name()) + ": a strided operand of " + std::to_string(plan.numel) +
                        " elements needs a dim under 2^31 elements; make it contiguous first");
  const size_t sizes[N] = {sizeof(Out), sizeof(In)...};
  for (int64_t s = 0; s < plan.sizes[outer]; ++s) {
    Pointers<N> sp = ptr;
    for (int k = 0; k < N; ++k) sp.p[k] += s * plan.strides[k][outer] * static_cast<int64_t>(sizes[k]);
    launchPlan<Out, In...>(call, slice, sp, f);
  }
}

/** The engine the shared kernels of ops/common/elementwise_kernels.h run on for cuda. */
TSGPU_ELEMENTWISE_ENGINE(elementwise)

}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
