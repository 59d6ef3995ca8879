// The gemm micro kernels for generic (compile flags in CMakeLists.txt).
#define TSGPU_MICRO_NAME microKernelsGeneric
#define TSGPU_MICRO_ISA "generic"
#define TSGPU_MICRO_VBYTES 16
#define TSGPU_MICRO_MR_F32 6
#define TSGPU_MICRO_MR_F64 6
#include "ops/cpu/gemm_micro.inc"
