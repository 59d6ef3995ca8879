// Index arithmetic of the example `add` kernels (cpu and cuda): the strides
// that broadcast an input over the output, and the offsets of element i.
// The elementwise family of ops/common supersedes it (delete with
// cpu/example_add.cc and cuda/example_add.cu).
#pragma once

#include "base/host_device.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace example {

/** An input's strides over the output's dimensions (0 where it broadcasts). */
struct Strides {
  int64_t s[kMaxDims] = {};
};

/** Aligns `in` to the right of `out`; size-1 and missing dims get stride 0. */
inline Strides broadcastStrides(const TensorView& in, const TensorView& out) {
  Strides r;
  const int shift = out.ndim - in.ndim;
  for (int d = 0; d < out.ndim; ++d) {
    const int k = d - shift;
    r.s[d] = (k < 0 || in.sizes[k] == 1) ? 0 : in.strides[k];
  }
  return r;
}

/** Offsets (in elements) of row-major element i in out, a and b. */
TSGPU_HD void offsets(const TensorView& out, int64_t i, const Strides& sa, const Strides& sb, int64_t* oo,
                      int64_t* oa, int64_t* ob) {
  for (int d = out.ndim - 1; d >= 0; --d) {
    const int64_t size = out.sizes[d];
    const int64_t k = size > 0 ? i % size : 0;
    i = size > 0 ? i / size : 0;
    *oo += k * out.strides[d];
    *oa += k * sa.s[d];
    *ob += k * sb.s[d];
  }
}

}  // namespace example
}  // namespace tsgpu
