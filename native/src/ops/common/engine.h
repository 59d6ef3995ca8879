// The engine structs through which the shared kernels of the families
// (elementwise_kernels.h, reduce_kernels.h) reach a device's loops: each
// device header expands these macros once, over its own loop templates.
#pragma once

/** struct Engine { run<Out, In...>(call, out, inputs, f) } calling LOOP<Out, In...>. */
#define TSGPU_ELEMENTWISE_ENGINE(LOOP)                                                                  \
  struct Engine {                                                                                       \
    template <typename Out, typename... In, typename F>                                                 \
    static void run(const OpCall& call, const TensorView& out, ViewList in, F f) {                      \
      LOOP<Out, In...>(call, out, in, f);                                                               \
    }                                                                                                   \
  };

/** struct ReduceEngine { reduce<T, O, S>(call, in, outputs, plan, r) } calling LOOP<T, O, S>. */
#define TSGPU_REDUCE_ENGINE(LOOP)                                                                        \
  struct ReduceEngine {                                                                                  \
    template <typename T, typename O, ReduceStore S = ReduceStore::kValue, typename R>                   \
    static void reduce(const OpCall& call, const TensorView& in, const std::vector<TensorView*>& outputs, \
                       const ReducePlan& plan, const R& r) {                                             \
      LOOP<T, O, S>(call, in, outputs, plan, r);                                                         \
    }                                                                                                    \
  };
