// gather, scatter and scatterAdd, written once for both devices. Each element
// of `index` names a position along `dim`; the other dims line up (index may
// be smaller than self/src there, as PyTorch allows). The plan runs over the
// index's shape with the indexed operand's `dim` stride set to 0, so a
// functor adds index * dimStride itself. Indices outside [0, size) are
// skipped by the kernels (no memory is touched); the ops' TypeScript functions
// reject them on cpu with a message naming the index.
//
//   E::template forEach<N>(call, plan, parallel, f)   calls f(offsets) per element
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "base/errors.h"
#include "base/host_device.h"
#include "ops/common/dispatch.h"
#include "ops/common/operands.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace ops {

/** out[o] = self[s + index[i] * selfDimStride]. Operands: out, index, self. */
template <typename T>
struct GatherF {
  T* out;
  const int64_t* index;
  const T* self;
  int64_t dimStride, dimSize;
  TSGPU_HD void operator()(const int64_t* off) const {
    const int64_t i = index[off[1]];
    if (i >= 0 && i < dimSize) out[off[0]] = self[off[2] + i * dimStride];
  }
};

#ifdef __CUDA_ARCH__
/**
 * Atomically adds v to the 1- or 2-byte integer at p: a compare-and-swap loop on the aligned 32-bit word
 * that holds it (wrapping as the integer type does).
 */
template <typename T>
__device__ void atomicAddNarrow(T* p, T v) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2, "narrow integers only");
  const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
  unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
  const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
  const unsigned int mask = (sizeof(T) == 1 ? 0xffu : 0xffffu) << shift;
  unsigned int old = *word, assumed;
  do {
    assumed = old;
    const T cur = static_cast<T>((assumed & mask) >> shift);
    const unsigned int sum = static_cast<unsigned int>(static_cast<typename std::make_unsigned<T>::type>(
        static_cast<T>(static_cast<int>(cur) + static_cast<int>(v))));
    old = atomicCAS(word, assumed, (assumed & ~mask) | ((sum << shift) & mask));
  } while (old != assumed);
}
#endif

/** Adds v at p: an atomic add on the device, a plain one on the host (where scatterAdd runs on one thread). */
template <typename T>
TSGPU_HD void addAt(T* p, T v) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same<T, int64_t>::value) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value ||
                       std::is_same<T, int32_t>::value) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same<T, Half>::value) {
    atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(v.bits));  // sm_70 and later
  } else if constexpr (std::is_same<T, BFloat16>::value) {
    atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __ushort_as_bfloat16(v.bits));  // sm_80 and later
  } else if constexpr (std::is_same<T, int8_t>::value || std::is_same<T, uint8_t>::value ||
                       std::is_same<T, int16_t>::value) {
    atomicAddNarrow(p, v);
  }
#else
  *p = static_cast<T>(static_cast<OpMathType<T>>(*p) + static_cast<OpMathType<T>>(v));
#endif
}

/** out[o + index[i] * outDimStride] = src[s] (or += with Add). Operands: out, index, src. */
template <typename T, bool Add>
struct ScatterF {
  T* out;
  const int64_t* index;
  const T* src;  // nullptr: write `value`
  T value;
  int64_t dimStride, dimSize;
  TSGPU_HD void operator()(const int64_t* off) const {
    const int64_t i = index[off[1]];
    if (i < 0 || i >= dimSize) return;
    const T v = src ? src[off[2]] : value;
    T* p = out + off[0] + i * dimStride;
    if (Add) addAt(p, v);
    else *p = v;
  }
};

/**
 * Normalizes `dim` and checks index's shape: it must have self's number of
 * dims and be no larger than self in every dim but `dim`, and no larger than
 * `src` (when given) in every dim (PyTorch's rules for gather and scatter).
 */
