// Element offsets of a view in row-major element order, for the kernels of
// the runtime's own ops (copy, fill, arange, random). On the host,
// forEachOffset walks a view with a counter per dimension (no divisions);
// offsetOf (host and device) turns a row-major index into an offset.
#pragma once

#include <cstdint>

#include "base/host_device.h"
#include "runtime/tensor_view.h"

namespace tsgpu {
namespace viewindex {

/** Offset in elements (from data()) of row-major element i of `v`. */
TSGPU_HD int64_t offsetOf(const TensorView& v, int64_t i) {
  int64_t off = 0;
  for (int d = v.ndim - 1; d > 0; --d) {
    const int64_t size = v.sizes[d];
    off += (i % size) * v.strides[d];
    i /= size;
  }
  return v.ndim > 0 ? off + i * v.strides[0] : 0;
}

/**
 * Calls f(index, offset) for elements [begin, end) in row-major order,
 * where offset is the element's offset from v.data(). Host only.
 */
template <typename F>
void forEachOffset(const TensorView& v, int64_t begin, int64_t end, F f) {
  if (begin >= end) return;
  if (v.ndim == 0) {
    f(0, 0);
    return;
  }
  int64_t idx[kMaxDims];
  int64_t rest = begin, off = 0;
  for (int d = v.ndim - 1; d >= 0; --d) {
    idx[d] = rest % v.sizes[d];
    rest /= v.sizes[d];
    off += idx[d] * v.strides[d];
  }
  const int last = v.ndim - 1;
  const int64_t inner = v.sizes[last], innerStride = v.strides[last];
  int64_t i = begin;
  while (i < end) {
    const int64_t run = (inner - idx[last]) < (end - i) ? (inner - idx[last]) : (end - i);
    for (int64_t k = 0; k < run; ++k) f(i + k, off + k * innerStride);
    i += run;
    off += run * innerStride;
    idx[last] += run;
    for (int d = last; d > 0 && idx[d] == v.sizes[d]; --d) {  // carry into outer dimensions
      off -= idx[d] * v.strides[d];
      idx[d] = 0;
      ++idx[d - 1];
      off += v.strides[d - 1];
    }
  }
}

}  // namespace viewindex
}  // namespace tsgpu
