// uniform, normal and randint on cpu from the Philox counters of the call:
// row-major element i of the output uses counter offset + i, whatever the
// output's strides, so cpu and cuda (ops/cuda/random.cu) give the same numbers.
#include <cmath>

#include "ops/common/philox.h"
#include "ops/view_index.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

constexpr int64_t kChunk = 1 << 20;  // elements between interrupt checks (a multiple of 4)

/** Writes gen(block, values[4]) into the output, four elements per Philox block. */
template <typename T, typename M, typename Gen>
void generate(OpCall& call, Gen gen) {
  const TensorView& out = call.out(0);
  const int64_t n = out.numel();
  if (n == 0) return;
  const RandomCounters rc = call.randomCounters(static_cast<uint64_t>(n));
  const uint64_t firstBlock = rc.offset >> 2;
  T* o = out.data<T>();
  const bool dense = out.isContiguous();
  for (int64_t b = 0; b < n; b += kChunk) {
    call.checkInterrupt();
    const int64_t e = b + kChunk < n ? b + kChunk : n;
    for (int64_t i = b; i < e; i += 4) {
      M v[4];
      gen(rc.seed, firstBlock + static_cast<uint64_t>(i >> 2), v);
      const int64_t m = e - i < 4 ? e - i : 4;
      for (int64_t k = 0; k < m; ++k) o[dense ? i + k : viewindex::offsetOf(out, i + k)] = castValue<T>(v[k]);
    }
  }
}

void uniformCpu(OpCall& call) {
  const double low = call.attrDouble("low"), high = call.attrDouble("high");
  visitDType(call.out(0).dtype, [&](auto tag) {
    using T = decltype(tag);
    using M = OpMathType<T>;
    generate<T, M>(call, [low, high](uint64_t seed, uint64_t blk, M* v) {
      float u[4];
      philox::uniform4(seed, blk, u);
      for (int k = 0; k < 4; ++k) v[k] = static_cast<M>(low + (high - low) * static_cast<double>(u[k]));
    });
  });
}

void normalCpu(OpCall& call) {
  const double mean = call.attrDouble("mean"), std = call.attrDouble("std");
  visitDType(call.out(0).dtype, [&](auto tag) {
    using T = decltype(tag);
    using M = OpMathType<T>;
    using F = typename std::conditional<std::is_same<M, double>::value, double, float>::type;
    generate<T, M>(call, [mean, std](uint64_t seed, uint64_t blk, M* v) {
      F z[4];
      philox::normal4<F>(seed, blk, z);
      for (int k = 0; k < 4; ++k) v[k] = static_cast<M>(static_cast<F>(mean) + static_cast<F>(std) * z[k]);
    });
  });
}

void randintCpu(OpCall& call) {
  const int64_t low = call.attrInt("low"), high = call.attrInt("high");
  const uint64_t range = static_cast<uint64_t>(high - low);
  visitDType(call.out(0).dtype, [&](auto tag) {
    using T = decltype(tag);
    using M = OpMathType<T>;
    generate<T, M>(call, [low, range](uint64_t seed, uint64_t blk, M* v) {
      uint32_t w[4];
      philox::block(seed, blk, w);
      for (int k = 0; k < 4; ++k) v[k] = static_cast<M>(static_cast<double>(low + static_cast<int64_t>(w[k] % range)));
    });
  });
}

}  // namespace

TSGPU_REGISTER_KERNEL(uniform, kCpu, uniformCpu);
TSGPU_REGISTER_KERNEL(normal, kCpu, normalCpu);
TSGPU_REGISTER_KERNEL(randint, kCpu, randintCpu);

}  // namespace tsgpu
