// uniform, normal and randint on CUDA: one thread per Philox block of four
// elements, the same arithmetic as ops/cpu/random.cc, so a seed gives the
// same numbers on both devices.
#include <type_traits>

#include "ops/common/philox.h"
#include "ops/cuda/launch.cuh"
#include "ops/view_index.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

enum class Dist { kUniform, kNormal, kRandint };

template <typename T, Dist D>
__global__ void randomKernel(TensorView out, int64_t n, uint64_t seed, uint64_t firstBlock, double a, double b,
                             bool dense) {
  using M = OpMathType<T>;
  using F = typename std::conditional<std::is_same<M, double>::value, double, float>::type;
  T* o = out.data<T>();
  const int64_t blocks = (n + 3) / 4;
  TSGPU_GRID_STRIDE(j, blocks) {
    M v[4];
    const uint64_t blk = firstBlock + static_cast<uint64_t>(j);
    if (D == Dist::kUniform) {
      float u[4];
      philox::uniform4(seed, blk, u);
      for (int k = 0; k < 4; ++k) v[k] = static_cast<M>(a + (b - a) * static_cast<double>(u[k]));
    } else if (D == Dist::kNormal) {
      F z[4];
      philox::normal4<F>(seed, blk, z);
      for (int k = 0; k < 4; ++k) v[k] = static_cast<M>(static_cast<F>(a) + static_cast<F>(b) * z[k]);
    } else {
      uint32_t w[4];
      philox::block(seed, blk, w);
      const uint64_t range = static_cast<uint64_t>(static_cast<int64_t>(b) - static_cast<int64_t>(a));
      for (int k = 0; k < 4; ++k)
        v[k] = static_cast<M>(static_cast<double>(static_cast<int64_t>(a) + static_cast<int64_t>(w[k] % range)));
    }
    const int64_t i = j * 4;
    const int64_t m = n - i < 4 ? n - i : 4;
    for (int64_t k = 0; k < m; ++k) o[dense ? i + k : viewindex::offsetOf(out, i + k)] = castValue<T>(v[k]);
  }
}

template <Dist D>
void launch(OpCall& call, double a, double b) {
  const TensorView& out = call.out(0);
  const int64_t n = out.numel();
  if (n == 0) return;
  const RandomCounters rc = call.randomCounters(static_cast<uint64_t>(n));
  visitDType(out.dtype, [&](auto tag) {
    using T = decltype(tag);
    randomKernel<T, D><<<ops::cuda::gridFor((n + 3) / 4), ops::cuda::kBlockThreads, 0, ops::cuda::streamOf(call)>>>(
        out, n, rc.seed, rc.offset >> 2, a, b, out.isContiguous());
  });
  ops::cuda::checkLaunch(call);
}

void uniformCuda(OpCall& call) { launch<Dist::kUniform>(call, call.attrDouble("low"), call.attrDouble("high")); }
void normalCuda(OpCall& call) { launch<Dist::kNormal>(call, call.attrDouble("mean"), call.attrDouble("std")); }
void randintCuda(OpCall& call) {
  launch<Dist::kRandint>(call, static_cast<double>(call.attrInt("low")), static_cast<double>(call.attrInt("high")));
}

}  // namespace

TSGPU_REGISTER_KERNEL(uniform, kCuda, uniformCuda);
TSGPU_REGISTER_KERNEL(normal, kCuda, normalCuda);
TSGPU_REGISTER_KERNEL(randint, kCuda, randintCuda);

}  // namespace tsgpu
