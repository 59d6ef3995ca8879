// The vectorized cpu loops for avx512 (compile flags in CMakeLists.txt).
#define TSGPU_VEC_NAME vecKernelsAvx512
#define TSGPU_VEC_ISA "avx512"
#include "ops/cpu/vec_kernels.inc"
