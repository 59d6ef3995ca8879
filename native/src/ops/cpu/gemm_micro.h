// The register-blocked inner kernels of the CPU gemm, compiled once per
// instruction set (gemm_micro_{generic,avx2,avx512}.cc include
// gemm_micro.inc with different compiler flags) and picked at run time.
#pragma once

#include <cstdint>

namespace tsgpu {
namespace gemm {

/**
 * c[mv×nv] (row stride rs, column stride cs) = alpha · Ap·Bp + beta · c, where
 * Ap is a packed MR×kc sliver (kc steps of MR values) and Bp a packed kc×NR
 * sliver (kc steps of NR values, 64-byte aligned); mv <= MR and nv <= NR.
 * beta == 0 does not read c.
 */
template <typename T>
using MicroKernel = void (*)(int64_t kc, const T* ap, const T* bp, T* c, int64_t rs, int64_t cs, int mv, int nv,
                             T alpha, T beta);

struct MicroKernels {
  const char* isa;
  int mrF32, nrF32, mrF64, nrF64;
  MicroKernel<float> f32;
  MicroKernel<double> f64;
  /** Widening and narrowing of 16-bit floats (bf16 when `brain`, else IEEE half). */
  void (*toFloat)(const uint16_t* in, float* out, int64_t n, bool brain);
  void (*fromFloat)(const float* in, uint16_t* out, int64_t n, bool brain);
};

const MicroKernels& microKernelsGeneric();
const MicroKernels& microKernelsAvx2();    // only call when the CPU has AVX2 and FMA
const MicroKernels& microKernelsAvx512();  // only call when the CPU has AVX-512F

}  // namespace gemm
}  // namespace tsgpu
