// Pieces shared by the CPU gemm's files (not part of the gemm interface).
#pragma once

#include "ops/cpu/gemm_micro.h"
#include "ops/gemm.h"

namespace tsgpu {
namespace gemm {

/** The micro kernels for this CPU (chosen once; TSGPU_GEMM_ISA=generic forces the portable ones). */
const MicroKernels& blockedKernels();

/** The blocked gemm with the given micro kernels (tests run every set the CPU supports). */
void gemmCpuBlockedWith(const MicroKernels& kern, const Problem& p);

/**
 * Runs a float16/bfloat16 problem as float32: widens A and B (and C when
 * beta != 0) into contiguous float32 buffers, calls runFloat32 on them and
 * rounds the result into C.
 */
void gemmWidened(const Problem& p, void (*runFloat32)(const Problem&));

}  // namespace gemm
}  // namespace tsgpu
