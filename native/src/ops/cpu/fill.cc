// fill and arange on cpu; outputs may be strided views (fill of a diagonal
// for eye, fill_ of a slice).
#include "ops/view_index.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

constexpr int64_t kChunk = 1 << 20;  // elements between interrupt checks

template <typename T, typename F>
void writeEach(OpCall& call, const TensorView& out, F value) {
  T* o = out.data<T>();
  const int64_t n = out.numel();
  const bool dense = out.isContiguous();
  for (int64_t b = 0; b < n; b += kChunk) {
    call.checkInterrupt();
    const int64_t e = b + kChunk < n ? b + kChunk : n;
    if (dense) {
      for (int64_t i = b; i < e; ++i) o[i] = value(i);
    } else {
      viewindex::forEachOffset(out, b, e, [&](int64_t i, int64_t off) { o[off] = value(i); });
    }
  }
}

void fillCpu(OpCall& call) {
  const TensorView& out = call.out(0);
  const double v = call.attrDouble("value");
  visitDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T x = castValue<T>(v);
    writeEach<T>(call, out, [x](int64_t) { return x; });
  });
}

void arangeCpu(OpCall& call) {
  const TensorView& out = call.out(0);
  const double start = call.attrDouble("start"), step = call.attrDouble("step");
  visitDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    writeEach<T>(call, out, [start, step](int64_t i) { return castValue<T>(start + step * static_cast<double>(i)); });
  });
}

}  // namespace

TSGPU_REGISTER_KERNEL(fill, kCpu, fillCpu);
TSGPU_REGISTER_KERNEL(arange, kCpu, arangeCpu);

}  // namespace tsgpu
