// The masking step of scaled dot-product attention, shared by the CPU and
// CUDA kernels: for row r of the scores [batch..., L, S] (row-major rows), where
// its mask values are and which columns the causal mask keeps.
#pragma once

#include <string>

#include "base/errors.h"
#include "base/host_device.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace attention {

/** A mask's strides over the scores' dims (aligned right; 0 where it broadcasts), and its data. */
struct MaskView {
  bool present = false;
  bool isBool = false;  // true: keep where true; false: add the value
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  int ndim = 0;                    // the scores' ndim
  int64_t sizes[kMaxDims] = {};    // the scores' sizes
  int64_t strides[kMaxDims] = {};  // the mask's strides over them
};

/** The mask's view over the scores; throws unless the mask is bool or of the scores' dtype. */
inline MaskView maskView(const TensorView& mask, const TensorView& scores, const char* op) {
  MaskView m;
  if (!mask.defined()) return m;
  if (mask.dtype != DType::kBool && mask.dtype != scores.dtype)
    throw ArgumentError(std::string(op) + ": expected a bool mask or one of dtype " + dtypeName(scores.dtype) +
                        ", got " + dtypeName(mask.dtype));
  m.present = true;
  m.isBool = mask.dtype == DType::kBool;
  m.data = mask.data();
  m.dtype = mask.dtype;
  m.ndim = scores.ndim;
  const int shift = scores.ndim - mask.ndim;
  for (int d = 0; d < scores.ndim; ++d) {
    m.sizes[d] = scores.sizes[d];
    const int k = d - shift;
    m.strides[d] = (k < 0 || mask.sizes[k] == 1) ? 0 : mask.strides[k];
  }
  return m;
}

/** Element offset of the mask at (row r, column 0); column j adds j·strides[ndim-1]. */
TSGPU_HD int64_t maskRowOffset(const MaskView& m, int64_t r) {
  int64_t off = 0;
  for (int d = m.ndim - 2; d >= 0; --d) {
    const int64_t size = m.sizes[d];
    off += (r % size) * m.strides[d];
    r /= size;
  }
  return off;
}

}  // namespace attention
}  // namespace tsgpu
