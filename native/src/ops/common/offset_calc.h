// Compact index math for CUDA kernels over an IterPlan: OffsetCalc maps a
// linear element index to each operand's element offset with one divide per
// dim, done as a multiply-high by a precomputed magic number when the index
// fits 32 bits (Granlund–Montgomery), a plain divide otherwise. Plain data:
// built on the host, passed to kernels by value.
#pragma once

#include <cstdint>

#include "ops/common/broadcast.h"
#include "base/host_device.h"

namespace tsgpu {
namespace ops {

/** Divides 32-bit unsigned numerators by a fixed divisor >= 1. */
struct FastDivider32 {
  uint32_t divisor = 1;
  uint32_t magic = 1;
  uint32_t shift = 0;

  FastDivider32() = default;
  explicit FastDivider32(uint32_t d) : divisor(d) {
    while ((uint64_t(1) << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << shift) - d)) / d + 1);
  }
  TSGPU_HD uint32_t div(uint32_t n) const {
#ifdef __CUDA_ARCH__
    const uint32_t hi = __umulhi(n, magic);
#else
    const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(n) * magic) >> 32);
#endif
    return static_cast<uint32_t>((static_cast<uint64_t>(hi) + n) >> shift);
  }
};

/** Divides 64-bit numerators (for tensors of 2^32 elements or more). */
struct PlainDivider64 {
  uint64_t divisor = 1;
  PlainDivider64() = default;
  explicit PlainDivider64(uint64_t d) : divisor(d) {}
  TSGPU_HD uint64_t div(uint64_t n) const { return n / divisor; }
};

template <typename Index>
struct DividerFor;
template <>
struct DividerFor<uint32_t> {
  using type = FastDivider32;
};
template <>
struct DividerFor<uint64_t> {
  using type = PlainDivider64;
};

/** Linear index → element offset of each of N operands. */
template <int N, typename Index>
struct OffsetCalc {
  using Divider = typename DividerFor<Index>::type;
  int ndim = 0;
  Divider sizes[kMaxIterDims];
  int64_t strides[kMaxIterDims][N];

  OffsetCalc() = default;
  /** Takes operands [first, first + N) of the plan. */
  explicit OffsetCalc(const IterPlan& p, int first = 0) : ndim(p.ndim) {
    for (int d = 0; d < p.ndim; ++d) {
      sizes[d] = Divider(static_cast<Index>(p.sizes[d] > 0 ? p.sizes[d] : 1));
      for (int k = 0; k < N; ++k) strides[d][k] = p.strides[first + k][d];
    }
  }

  TSGPU_HD void get(Index linear, int64_t* offsets) const {
    for (int k = 0; k < N; ++k) offsets[k] = 0;
    for (int d = 0; d < ndim; ++d) {
      const Index q = sizes[d].div(linear);
      const Index r = linear - q * static_cast<Index>(sizes[d].divisor);
      for (int k = 0; k < N; ++k) offsets[k] += static_cast<int64_t>(r) * strides[d][k];
      linear = q;
    }
  }
};

/** True when a plan's linear indices fit the 32-bit fast path. */
inline bool fitsIndex32(const IterPlan& p) { return p.numel < (int64_t(1) << 31); }

}  // namespace ops
}  // namespace tsgpu
