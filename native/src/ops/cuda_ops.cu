// CUDA kernels for the same ops as cpu_ops.cc, queued on the device's stream
// (asynchronous; reads to the host wait for the stream).
#include <cuda_runtime.h>

#include "backends/cuda/cuda_check.h"
#include "ops/ops.h"

namespace tsgpu {
namespace cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kTile = 16;

unsigned blocksFor(size_t n) {
  size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b > 65535u * 16u ? 65535u * 16u : (b == 0 ? 1 : b));
}


__global__ void binaryKernel(ops::Binary op, float* out, const float* a, const float* b, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = ops::apply(op, a[i], b[i]);
}

__global__ void binaryScalarKernel(ops::Binary op, float* out, const float* a, float s, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = ops::apply(op, a[i], s);
}

__global__ void matmulKernel(float* out, const float* a, const float* b, size_t m, size_t k, size_t n) {
  __shared__ float as[kTile][kTile];
  __shared__ float bs[kTile][kTile];
  const size_t row = blockIdx.y * kTile + threadIdx.y;
  const size_t col = blockIdx.x * kTile + threadIdx.x;
  float acc = 0.0f;
  for (size_t t = 0; t < k; t += kTile) {
    as[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? a[row * k + t + threadIdx.x] : 0.0f;
    bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < k) ? b[(t + threadIdx.y) * n + col] : 0.0f;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) acc += as[threadIdx.y][p] * bs[p][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) out[row * n + col] = acc;
}

__global__ void sumKernel(float* out, const float* a, size_t n) {
  __shared__ float partial[kThreads];
  float acc = 0.0f;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    acc += a[i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

void checkLaunch(const char* what) {
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throwCudaError(err, what, __FILE__, __LINE__);
}

}  // namespace

void binary(int device, void* stream, ops::Binary op, float* out, const float* a, const float* b, size_t n) {
  TSGPU_CUDA_CHECK(cudaSetDevice(device));
  binaryKernel<<<blocksFor(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(op, out, a, b, n);
  checkLaunch("binaryKernel<<<>>>");
}

void binaryScalar(int device, void* stream, ops::Binary op, float* out, const float* a, float scalar, size_t n) {
  TSGPU_CUDA_CHECK(cudaSetDevice(device));
  binaryScalarKernel<<<blocksFor(n), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(op, out, a, scalar, n);
  checkLaunch("binaryScalarKernel<<<>>>");
}

void matmul(int device, void* stream, float* out, const float* a, const float* b, size_t m, size_t k, size_t n) {
  TSGPU_CUDA_CHECK(cudaSetDevice(device));
  dim3 block(kTile, kTile);
  dim3 grid(static_cast<unsigned>((n + kTile - 1) / kTile), static_cast<unsigned>((m + kTile - 1) / kTile));
  matmulKernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(out, a, b, m, k, n);
  checkLaunch("matmulKernel<<<>>>");
}

void sum(int device, void* stream, float* out, const float* a, size_t n) {
  TSGPU_CUDA_CHECK(cudaSetDevice(device));
  TSGPU_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), static_cast<cudaStream_t>(stream)));
  unsigned blocks = blocksFor(n);
  if (blocks > 1024) blocks = 1024;
  sumKernel<<<blocks, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(out, a, n);
  checkLaunch("sumKernel<<<>>>");
}

}  // namespace cuda
}  // namespace tsgpu
