// copy on cpu: out <- src with dtype conversion and any strides (contiguous(),
// to(dtype), clone(), copy_() with src already broadcast to out's shape).
// Large copies split over the thread pool; runs that are dense in both
// views and of one dtype are memcpy'd (a narrow, a cat's slot, a roll).
#include <cstring>
#include <type_traits>

#include "ops/common/broadcast.h"
#include "ops/common/strided_walker.h"
#include "ops/copy_args.h"
#include "runtime/op_registry.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace {

constexpr int64_t kChunk = 1 << 20;         // elements between interrupt checks on one thread
constexpr int64_t kParallelGrain = 1 << 16;  // elements a thread of a parallel copy takes at least

/** A [out, src] iteration plan of the copy: dims merged where both are dense, so inner runs are as long as they can be. */
ops::IterPlan copyPlan(const TensorView& out, const TensorView& src) {
  ops::Shape shape(out.sizes, out.sizes + out.ndim);
  ops::Shape os(out.strides, out.strides + out.ndim), ss(src.strides, src.strides + src.ndim);
  return ops::makeIterPlan(shape, {os, ss});
}

template <typename To, typename From>
void copyTyped(OpCall& call, const TensorView& out, const TensorView& src) {
  To* o = out.data<To>();
  const From* s = src.data<From>();
  const int64_t n = out.numel();
  constexpr bool kSame = std::is_same<To, From>::value;
  if (n < kParallelGrain && out.isContiguous() && src.isContiguous()) {
    if (kSame) {
      std::memcpy(static_cast<void*>(o), static_cast<const void*>(s), static_cast<size_t>(n) * sizeof(To));
    } else {
      for (int64_t i = 0; i < n; ++i) o[i] = castValue<To>(s[i]);
    }
    return;
  }
  // Any strides: runs along the innermost merged dim, a memcpy where both are dense and the dtype is
  // the same, split over the thread pool (one chunk, on this thread, for a small copy).
  const ops::IterPlan plan = copyPlan(out, src);
  parallel_for(0, n, kParallelGrain, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; c += kChunk) {
      call.checkInterrupt();
      ops::walkRows<2>(plan, c, c + kChunk < e ? c + kChunk : e, [&](const int64_t* off, int64_t count) {
        const int64_t os = plan.innerStride(0), ss = plan.innerStride(1);
        To* y = o + off[0];
        const From* x = s + off[1];
        if (kSame && os == 1 && ss == 1) {
          std::memcpy(static_cast<void*>(y), static_cast<const void*>(x), static_cast<size_t>(count) * sizeof(To));
        } else if (os == 1 && ss == 1) {
          for (int64_t j = 0; j < count; ++j) y[j] = castValue<To>(x[j]);
        } else {
          for (int64_t j = 0; j < count; ++j) y[j * os] = castValue<To>(x[j * ss]);
        }
      });
    }
  });
}

void copyCpu(OpCall& call) {
  TensorView& out = call.out(0);
  const TensorView& src = call.in(0);
  checkCopyArgs(call);
  if (out.numel() == 0) return;
  visitDType(out.dtype, [&](auto to) {
    visitDType(src.dtype, [&](auto from) { copyTyped<decltype(to), decltype(from)>(call, out, src); });
  });
}

}  // namespace

TSGPU_REGISTER_KERNEL(copy, kCpu, copyCpu);

}  // namespace tsgpu
