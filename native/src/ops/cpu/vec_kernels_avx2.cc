// The vectorized cpu loops for avx2 (compile flags in CMakeLists.txt).
#define TSGPU_VEC_NAME vecKernelsAvx2
#define TSGPU_VEC_ISA "avx2"
#include "ops/cpu/vec_kernels.inc"
