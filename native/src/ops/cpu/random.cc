// uniform, normal and randint on cpu from the Philox counters of the call:
// row-major element i of the output uses counter offset + i, whatever the
// output's strides, so cpu and cuda (ops/cuda/random.cu) give the same numbers.
// A contiguous float32 normal (randn) takes the vector loop of vec_kernels.h
// on the thread pool; the values are those of philox::normal4.
#include <cmath>

#include "ops/common/philox.h"
#include "ops/cpu/vec_kernels.h"
#include "ops/view_index.h"
#include "runtime/op_registry.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace {

constexpr int64_t kChunk = 1 << 20;  // elements between interrupt checks (a multiple of 4)
constexpr int64_t kGroup = 4096;     // elements of the smallest parallel piece (a multiple of 4)

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

/** normal into a contiguous float32 output: the vector loop, ranges split over the thread pool. */
void normalDenseFloat(OpCall& call, float mean, float std) {
  const TensorView& out = call.out(0);
  const int64_t n = out.numel();
  if (n == 0) return;
  const RandomCounters rc = call.randomCounters(static_cast<uint64_t>(n));
  const uint64_t firstBlock = rc.offset >> 2;
  float* o = out.data<float>();
  const int64_t groups = (n + kGroup - 1) / kGroup;
  const vec::VecKernels& k = vec::vecKernels();
  parallel_for(0, groups, kChunk / kGroup, [&](int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; g += kChunk / kGroup) {
      call.checkInterrupt();
      const int64_t b = g * kGroup;
      const int64_t gEnd = g + kChunk / kGroup < g1 ? g + kChunk / kGroup : g1;
      const int64_t e = gEnd * kGroup < n ? gEnd * kGroup : n;
      k.normal(rc.seed, firstBlock + static_cast<uint64_t>(b >> 2), o + b, e - b, mean, std);
    }
  });
}

void normalCpu(OpCall& call) {
  const double mean = call.attrDouble("mean"), std = call.attrDouble("std");
  if (call.out(0).dtype == DType::kFloat32 && call.out(0).isContiguous())
    return normalDenseFloat(call, static_cast<float>(mean), static_cast<float>(std));
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