inline int64_t checkIndexShapes(const char* op, const TensorView& self, const TensorView& index, const TensorView* src,
                                int64_t dim) {
  const int nd = index.ndim;
  const int dims = nd > 0 ? nd : 1;
  if (self.ndim != nd || (src && src->ndim != nd))
    throw ArgumentError(std::string(op) + ": expected index with as many dims as self (" + std::to_string(self.ndim) +
                        "), got " + std::to_string(nd));
  if (dim < -dims || dim >= dims)
    throw ArgumentError(std::string(op) + ": dim " + std::to_string(dim) + " is out of range for " +
                        std::to_string(nd) + " dims");
  if (dim < 0) dim += dims;
  for (int d = 0; d < nd; ++d) {
    if ((d != dim && index.sizes[d] > self.sizes[d]) || (src && index.sizes[d] > src->sizes[d]))
      throw ArgumentError(std::string(op) + ": index of shape " + shapeString(sizesOf(index)) +
                          " does not fit self of shape " + shapeString(sizesOf(self)) + " in dim " + std::to_string(d));
  }
  return dim;
}

/** Plan over index's shape for (a, index, b) with operand `zeroed`'s `dim` stride set to 0 (b may be absent). */
inline IterPlan indexPlan(const TensorView& a, const TensorView& index, const TensorView* b, int64_t dim, int zeroed) {
  std::vector<Shape> strides{stridesOf(a), stridesOf(index), b ? stridesOf(*b) : Shape(static_cast<size_t>(index.ndim), 0)};
  if (index.ndim > 0) strides[static_cast<size_t>(zeroed)][static_cast<size_t>(dim)] = 0;
  return makeIterPlan(sizesOf(index), strides);
}

inline void expectIndexDtype(const OpCall& call, const TensorView& index) {
  if (index.dtype != DType::kInt64)
    throw ArgumentError(std::string(call.name()) + ": expected an int64 index, got " + dtypeName(index.dtype));
}

/** gather(self, index): out has index's shape. */
template <typename E>
void gatherKernel(OpCall& call) {
  const TensorView& self = call.in(0);
  const TensorView& index = call.in(1);
  expectIndexDtype(call, index);
  const int64_t dim = checkIndexShapes(call.name(), self, index, nullptr, call.attrInt("dim"));
  const IterPlan p = indexPlan(call.out(0), index, &self, dim, 2);
  dispatchDtype<kAllDtypes>(self.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    GatherF<T> f{call.out(0).template data<T>(), index.template data<int64_t>(), self.template data<T>(),
                 index.ndim > 0 ? self.strides[dim] : 0, index.ndim > 0 ? self.sizes[dim] : 1};
    E::template forEach<3>(call, p, true, f);
  });
}

/** scatter / scatterAdd into out (in place: out is self), from src (a tensor or a number). */
template <typename E, bool Add>
void scatterKernel(OpCall& call) {
  TensorView& out = call.out(0);
  const TensorView& index = call.in(1);
  expectIndexDtype(call, index);
  const bool number = call.isScalar(2);
  const TensorView* src = number ? nullptr : &call.in(2);
  const int64_t dim = checkIndexShapes(call.name(), out, index, src, call.attrInt("dim"));
  const IterPlan p = indexPlan(out, index, src, dim, 0);
  constexpr DtypeSet set = Add ? E::kAtomicAddDtypes : kAllDtypes;
  dispatchDtype<set>(out.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    ScatterF<T, Add> f{out.template data<T>(), index.template data<int64_t>(),
                       src ? src->template data<T>() : nullptr, static_cast<T>(static_cast<OpMathType<T>>(call.scalar(2))),
                       index.ndim > 0 ? out.strides[dim] : 0, index.ndim > 0 ? out.sizes[dim] : 1};
    E::template forEach<3>(call, p, !Add, f);
  });
}

}  // namespace ops
}  // namespace tsgpu

#define TSGPU_INDEX_KERNELS(X, E)          \
  X(gather, (gatherKernel<E>))             \
  X(scatter, (scatterKernel<E, false>))    \
  X(scatterAdd, (scatterKernel<E, true>))
