// The gemm micro kernels for avx2 (compile flags in CMakeLists.txt).
#define TSGPU_MICRO_NAME microKernelsAvx2
#define TSGPU_MICRO_ISA "avx2"
#define TSGPU_MICRO_VBYTES 32
#define TSGPU_MICRO_MR_F32 6
#define TSGPU_MICRO_MR_F64 6
#include "ops/cpu/gemm_micro.inc"
