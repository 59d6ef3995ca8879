// BindArg<Pos, F, V>: a functor that calls F with the value `v` inserted as
// argument Pos. Elementwise kernels use it for an operand given as a
// JavaScript number (x * 2, where(mask, x, 0)): the number travels in the
// functor (a kernel argument on CUDA) instead of as a stride-0 tensor.
#pragma once

#include <cstddef>

#include "base/host_device.h"

namespace tsgpu {
namespace ops {

template <size_t Pos, typename F, typename V>
struct BindArg {
  F f;
  V v;
  template <typename A>
  TSGPU_HD auto operator()(A a) const {
    static_assert(Pos <= 1, "BindArg: position past the arguments");
    if constexpr (Pos == 0) return f(v, a);
    else return f(a, v);
  }
  template <typename A, typename B>
  TSGPU_HD auto operator()(A a, B b) const {
    static_assert(Pos <= 2, "BindArg: position past the arguments");
    if constexpr (Pos == 0) return f(v, a, b);
    else if constexpr (Pos == 1) return f(a, v, b);
    else return f(a, b, v);
  }
};

template <size_t Pos, typename F, typename V>
BindArg<Pos, F, V> bindArg(F f, V v) {
  return BindArg<Pos, F, V>{f, v};
}

}  // namespace ops
}  // namespace tsgpu
