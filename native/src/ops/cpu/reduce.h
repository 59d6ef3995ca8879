// The CPU reduce engine: folds the reduced elements of each output with a
// reducer (ops/common/reducers.h). Many outputs: the thread pool splits the
// outputs. Few outputs with many elements each (a full sum): each output's
// elements are split into chunks whose partials combine in chunk order
// (deterministic for a thread count). Unit-stride runs use eight interleaved
// accumulators so the adds pipeline; float32 sum and mean runs take the vector
// loop (vec_kernels.h).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ops/common/engine.h"
#include "ops/common/reduce_plan.h"
#include "ops/common/reduce_store.h"
#include "ops/common/reducers.h"
#include "ops/common/strided_walker.h"
#include "ops/cpu/vec_kernels.h"
#include "runtime/op_registry.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace cpu {

/** sum and mean of float32 (double accumulators) take the vector loop of vec_kernels.h on unit-stride runs. */
template <typename T, typename R>
constexpr bool kVecSum = std::is_same<T, float>::value &&
                         (std::is_same<R, red::Sum<float>>::value || std::is_same<R, red::Mean<float>>::value);

/** Folds inner elements [b, e) of the output whose input elements start at `base`. */
template <typename T, typename R>
typename R::Acc foldRange(const R& r, const IterPlan& inner, const T* base, int64_t b, int64_t e) {
  using M = OpMathType<T>;
  using Acc = typename R::Acc;
  Acc acc = r.init();
  int64_t pos = b;
  const int64_t s = inner.innerStride(0);
  walkRows<1>(inner, b, e, [&](const int64_t* off, int64_t count) {
    const T* x = base + off[0];
    if constexpr (kVecSum<T, R>) {
      if (s == 1) {
        acc = r.combine(acc, vec::vecKernels().sum(reinterpret_cast<const float*>(x), count));
        pos += count;
        return;
      }
    }
    int64_t j = 0;
    if (s == 1 && count >= 32) {
      constexpr int kLanes = 8;  // independent chains: enough to hide the add latency
      Acc lane[kLanes];
      for (int l = 0; l < kLanes; ++l) lane[l] = r.init();
      for (; j + kLanes <= count; j += kLanes)
        for (int l = 0; l < kLanes; ++l) lane[l] = r.step(lane[l], static_cast<M>(x[j + l]), pos + j + l);
      for (int width = kLanes / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] = r.combine(lane[l], lane[l + width]);
      acc = r.combine(acc, lane[0]);
    }
    for (; j < count; ++j) acc = r.step(acc, static_cast<M>(x[j * s]), pos + j);
    pos += count;
  });
  return acc;
}

/**
 * Reduces `in` (element type T) into outputs per `plan` (built with the
 * outputs in order: values then indices for kValueAndIndex; the one output
 * otherwise). O is the first output's element type; indices are int64.
 */
template <typename T, typename O, ReduceStore S = ReduceStore::kValue, typename R>
void reduce(const OpCall& call, const TensorView& in, const std::vector<TensorView*>& outputs, const ReducePlan& plan,
            const R& r) {
  using Acc = typename R::Acc;
  const T* x = in.data<T>();
  O* o = outputs[0]->data<O>();
  int64_t* ix = S == ReduceStore::kValueAndIndex ? outputs[1]->data<int64_t>() : nullptr;
  const int64_t n = plan.innerNumel();
  const int inOp = plan.numOutputs;
  auto store = [&](const Acc& acc, const int64_t* off) {
    if constexpr (S == ReduceStore::kIndex) {
      o[off[0]] = static_cast<O>(r.index(acc));
    } else {
      o[off[0]] = static_cast<O>(r.result(acc, n));
      if constexpr (S == ReduceStore::kValueAndIndex) ix[off[1]] = r.index(acc);
    }
  };
  const int64_t outs = plan.outerNumel();
  if (outs == 0) return;
  const int64_t grain = 32768;
  if (outs >= getNumThreads() * 4 || n < grain) {
    // Split the outputs; each thread folds whole outputs.
    const int64_t outGrain = n >= grain ? 1 : (grain + n - 1) / (n > 0 ? n : 1);
    parallel_for(0, outs, outGrain, [&](int64_t b, int64_t e) {
      call.checkInterrupt();
      walkElements<kMaxOperands>(plan.outer, b, e, [&](const int64_t* off) {
        store(foldRange<T>(r, plan.inner, x + off[inOp], 0, n), off);
      });
    });
    return;
  }
  // Few outputs, many elements each: split each output's elements.
  walkElements<kMaxOperands>(plan.outer, 0, outs, [&](const int64_t* off) {
    call.checkInterrupt();
    const T* base = x + off[inOp];
    const Acc acc = parallel_reduce(
        int64_t(0), n, grain, r.init(), [&](int64_t b, int64_t e) { return foldRange<T>(r, plan.inner, base, b, e); },
        [&](const Acc& a, const Acc& b) { return r.combine(a, b); });
    store(acc, off);
  });
}

/** The engine the shared kernels of ops/common/reduce_kernels.h run on for cpu. */
TSGPU_REDUCE_ENGINE(cpu::reduce)

}  // namespace cpu
}  // namespace ops
}  // namespace tsgpu
