// The argument check of the copy op, shared by its cpu and cuda kernels:
// source and destination hold the same number of elements in the same number
// of dims (the op's TypeScript callers broadcast the source first); elements
// pair up in row-major order.
#pragma once

#include <string>

#include "base/errors.h"
#include "runtime/op_registry.h"

namespace tsgpu {

/** Throws ArgumentError naming both element counts and dim counts when out and src of `call` do not pair up. */
inline void checkCopyArgs(OpCall& call) {
  const TensorView& out = call.out(0);
  const TensorView& src = call.in(0);
  if (out.numel() != src.numel() || out.ndim != src.ndim)
    throw ArgumentError(std::string(call.name()) + ": expected a source with the destination's " +
                        std::to_string(out.numel()) + " elements in " + std::to_string(out.ndim) + " dims, got " +
                        std::to_string(src.numel()) + " elements in " + std::to_string(src.ndim) + " dims");
}

}  // namespace tsgpu
