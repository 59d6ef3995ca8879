// nonzero on cpu: the coordinates of the nonzero elements of a contiguous
// tensor, row-major order, into out [count, ndim] (int64), which the
// TypeScript function sized from a count it made first. Two passes over
// chunks of the thread pool: each chunk counts its nonzero elements, then
// writes their coordinates at the offset the counts before it give. On cuda
// the TypeScript function runs this kernel on a host copy.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "base/errors.h"
#include "ops/common/dispatch.h"
#include "runtime/op_registry.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

/** Elements per chunk: each chunk's count is one slot of the offsets. */
constexpr int64_t kNonzeroGrain = 1 << 16;

/** v != 0; NaN counts as nonzero, as in PyTorch (NaN != 0). */
template <typename T>
bool isNonzero(T v) {
  if constexpr (std::is_same<T, bool>::value) return v;
  else return static_cast<double>(v) != 0.0;
}

void nonzeroCpu(OpCall& call) {
  const TensorView& in = call.in(0);
  TensorView& out = call.out(0);
  if (!in.isContiguous()) throw ArgumentError("nonzero: expected a contiguous input");
  const int nd = in.ndim;
  const int64_t n = in.numel();
  const int64_t chunks = (n + kNonzeroGrain - 1) / kNonzeroGrain;
  int64_t* coords = out.data<int64_t>();
  dispatchDtype<kAllDtypes>(in.dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = in.data<T>();
    std::vector<int64_t> start(static_cast<size_t>(chunks) + 1, 0);
    parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
      call.checkInterrupt();
      for (int64_t c = c0; c < c1; ++c) {
        const int64_t e = std::min(n, (c + 1) * kNonzeroGrain);
        int64_t count = 0;
        for (int64_t i = c * kNonzeroGrain; i < e; ++i) count += isNonzero(x[i]) ? 1 : 0;
        start[c + 1] = count;
      }
    });
    for (int64_t c = 0; c < chunks; ++c) start[c + 1] += start[c];
    if (out.numel() != start[chunks] * nd)
      throw ArgumentError("nonzero: the output holds " + std::to_string(out.numel()) + " coordinates, the input has " +
                          std::to_string(start[chunks]) + " nonzero elements of " + std::to_string(nd) + " each");
    if (nd == 0) return;
    parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        int64_t i = c * kNonzeroGrain;
        const int64_t e = std::min(n, i + kNonzeroGrain);
        int64_t idx[kMaxDims];
        for (int64_t d = nd - 1, rest = i; d >= 0; --d) {  // the multi-index of the chunk's first element
          idx[d] = rest % in.sizes[d];
          rest /= in.sizes[d];
        }
        int64_t* o = coords + start[c] * nd;
        for (; i < e; ++i) {
          if (isNonzero(x[i])) {
            for (int d = 0; d < nd; ++d) o[d] = idx[d];
            o += nd;
          }
          for (int d = nd - 1; d >= 0; --d) {
            if (++idx[d] < in.sizes[d]) break;
            idx[d] = 0;
          }
        }
      }
    });
  });
}

}  // namespace

TSGPU_REGISTER_KERNEL(nonzero, kCpu, nonzeroCpu);

}  // namespace ops
}  // namespace tsgpu
