// softmax, logSoftmax and cumsum on cpu: rows split over the thread pool;
// each row is read in the compute type (float for half/bfloat16). Softmax
// rows of float dtypes run the fused vector loop (vec_kernels.h: max, then
// exp and sum in one pass, then the scale); float64 the scalar one.
#include <type_traits>
#include <vector>

#include "ops/common/dim_kernels.h"
#include "ops/common/scalar_math.h"
#include "ops/common/strided_walker.h"
#include "ops/cpu/vec_bulk.h"
#include "ops/cpu/vec_kernels.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace ops {
namespace {

template <typename F>
void forEachRow(const OpCall& call, const DimPlan& p, F&& row) {
  const int64_t grain = p.len >= 4096 ? 1 : 4096 / (p.len > 0 ? p.len : 1);
  parallel_for(0, p.rows.numel, grain, [&](int64_t b, int64_t e) {
    call.checkInterrupt();
    walkElements<2>(p.rows, b, e, [&](const int64_t* off) { row(off[0], off[1]); });
  });
}

struct CpuDim {
  template <typename T, bool Log>
  static void softmax(const OpCall& call, const DimPlan& p, T* out, const T* in) {
    using M = OpMathType<T>;
    const int64_t n = p.len, is = p.inStride, os = p.outStride;
    if constexpr (cpu::kFloatStorage<T>) {
      // float32, float16, bfloat16: the vector loop on each row, gathered into a float buffer
      // unless it is a contiguous float32 row.
      const bool direct = std::is_same<T, float>::value && is == 1 && os == 1;
      forEachRow(call, p, [&](int64_t oo, int64_t io) {
        const T* x = in + io;
        T* y = out + oo;
        if (direct) return vec::vecKernels().softmaxRow(reinterpret_cast<const float*>(x), reinterpret_cast<float*>(y), n, Log);
        thread_local std::vector<float> buf;
        buf.resize(static_cast<size_t>(n));
        for (int64_t j = 0; j < n; ++j) buf[j] = static_cast<float>(x[j * is]);
        vec::vecKernels().softmaxRow(buf.data(), buf.data(), n, Log);
        for (int64_t j = 0; j < n; ++j) y[j * os] = static_cast<T>(buf[j]);
      });
      return;
    }
    forEachRow(call, p, [&](int64_t oo, int64_t io) {
      const T* x = in + io;
      T* y = out + oo;
      M mx = sm::Limits<M>::lowest();
      for (int64_t j = 0; j < n; ++j) {
        const M v = static_cast<M>(x[j * is]);
        mx = (sm::isNan(v) || v > mx) ? v : mx;
      }
      if (mx == sm::Limits<M>::lowest()) mx = M(0);  // all -inf: exp(-inf - 0) = 0
      M sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += sm::exp(static_cast<M>(x[j * is]) - mx);
      if (Log) {
        const M shift = mx + sm::log(sum);
        for (int64_t j = 0; j < n; ++j) y[j * os] = static_cast<T>(static_cast<M>(x[j * is]) - shift);
      } else {
        const M inv = M(1) / sum;
        for (int64_t j = 0; j < n; ++j) y[j * os] = static_cast<T>(sm::exp(static_cast<M>(x[j * is]) - mx) * inv);
      }
    });
  }

  template <typename T, typename O>
  static void cumsum(const OpCall& call, const DimPlan& p, O* out, const T* in) {
    using Acc = red::AccOf<OpMathType<T>>;
    forEachRow(call, p, [&](int64_t oo, int64_t io) {
      Acc acc = 0;
      for (int64_t j = 0; j < p.len; ++j) {
        acc += static_cast<Acc>(static_cast<OpMathType<T>>(in[io + j * p.inStride]));
        out[oo + j * p.outStride] = static_cast<O>(acc);
      }
    });
  }
};

}  // namespace

#define TSGPU_REGISTER_CPU(op, kernel) TSGPU_REGISTER_KERNEL(op, kCpu, kernel);
TSGPU_DIM_KERNELS(TSGPU_REGISTER_CPU, CpuDim)
#undef TSGPU_REGISTER_CPU

}  // namespace ops
}  // namespace tsgpu
