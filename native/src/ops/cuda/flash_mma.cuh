// Warp-level building blocks of the flash-attention kernels (flash_attention.cu)
// for sm_80 and later: asynchronous 16-byte copies into shared memory,
// ldmatrix loads of 8×8 tiles of 16-bit values, and the m16n8k16 tensor-core
// MMA (float16 or bfloat16 inputs, float32 accumulators), written as PTX.
//
// Fragment layouts of mma.m16n8k16 (g = lane / 4, t = lane % 4):
//   A (16×16, row-major):  a0 (g, 2t..2t+1), a1 (g+8, 2t..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
//   B (16×8, k × n):       b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
//   C (16×8, float):       c0,c1 (g, 2t..2t+1), c2,c3 (g+8, 2t..2t+1)
// so that the C tiles of two adjacent n-chunks, converted to 16 bits, are the
// A fragment of the next product (P·V) without leaving registers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

namespace tsgpu {
namespace ops {
namespace cuda {
namespace flash {

/** 16 bytes global → shared, asynchronously; zero-filled when !valid (gmem is then not read). */
__device__ __forceinline__ void cpAsync16(void* smem, const void* gmem, bool valid) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  const int bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(gmem), "r"(bytes));
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;\n" ::); }
/** Waits until at most N committed groups are still in flight. */
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

/** Four 8×8 tiles of 16-bit values; lane l gives the address of row l % 8 of tile l / 8. */
__device__ __forceinline__ void ldsm4(uint32_t (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}
/** ldsm4, each tile transposed. */
__device__ __forceinline__ void ldsm4t(uint32_t (&r)[4], const void* smem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(s));
}

/** 16-bit element type of the kernels: __half or __nv_bfloat16. */
template <typename T>
struct Mma;

template <>
struct Mma<__half> {
  /** c += a·b for one 16×8 tile. */
  static __device__ __forceinline__ void run(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  /** Two floats as one register of two 16-bit values (x low). */
  static __device__ __forceinline__ uint32_t pack(float x, float y) {
    const __half2 h = __floats2half2_rn(x, y);
    return *reinterpret_cast<const uint32_t*>(&h);
  }
  static __device__ __forceinline__ float toFloat(uint16_t bits) { return __half2float(__ushort_as_half(bits)); }
  static __device__ __forceinline__ uint16_t fromFloat(float x) { return __half_as_ushort(__float2half_rn(x)); }
};

template <>
struct Mma<__nv_bfloat16> {
  static __device__ __forceinline__ void run(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
  static __device__ __forceinline__ uint32_t pack(float x, float y) {
    const __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
    return *reinterpret_cast<const uint32_t*>(&h);
  }
  static __device__ __forceinline__ float toFloat(uint16_t bits) {
    return __bfloat162float(__ushort_as_bfloat16(bits));
  }
  static __device__ __forceinline__ uint16_t fromFloat(float x) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(x));
  }
};

/** Max and sum over the four lanes of a quad (the lanes that share a row of a C tile). */
__device__ __forceinline__ float quadMax(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
  return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}
__device__ __forceinline__ float quadSum(float v) {
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

}  // namespace flash
}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
