// The CPU elementwise engine: out = f(in0, in1, ...) over broadcast, strided
// views, split over the thread pool. Values are loaded as their compute type
// (OpMathType: float for Half/BFloat16) and stored back converted. Fully
// contiguous operands take a flat loop the compiler vectorizes; rows whose
// inner strides are all 1 do too; anything else walks element by element.
// Functors with a vector loop (vec_bulk.h: one input, or two for atan2) run it on
// contiguous float runs.
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include "ops/common/engine.h"
#include "ops/common/operands.h"
#include "ops/common/strided_walker.h"
#include "ops/cpu/vec_bulk.h"
#include "runtime/op_registry.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace cpu {

/** Elements per parallel chunk below which a loop stays on one thread. */
constexpr int64_t kElementwiseGrain = 32768;
/** Elements between interrupt checks inside a chunk. */
constexpr int64_t kInterruptStep = int64_t(1) << 20;

template <typename Out, typename... In, typename F, size_t... I>
void contiguousRun(char* const* base, int64_t begin, int64_t n, const F& f, std::index_sequence<I...>) {
  Out* o = reinterpret_cast<Out*>(base[0]) + begin;
  const char* const in[] = {base[I + 1]..., nullptr};
  if constexpr (sizeof...(In) == 1 && VecBulk<F>::kHas && kFloatStorage<Out> &&
                std::is_same<std::tuple<In...>, std::tuple<Out>>::value) {
    return runBulk<F>(f, reinterpret_cast<const Out*>(in[0]) + begin, o, n);
  }
  if constexpr (sizeof...(In) == 2 && VecBulk2<F>::kHas && kFloatStorage<Out> &&
                std::is_same<std::tuple<In...>, std::tuple<Out, Out>>::value) {
    return runBulk2<F>(reinterpret_cast<const Out*>(in[0]) + begin, reinterpret_cast<const Out*>(in[1]) + begin, o, n);
  }
  // A copy of the functor: its members (a slope, clamp's bounds) are then known not to change when out is
  // written, so the loop vectorizes (through the reference it reloaded them at every element).
  const F local = f;
  for (int64_t i = 0; i < n; ++i)
    o[i] = static_cast<Out>(local(static_cast<OpMathType<In>>(reinterpret_cast<const In*>(in[I])[begin + i])...));
}

template <typename Out, typename... In, typename F, size_t... I>
void stridedRun(char* const* base, const int64_t* off, const int64_t* stride, int64_t n, const F& f,
                std::index_sequence<I...>) {
  Out* o = reinterpret_cast<Out*>(base[0]) + off[0];
  const char* const in[] = {base[I + 1]..., nullptr};
  for (int64_t i = 0; i < n; ++i)
    o[i * stride[0]] = static_cast<Out>(
        f(static_cast<OpMathType<In>>(reinterpret_cast<const In*>(in[I])[off[I + 1] + i * stride[I + 1]])...));
}

/**
 * out[...] = f(inputs[0][...], ...) for every element of out; inputs broadcast
 * to out by strides. Out and In are element types (CppType of the views'
 * dtypes); f takes and returns compute types.
 */
template <typename Out, typename... In, typename F>
void elementwise(const OpCall& call, const TensorView& out, ViewList inputs, F f) {
  constexpr int N = 1 + static_cast<int>(sizeof...(In));
  char* base[N];
  base[0] = static_cast<char*>(out.data());
  for (int k = 1; k < N; ++k) base[k] = static_cast<char*>(inputs.begin()[k - 1]->data());
  using Seq = std::index_sequence_for<In...>;
  // A small op on dense operands of one shape: one flat loop on the calling
  // thread, with no plan and no parallel region (the common small-op case).
  const int64_t numel = out.numel();
  if (numel <= kElementwiseGrain && denseSameShape(out, inputs)) {
    call.checkInterrupt();
    contiguousRun<Out, In...>(base, 0, numel, f, Seq{});
    return;
  }
  const IterPlan plan = planFor(out, inputs, call.name());
  const bool flat = plan.isContiguous();
  parallel_for(0, plan.numel, kElementwiseGrain, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; b += kInterruptStep) {
      call.checkInterrupt();
      const int64_t e = end - b > kInterruptStep ? b + kInterruptStep : end;
      if (flat) {
        contiguousRun<Out, In...>(base, b, e - b, f, Seq{});
        continue;
      }
      walkRows<N>(plan, b, e, [&](const int64_t* off, int64_t count) {
        int64_t stride[N];
        bool unit = true;
        for (int k = 0; k < N; ++k) {
          stride[k] = plan.innerStride(k);
          unit = unit && stride[k] == 1;
        }
        if (unit) {
          char* rowBase[N];
          rowBase[0] = base[0] + off[0] * static_cast<int64_t>(sizeof(Out));
          const size_t sizes[] = {sizeof(In)..., 0};
          for (int k = 1; k < N; ++k) rowBase[k] = base[k] + off[k] * static_cast<int64_t>(sizes[k - 1]);
          contiguousRun<Out, In...>(rowBase, 0, count, f, Seq{});
        } else {
          stridedRun<Out, In...>(base, off, stride, count, f, Seq{});
        }
      });
    }
  });
}

/** The engine the shared kernels of ops/common/elementwise_kernels.h run on for cpu. */
TSGPU_ELEMENTWISE_ENGINE(elementwise)

}  // namespace cpu
}  // namespace ops
}  // namespace tsgpu
