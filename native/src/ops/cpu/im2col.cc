// im2col and col2im on cpu (ops/common/im2col_kernels.h): rows of the column
// side (im2col) or image planes (col2im) split over the thread pool.
#include "ops/common/dispatch.h"
#include "ops/common/im2col_kernels.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

/** Elements per chunk of work, roughly (between interrupt checks). */
constexpr int64_t kGrainElems = 1 << 15;

void im2colCpu(OpCall& call) {
  const ColGeometry g = colGeometry(call, true);
  const double padValue = call.attrDouble("padValue");
  const int64_t cols = g.cols();
  const int64_t rows = g.n * g.rows();
  if (rows * cols == 0) return;
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = call.in(0).template data<T>();
    T* out = call.out(0).template data<T>();
    const T pad = static_cast<T>(static_cast<OpMathType<T>>(padValue));
    const int64_t grain = cols >= kGrainElems ? 1 : kGrainElems / cols;
    parallel_for(0, rows, grain, [&](int64_t r0, int64_t r1) {
      call.checkInterrupt();
      for (int64_t r = r0; r < r1; ++r) {
        T* o = out + r * cols;
        for (int64_t j = 0; j < cols; ++j) {
          const int64_t src = im2colSource(g, r * cols + j);
          o[j] = src < 0 ? pad : x[src];
        }
      }
    });
  });
}

void col2imCpu(OpCall& call) {
  const ColGeometry g = colGeometry(call, false);
  const int64_t plane = g.h * g.w;
  const int64_t planes = g.n * g.c;
  if (planes * plane == 0) return;
  dispatchDtype<kFloatDtypes>(call.in(0).dtype, call.name(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = OpMathType<T>;
    const T* col = call.in(0).template data<T>();
    T* out = call.out(0).template data<T>();
    const int64_t grain = plane >= kGrainElems ? 1 : kGrainElems / plane;
    parallel_for(0, planes, grain, [&](int64_t p0, int64_t p1) {
      call.checkInterrupt();
      for (int64_t i = p0 * plane; i < p1 * plane; ++i) out[i] = static_cast<T>(col2imSum<T, M>(g, col, i));
    });
  });
}

}  // namespace

TSGPU_REGISTER_KERNEL(im2col, kCpu, im2colCpu);
TSGPU_REGISTER_KERNEL(col2im, kCpu, col2imCpu);

}  // namespace ops
}  // namespace tsgpu
