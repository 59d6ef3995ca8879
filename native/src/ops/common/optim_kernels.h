// The multi-tensor optimizer updates (adamStep, sgdStep), written once for
// both devices: the checks of the tensor lists and the per-element update
// (one functor a step, applied to element i of every list); the engines
// (cpu/optim_ops.cc, cuda/optim_ops.cu) walk the elements — the cuda one
// through a table of pointers and chunks, many parameters a launch.
//
// The lists come as one variadic input, `count` tensors each, in the order
// the op list gives; all have one dtype (the parameters'), each list's
// tensor k has parameter k's element count, and every tensor is contiguous.
// Math is in float32 (double for float64) with one rounding at the store.
//   E::template apply<T, D>(call, const MultiTensor<T, D>&, const Functor&)
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "base/errors.h"
#include "base/host_device.h"
#include "ops/common/dispatch.h"
#include "ops/common/scalar_math.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** D lists of `count` contiguous tensors of T: lists[l][k] is tensor k of list l, numel[k] its elements. */
template <typename T, int D>
struct MultiTensor {
  std::vector<T*> lists[D];
  std::vector<int64_t> numel;
};

/** Accumulation type of the updates: double for float64, float otherwise. */
template <typename T>
using OptimAcc = typename std::conditional<std::is_same<T, double>::value, double, float>::type;

/** Adam / AdamW on element values (p, g, m, v, vmax), all in A; the constants are computed once per call. */
template <typename A>
struct AdamFunctor {
  A lr, beta1, beta2, eps, weightDecay, stepSize, bc2Sqrt;
  bool amsgrad, maximize, decoupled;

  template <int D>
  TSGPU_HD void operator()(A (&v)[D]) const {
    A& p = v[0];
    A g = maximize ? -v[1] : v[1];
    A& m = v[2];
    A& s = v[3];
    if (weightDecay != A(0)) {
      if (decoupled) p *= A(1) - lr * weightDecay;
      else g += weightDecay * p;
    }
    m += (g - m) * (A(1) - beta1);
    s = s * beta2 + (A(1) - beta2) * g * g;
    A second = s;
    if constexpr (D > 4) {
      if (amsgrad) {
        v[4] = (sm::isNan(v[4]) || v[4] > s) ? v[4] : s;
        second = v[4];
      }
    }
    const A denom = sm::sqrt(second) / bc2Sqrt + eps;
    p -= stepSize * m / denom;
  }
};

/** SGD on element values (p, g[, buf]). */
template <typename A>
struct SgdFunctor {
  A lr, momentum, dampening, weightDecay;
  bool nesterov, maximize, firstStep;

  template <int D>
  TSGPU_HD void operator()(A (&v)[D]) const {
    A& p = v[0];
    A g = maximize ? -v[1] : v[1];
    if (weightDecay != A(0)) g += weightDecay * p;
    if constexpr (D > 2) {
      A& buf = v[2];
      buf = firstStep ? g : momentum * buf + (A(1) - dampening) * g;
      g = nesterov ? g + momentum * buf : buf;
    }
    p -= lr * g;
  }
};

namespace optim_detail {

[[noreturn]] inline void fail(const OpCall& call, const std::string& what) {
  throw ArgumentError(std::string(call.name()) + ": " + what);
}

/** The D lists of the call's variadic input, checked. */
template <typename T, int D>
MultiTensor<T, D> lists(const OpCall& call) {
  const int64_t count = call.attrInt("count");
  if (count < 1) fail(call, "expected a positive number of parameters for count, got " + std::to_string(count));
  if (static_cast<int64_t>(call.numInputs()) != count * D)
    fail(call, "expected " + std::to_string(count * D) + " tensors (" + std::to_string(D) + " lists of " + std::to_string(count) +
                   ") for tensors, got " + std::to_string(call.numInputs()));
  MultiTensor<T, D> mt;
  const DType dtype = call.in(0).dtype;
  static const char* const kListNames[] = {"params", "grads", "state", "state", "state"};
  for (int64_t k = 0; k < count; ++k) mt.numel.push_back(call.in(static_cast<size_t>(k)).numel());
  for (int l = 0; l < D; ++l) {
    for (int64_t k = 0; k < count; ++k) {
      const TensorView& t = call.in(static_cast<size_t>(l * count + k));
      const std::string what = std::string(kListNames[l < 5 ? l : 4]) + "[" + std::to_string(k) + "]";
      if (!t.defined()) fail(call, "expected a tensor for " + what + ", got nothing");
      if (t.dtype != dtype)
        fail(call, std::string("expected dtype ") + dtypeName(dtype) + " for " + what + ", got " + dtypeName(t.dtype));
      if (!t.isContiguous()) fail(call, "expected a contiguous tensor for " + what);
      if (t.numel() != mt.numel[static_cast<size_t>(k)])
        fail(call, "expected " + std::to_string(mt.numel[static_cast<size_t>(k)]) + " elements for " + what + ", got " +
                       std::to_string(t.numel()));
      mt.lists[l].push_back(t.template data<T>());
    }
  }
  return mt;
}

}  // namespace optim_detail

template <typename E>
void adamStepKernel(OpCall& call) {
  const bool amsgrad = call.attrBool("amsgrad");
  const double step = call.attrDouble("step");
  if (!(step >= 1)) optim_detail::fail(call, "expected a step count >= 1 for step, got " + std::to_string(step));
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OptimAcc<T>;
    const double beta1 = call.attrDouble("beta1"), beta2 = call.attrDouble("beta2");
    AdamFunctor<A> f;
    f.lr = static_cast<A>(call.attrDouble("lr"));
    f.beta1 = static_cast<A>(beta1);
    f.beta2 = static_cast<A>(beta2);
    f.eps = static_cast<A>(call.attrDouble("eps"));
    f.weightDecay = static_cast<A>(call.attrDouble("weightDecay"));
    f.stepSize = static_cast<A>(call.attrDouble("lr") / (1 - std::pow(beta1, step)));
    f.bc2Sqrt = static_cast<A>(std::sqrt(1 - std::pow(beta2, step)));
    f.amsgrad = amsgrad;
    f.maximize = call.attrBool("maximize");
    f.decoupled = call.attrBool("decoupledWeightDecay");
    if (amsgrad) E::template apply<T, 5>(call, optim_detail::lists<T, 5>(call), f);
    else E::template apply<T, 4>(call, optim_detail::lists<T, 4>(call), f);
  });
}

template <typename E>
void sgdStepKernel(OpCall& call) {
  const double momentum = call.attrDouble("momentum");
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using A = OptimAcc<T>;
    SgdFunctor<A> f;
    f.lr = static_cast<A>(call.attrDouble("lr"));
    f.momentum = static_cast<A>(momentum);
    f.dampening = static_cast<A>(call.attrDouble("dampening"));
    f.weightDecay = static_cast<A>(call.attrDouble("weightDecay"));
    f.nesterov = call.attrBool("nesterov");
    f.maximize = call.attrBool("maximize");
    f.firstStep = call.attrBool("firstStep");
    if (momentum != 0) E::template apply<T, 3>(call, optim_detail::lists<T, 3>(call), f);
    else E::template apply<T, 2>(call, optim_detail::lists<T, 2>(call), f);
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_OPTIM_KERNELS(X, E)     \
  X(adamStep, (adamStepKernel<E>))    \
  X(sgdStep, (sgdStepKernel<E>))
