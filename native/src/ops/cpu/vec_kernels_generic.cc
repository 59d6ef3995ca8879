// The vectorized cpu loops for generic (compile flags in CMakeLists.txt).
#define TSGPU_VEC_NAME vecKernelsGeneric
#define TSGPU_VEC_ISA "generic"
#include "ops/cpu/vec_kernels.inc"
