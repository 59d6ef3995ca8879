// What a kernel sees of a tensor: where its elements are, their type, and how
// to step through them. A view does not own memory; the storage it points
// into stays alive for the whole op call (and, on CUDA, until the stream has
// run the kernels queued by the call: the allocator reuses memory in stream
// order).
//
// Element [i0, i1, ...] is at  data<T>()[i0*strides[0] + i1*strides[1] + ...].
// Strides count elements (not bytes) and are never negative; a stride of 0
// repeats an element (expand / broadcast). A view may be non-contiguous
// (transpose, slice with a step, expand); kernels either handle strides or
// the op's TypeScript function passes contiguous operands.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/device.h"
#include "base/dtype.h"
#include "base/host_device.h"

namespace tsgpu {

/** Most dimensions a tensor may have. */
constexpr int kMaxDims = 16;

struct TensorView {
  /** Start of the storage's memory (device memory on CUDA); nullptr for an empty storage. */
  void* storageData = nullptr;
  /** Elements from storageData to element [0, 0, ...] (the tensor's storageOffset()). */
  int64_t offset = 0;
  /** Number of dimensions (0 for a scalar tensor); -1 for an undefined view (an absent optional input). */
  int32_t ndim = -1;
  /** Element type. */
  DType dtype = DType::kFloat32;
  /** Device of the storage. */
  DeviceId device;
  /** Size of each dimension, [0, ndim). */
  int64_t sizes[kMaxDims] = {};
  /** Stride of each dimension in elements, [0, ndim). */
  int64_t strides[kMaxDims] = {};

  /** False for an absent optional input. */
  TSGPU_HD bool defined() const { return ndim >= 0; }
  /** Address of element [0, 0, ...]. */
  TSGPU_HD void* data() const {
    return storageData ? static_cast<void*>(static_cast<char*>(storageData) + offset * static_cast<int64_t>(dtypeSize(dtype)))
                       : nullptr;
  }
  /** Typed address of element [0, 0, ...]; T must be the dtype's CppType. */
  template <typename T>
  TSGPU_HD T* data() const {
    return static_cast<T*>(data());
  }
  /** Bytes of one element. */
  TSGPU_HD size_t elementSize() const { return dtypeSize(dtype); }
  /** Size of dimension d, 0 <= d < ndim. */
  TSGPU_HD int64_t size(int d) const { return sizes[d]; }
  /** Stride of dimension d in elements, 0 <= d < ndim. */
  TSGPU_HD int64_t stride(int d) const { return strides[d]; }
  /** Number of elements (1 for a 0-dim tensor, 0 when any size is 0 or the view is undefined). */
  TSGPU_HD int64_t numel() const {
    if (ndim < 0) return 0;
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
  /**
   * True when the elements are dense in row-major order (PyTorch's
   * is_contiguous: dimensions of size 1 may have any stride).
   */
  TSGPU_HD bool isContiguous() const {
    int64_t expected = 1;
    for (int d = ndim - 1; d >= 0; --d) {
      if (sizes[d] == 1) continue;
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  }
};

/**
 * A contiguous view over `data` (host or device memory) with `sizes`; for
 * kernels that make views of their own scratch memory and for C++ tests.
 */
inline TensorView contiguousView(void* data, DType dtype, DeviceId device, const int64_t* sizes, int ndim) {
  TensorView v;
  v.storageData = data;
  v.offset = 0;
  v.ndim = ndim;
  v.dtype = dtype;
  v.device = device;
  int64_t stride = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    v.sizes[d] = sizes[d];
    v.strides[d] = stride;
    stride *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return v;
}

}  // namespace tsgpu
