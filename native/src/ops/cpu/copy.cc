// copy on cpu: out <- src with dtype conversion and any strides (contiguous(),
// to(dtype), clone(), copy_() with src already broadcast to out's shape).
#include <cstring>

#include "ops/copy_args.h"
#include "ops/view_index.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

constexpr int64_t kChunk = 1 << 20;  // elements between interrupt checks

template <typename To, typename From>
void copyTyped(OpCall& call, const TensorView& out, const TensorView& src) {
  To* o = out.data<To>();
  const From* s = src.data<From>();
  const int64_t n = out.numel();
  if (out.isContiguous() && src.isContiguous()) {
    if (std::is_same<To, From>::value) {
      std::memcpy(static_cast<void*>(o), static_cast<const void*>(s), static_cast<size_t>(n) * sizeof(To));
      return;
    }
    for (int64_t b = 0; b < n; b += kChunk) {
      call.checkInterrupt();
      const int64_t e = b + kChunk < n ? b + kChunk : n;
      for (int64_t i = b; i < e; ++i) o[i] = castValue<To>(s[i]);
    }
    return;
  }
  for (int64_t b = 0; b < n; b += kChunk) {
    call.checkInterrupt();
    const int64_t e = b + kChunk < n ? b + kChunk : n;
    if (out.isContiguous()) {
      viewindex::forEachOffset(src, b, e, [&](int64_t i, int64_t so) { o[i] = castValue<To>(s[so]); });
    } else {
      const bool dense = src.isContiguous();
      viewindex::forEachOffset(out, b, e, [&](int64_t i, int64_t oo) {
        o[oo] = castValue<To>(s[dense ? i : viewindex::offsetOf(src, i)]);
      });
    }
  }
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
