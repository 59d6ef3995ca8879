// TSGPU_HD marks small functions that both the CPU and the CUDA kernels call.
#pragma once

#ifdef __CUDACC__
#define TSGPU_HD __host__ __device__ __forceinline__
#else
#define TSGPU_HD inline
#endif
