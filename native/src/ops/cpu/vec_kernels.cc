// Picks the vectorized loops (vec_kernels.h) for the machine, once.
#include "ops/cpu/vec_kernels.h"

#include <cstdlib>
#include <cstring>

namespace tsgpu {
namespace vec {
namespace {

const VecKernels& pick() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const char* cap = std::getenv("TSGPU_CPU_ISA");
  const bool generic = cap != nullptr && std::strcmp(cap, "generic") == 0;
  const bool upToAvx2 = cap != nullptr && std::strcmp(cap, "avx2") == 0;
  if (!generic && !upToAvx2 && __builtin_cpu_supports("avx512f")) {
    // normal's 4-wide interleaved stores come out slower from the 512-bit build (measured on a
    // Xeon with AVX-512: about 1.5x the time of the 256-bit one): it keeps the avx2 loop.
    static VecKernels mixed = vecKernelsAvx512();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) mixed.normal = vecKernelsAvx2().normal;
    return mixed;
  }
  if (!generic && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return vecKernelsAvx2();
#endif
  return vecKernelsGeneric();
}

}  // namespace

const VecKernels& vecKernels() {
  static const VecKernels& k = pick();
  return k;
}

}  // namespace vec
}  // namespace tsgpu
