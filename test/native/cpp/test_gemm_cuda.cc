// Tests of the CUDA gemm (cuBLAS and the built-in kernel) against the float64
// reference, on the same random cases as the CPU gemm. Where CUDA is
// unavailable every test prints why and passes without running.
#include <cuda_runtime.h>

#include <iostream>
#include <string>
#include <vector>

#include "backends/cuda/cublas_loader.h"
#include "backends/cuda/cuda_backend.h"
#include "gemm_test_util.h"
#include "harness.h"
#include "ops/gemm.h"

using namespace tsgpu::gemm;
using gemmtest::Case;
using gemmtest::Layout;

namespace {

bool cudaHere() {
  const auto& av = tsgpu::cudaAvailability();
  if (!av.available) std::cout << "  SKIP (needs a CUDA GPU): " << av.reason << "\n";
  return av.available;
}

/** Copies a case's operands to the GPU, runs `run` on stream 0, copies C back and compares. */
void checkOnGpu(const Case& c, void (*run)(const Problem&, int, void*), const std::string& label) {
  gemmtest::Operands ops(c);
  Problem p = ops.problem();
  void* dev[3] = {nullptr, nullptr, nullptr};
  const char names[3] = {'a', 'b', 'c'};
  void** slots[3] = {&p.a.data, &p.b.data, &p.c.data};
  for (int i = 0; i < 3; ++i) {
    auto& bytes = ops.bytesOf(names[i]);
    cudaMalloc(&dev[i], bytes.size());
    cudaMemcpy(dev[i], bytes.data(), bytes.size(), cudaMemcpyHostToDevice);
    *slots[i] = dev[i];
  }
  run(p, 0, nullptr);
  auto& cb = ops.bytesOf('c');
  cudaError_t err = cudaMemcpy(cb.data(), dev[2], cb.size(), cudaMemcpyDeviceToHost);
  for (void* d : dev) cudaFree(d);
  if (err != cudaSuccess) {
    harness::fail(__FILE__, __LINE__, label + " " + c.describe() + ": " + cudaGetErrorString(err));
    return;
  }
  const std::string why = ops.compare();
  if (!why.empty()) harness::fail(__FILE__, __LINE__, label + " " + c.describe() + ": " + why);
}

std::vector<Case> cudaCases(ScalarType t, bool tf32) {
  std::vector<Case> cases;
  const int64_t shapes[][4] = {{1, 1, 1, 1}, {1, 7, 13, 5}, {3, 129, 65, 300}, {1, 257, 255, 64}, {4, 64, 64, 128}};
  int seed = 100;
  for (const auto& s : shapes) {
    Case c;
    c.type = t;
    c.tf32 = tf32;
    c.batch = s[0];
    c.m = s[1];
    c.n = s[2];
    c.k = s[3];
    c.seed = seed++;
    cases.push_back(c);
  }
  for (Layout la : {Layout::kRowMajor, Layout::kColMajor, Layout::kPadded})
    for (Layout lb : {Layout::kRowMajor, Layout::kColMajor})
      for (Layout lc : {Layout::kRowMajor, Layout::kColMajor}) {
        Case c;
        c.type = t;
        c.tf32 = tf32;
        c.batch = 2;
        c.m = 37;
        c.n = 29;
        c.k = 41;
        c.la = la;
        c.lb = lb;
        c.lc = lc;
        c.alpha = 0.75;
        c.beta = lc == Layout::kRowMajor ? 0.0 : -1.25;
        c.nanInC = c.beta == 0.0;
        c.broadcastB = la == Layout::kPadded;
        c.seed = seed++;
        cases.push_back(c);
      }
  return cases;
}

}  // namespace

TEST(gemm_cuda_reports_its_engine) {
  if (!cudaHere()) return;
  const std::string d = cudaBackendDescription();
  std::cout << "  cuda gemm: " << d << "\n";
  CHECK(d.rfind("cuBLAS", 0) == 0 || d.rfind("built-in kernel: ", 0) == 0);
}

TEST(gemm_cuda_matches_reference) {
  if (!cudaHere()) return;
  for (ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kFloat16, ScalarType::kBFloat16})
    for (const Case& c : cudaCases(t, false)) checkOnGpu(c, gemmCuda, "gemmCuda");
  for (const Case& c : cudaCases(ScalarType::kFloat32, true)) checkOnGpu(c, gemmCuda, "gemmCuda tf32");
}

TEST(gemm_cuda_builtin_matches_reference) {
  if (!cudaHere()) return;
  for (ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kFloat16, ScalarType::kBFloat16})
    for (const Case& c : cudaCases(t, false)) checkOnGpu(c, gemmCudaBuiltin, "builtin");
  Case k0;
  k0.m = 5;
  k0.n = 6;
  k0.k = 0;
  k0.beta = 2.0;
  checkOnGpu(k0, gemmCuda, "k = 0");
}

TEST(gemm_cuda_rejects_layouts_cublas_cannot_take) {
  if (!cudaHere()) return;
  Problem p;
  p.m = p.n = p.k = 4;
  float* d = nullptr;
  cudaMalloc(&d, 64 * sizeof(float));
  p.a = contiguousMatrix(d, 4, 4);
  p.a.colStride = 2;  // neither stride is 1
  p.a.rowStride = 8;
  p.b = contiguousMatrix(d, 4, 4);
  p.c = contiguousMatrix(d + 32, 4, 4);
  CHECK_THROWS(gemmCuda(p, 0, nullptr), std::invalid_argument, "got A (4x4) with strides [8, 2]");
  cudaFree(d);
}

TEST(gemm_cuda_loader_says_where_it_looked) {
  // Runs everywhere: without cuBLAS the reason names the files and folders tried.
  const auto& api = tsgpu::cublas::api();
  if (api.loaded) {
    CHECK(!api.path.empty());
    return;
  }
  CHECK(api.whyNot.find("libcublas.so.13") != std::string::npos);
  CHECK(api.whyNot.find("/usr/local/cuda/lib64") != std::string::npos);
  std::cout << "  cuBLAS: " << api.whyNot << "\n";
}
