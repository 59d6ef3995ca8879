// CPU iteration over an IterPlan: calls `row(offsets, count)` for each run of
// elements along the innermost dim, where operand k's elements are at
// offsets[k] + j * plan.innerStride(k) for j < count. A range [begin, end) of
// linear element indices lets a thread pool split the work anywhere.
#pragma once

#include <cstdint>

#include "ops/common/broadcast.h"

namespace tsgpu {
namespace ops {

template <int N, typename Row>
void walkRows(const IterPlan& p, int64_t begin, int64_t end, Row&& row) {
  static_assert(N <= kMaxOperands, "too many operands for an IterPlan");
  if (begin >= end) return;
  int64_t offsets[N > 0 ? N : 1] = {};
  if (p.ndim == 0) {  // a scalar: one element at offset 0
    row(offsets, int64_t(1));
    return;
  }
  int64_t idx[kMaxIterDims];
  int64_t rem = begin;
  for (int d = 0; d < p.ndim; ++d) {
    idx[d] = rem % p.sizes[d];
    rem /= p.sizes[d];
    for (int k = 0; k < N; ++k) offsets[k] += idx[d] * p.strides[k][d];
  }
  int64_t pos = begin;
  while (pos < end) {
    int64_t count = p.sizes[0] - idx[0];
    if (count > end - pos) count = end - pos;
    row(offsets, count);
    pos += count;
    if (pos >= end) break;
    idx[0] += count;
    for (int k = 0; k < N; ++k) offsets[k] += count * p.strides[k][0];
    for (int d = 0; idx[d] == p.sizes[d] && d + 1 < p.ndim; ++d) {
      for (int k = 0; k < N; ++k) offsets[k] += p.strides[k][d + 1] - p.sizes[d] * p.strides[k][d];
      idx[d] = 0;
      ++idx[d + 1];
    }
  }
}

/** Calls `elem(offsets)` for every element in [begin, end) (a convenience over walkRows). */
template <int N, typename Elem>
void walkElements(const IterPlan& p, int64_t begin, int64_t end, Elem&& elem) {
  walkRows<N>(p, begin, end, [&](const int64_t* base, int64_t count) {
    int64_t off[N > 0 ? N : 1];
    for (int k = 0; k < N; ++k) off[k] = base[k];
    for (int64_t j = 0; j < count; ++j) {
      elem(static_cast<const int64_t*>(off));
      for (int k = 0; k < N; ++k) off[k] += p.ndim ? p.strides[k][0] : 0;
    }
  });
}

}  // namespace ops
}  // namespace tsgpu
