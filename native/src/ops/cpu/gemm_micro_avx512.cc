// The gemm micro kernels for avx512 (compile flags in CMakeLists.txt).
#define TSGPU_MICRO_NAME microKernelsAvx512
#define TSGPU_MICRO_ISA "avx512"
#define TSGPU_MICRO_VBYTES 64
#define TSGPU_MICRO_MR_F32 12
#define TSGPU_MICRO_MR_F64 12
#include "ops/cpu/gemm_micro.inc"
