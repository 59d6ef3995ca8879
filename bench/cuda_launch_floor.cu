// The host time of one CUDA kernel launch on this machine: the floor under
// any op that launches a kernel, whatever its language. Launches a kernel
// that adds two 256-element float vectors (the small op of bench/ops_bench.ts)
// 20,000 times in a row on a non-blocking stream, as the runtime does, and
// prints the best of five rounds as JSON, in microseconds per launch:
//   {"launch_us": 4.4, "empty_launch_us": 4.2, "launches": 20000, "device": "NVIDIA H200"}
// Without a GPU it prints {"error": "..."} and exits 1.
//
//   build/Release/tsgpu_launch_floor
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>

namespace {

constexpr int kLaunches = 20000;  // launches per round
constexpr int kRounds = 5;        // the best round is reported
constexpr int kElements = 256;    // elements of the add

__global__ void emptyKernel() {}

__global__ void add256(const float* a, const float* b, float* c, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

bool failed(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return false;
  std::printf("{\"error\": \"%s: %s\"}\n", what, cudaGetErrorString(err));
  return true;
}

/** Best microseconds per launch over kRounds rounds of kLaunches launches of `launch`, the stream drained after each. */
template <typename F>
double bestMicros(cudaStream_t stream, F launch) {
  double best = 1e30;
  for (int r = 0; r < kRounds; ++r) {
    cudaStreamSynchronize(stream);
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < kLaunches; ++k) launch();
    cudaStreamSynchronize(stream);
    const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / kLaunches;
    if (us < best) best = us;
  }
  return best;
}

}  // namespace

int main() {
  float *a = nullptr, *b = nullptr, *c = nullptr;
  cudaStream_t stream = nullptr;
  if (failed(cudaSetDevice(0), "cudaSetDevice") || failed(cudaMalloc(&a, kElements * 4), "cudaMalloc") ||
      failed(cudaMalloc(&b, kElements * 4), "cudaMalloc") || failed(cudaMalloc(&c, kElements * 4), "cudaMalloc") ||
      failed(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags"))
    return 1;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  const double empty = bestMicros(stream, [&] { emptyKernel<<<1, 32, 0, stream>>>(); });
  const double add = bestMicros(stream, [&] {
    add256<<<1, kElements, 0, stream>>>(a, b, c, kElements);
    cudaGetLastError();  // the runtime checks every launch
  });
  if (failed(cudaStreamSynchronize(stream), "launch")) return 1;
  std::printf("{\"launch_us\": %.3f, \"empty_launch_us\": %.3f, \"launches\": %d, \"device\": \"%s\"}\n", add, empty,
              kLaunches, prop.name);
  return 0;
}
