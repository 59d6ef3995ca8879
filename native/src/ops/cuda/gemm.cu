// The CUDA gemm: cuBLAS (loaded at run time) through cublasGemmEx /
// cublasGemmStridedBatchedEx, with TF32 for float32 when allowed; a tiled
// kernel of our own where cuBLAS cannot be loaded (cudaBackendDescription()
// says why; the TypeScript matmul shows it once as a warning).
//
// cuBLAS is column-major: the row-major plan C = op(A)·op(B) (ops/gemm_plan.h)
// runs as C^T = op(B)^T·op(A)^T, i.e. cuBLAS(B, A) with m and n exchanged.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "backends/cuda/cublas_loader.h"
#include "backends/cuda/cuda_check.h"
#include "base/dtype.h"
#include "ops/gemm.h"
#include "ops/gemm_plan.h"

namespace tsgpu {
namespace gemm {
namespace {

// ---------------------------------------------------------------- built-in kernel

constexpr int kBM = 64, kBN = 64, kBK = 16, kTX = 16, kTY = 16;  // 256 threads, 4×4 outputs each

template <typename T>
struct Acc {
  using type = float;
};
template <>
struct Acc<double> {
  using type = double;
};

template <typename T>
__device__ inline T fromAcc(typename Acc<T>::type v) {
  return static_cast<T>(v);
}

template <typename T>
__global__ void __launch_bounds__(kTX* kTY) gemmTiled(Problem p) {
  using A = typename Acc<T>::type;
  __shared__ A as[kBK][kBM + 1];
  __shared__ A bs[kBK][kBN + 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTX + tx;
  const int64_t row0 = static_cast<int64_t>(blockIdx.y) * kBM, col0 = static_cast<int64_t>(blockIdx.x) * kBN;
  const A alpha = static_cast<A>(p.alpha), beta = static_cast<A>(p.beta);
  for (int64_t z = blockIdx.z; z < p.batch; z += gridDim.z) {
    const T* a = static_cast<const T*>(p.a.data) + z * p.a.batchStride;
    const T* b = static_cast<const T*>(p.b.data) + z * p.b.batchStride;
    T* c = static_cast<T*>(p.c.data) + z * p.c.batchStride;
    A acc[4][4] = {};
    for (int64_t k0 = 0; k0 < p.k; k0 += kBK) {
      for (int r = tid; r < kBM * kBK; r += kTX * kTY) {
        const int i = r / kBK, kk = r % kBK;
        const int64_t gi = row0 + i, gk = k0 + kk;
        as[kk][i] = (gi < p.m && gk < p.k) ? static_cast<A>(a[gi * p.a.rowStride + gk * p.a.colStride]) : A(0);
      }
      for (int r = tid; r < kBK * kBN; r += kTX * kTY) {
        const int kk = r / kBN, j = r % kBN;
        const int64_t gk = k0 + kk, gj = col0 + j;
        bs[kk][j] = (gk < p.k && gj < p.n) ? static_cast<A>(b[gk * p.b.rowStride + gj * p.b.colStride]) : A(0);
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < kBK; ++kk) {
        A av[4], bv[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) av[i] = as[kk][ty + kTY * i];
#pragma unroll
        for (int j = 0; j < 4; ++j) bv[j] = bs[kk][tx + kTX * j];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
      }
      __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const int64_t gi = row0 + ty + kTY * i, gj = col0 + tx + kTX * j;
        if (gi >= p.m || gj >= p.n) continue;
        T* dst = c + gi * p.c.rowStride + gj * p.c.colStride;
        A v = alpha * acc[i][j];
        if (beta != A(0)) v += beta * static_cast<A>(*dst);
        *dst = fromAcc<T>(v);
      }
  }
}

template <typename T>
void launchTiled(const Problem& p, cudaStream_t stream) {
  dim3 block(kTX, kTY);
  const int64_t gx = (p.n + kBN - 1) / kBN, gy = (p.m + kBM - 1) / kBM;
  if (gy > 65535) throw std::invalid_argument("gemm: m = " + std::to_string(p.m) + " exceeds the built-in kernel's limit of " + std::to_string(65535 * kBM));
  dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(gy), static_cast<unsigned>(p.batch < 65535 ? p.batch : 65535));
  gemmTiled<T><<<grid, block, 0, stream>>>(p);
  TSGPU_CUDA_CHECK(cudaGetLastError());
}

void runBuiltin(const Problem& p, cudaStream_t stream) {
  switch (p.type) {
    case ScalarType::kFloat32: return launchTiled<float>(p, stream);
    case ScalarType::kFloat64: return launchTiled<double>(p, stream);
    case ScalarType::kFloat16: return launchTiled<Half>(p, stream);
    case ScalarType::kBFloat16: return launchTiled<BFloat16>(p, stream);
  }
}

// ---------------------------------------------------------------- cuBLAS

int cudaDataType(ScalarType t) {
  switch (t) {
    case ScalarType::kFloat32: return cublas::kR32F;
    case ScalarType::kFloat64: return cublas::kR64F;
    case ScalarType::kFloat16: return cublas::kR16F;
    case ScalarType::kBFloat16: return cublas::kR16BF;
  }
  return cublas::kR32F;
}

void runCublas(const Problem& p, const BlasCall& call, int device, cudaStream_t stream) {
  const cublas::Api& api = cublas::api();
  cublas::Handle h = cublas::handleFor(device);
  cublas::Status s = api.setStream(h, stream);
  if (s != 0) throw std::runtime_error("gemm: cublasSetStream failed: " + cublas::statusText(s));
  const bool f64 = p.type == ScalarType::kFloat64;
  const int compute = f64 ? cublas::kCompute64F
                      : (p.type == ScalarType::kFloat32 && p.allowTf32) ? cublas::kCompute32FFastTf32
                                                                          : cublas::kCompute32F;
  const float alphaF = static_cast<float>(p.alpha), betaF = static_cast<float>(p.beta);
  const void* alpha = f64 ? static_cast<const void*>(&p.alpha) : &alphaF;
  const void* beta = f64 ? static_cast<const void*>(&p.beta) : &betaF;
  const int dt = cudaDataType(p.type);
  // Column-major view: C^T (n×m) = op(B)^T (n×k) · op(A)^T (k×m).
  const int opB = call.transB ? cublas::kOpT : cublas::kOpN, opA = call.transA ? cublas::kOpT : cublas::kOpN;
  if (p.batch == 1) {
    s = api.gemmEx(h, opB, opA, call.n, call.m, call.k, alpha, call.b.data, dt, call.ldb, call.a.data, dt, call.lda,
                   beta, call.c.data, dt, call.ldc, compute, cublas::kGemmDefault);
  } else {
    if (p.batch > 2147483647) throw std::invalid_argument("gemm: batch " + std::to_string(p.batch) + " exceeds cuBLAS's int limit");
    s = api.gemmStridedBatchedEx(h, opB, opA, call.n, call.m, call.k, alpha, call.b.data, dt, call.ldb,
                                 call.b.batchStride, call.a.data, dt, call.lda, call.a.batchStride, beta, call.c.data,
                                 dt, call.ldc, call.c.batchStride, static_cast<int>(p.batch), compute,
                                 cublas::kGemmDefault);
  }
  if (s != 0)
    throw std::runtime_error(std::string("gemm: cuBLAS failed (") + cublas::statusText(s) + ") for " +
                             scalarTypeName(p.type) + " batch " + std::to_string(p.batch) + " m " +
                             std::to_string(p.m) + " n " + std::to_string(p.n) + " k " + std::to_string(p.k));
}

/** Checks the layout cuBLAS needs and fills the plan; throws naming the operand otherwise. */
BlasCall planOrThrow(const Problem& p) {
  BlasCall call;
  if (planBlas(p, &call)) return call;
  struct Operand {
    const char* name;
    const Matrix* m;
    int64_t rows, cols;
  };
  const Operand ops[] = {{"A", &p.a, p.m, p.k}, {"B", &p.b, p.k, p.n}, {"C", &p.c, p.m, p.n}};
  for (const Operand& o : ops) {
    bool t;
    int64_t ld;
    if (!blasLayout(o.rows, o.cols, o.m->rowStride, o.m->colStride, &t, &ld))
      throw std::invalid_argument(std::string("gemm: expected operands with one unit stride on CUDA, got ") + o.name +
                                  " (" + std::to_string(o.rows) + "x" + std::to_string(o.cols) + ") with strides [" +
                                  std::to_string(o.m->rowStride) + ", " + std::to_string(o.m->colStride) +
                                  "]; make it contiguous first");
  }
  throw std::invalid_argument("gemm: sizes m " + std::to_string(p.m) + ", n " + std::to_string(p.n) + ", k " +
                              std::to_string(p.k) + " exceed cuBLAS's int limit");
}

/** Nothing to compute: an empty batch or an empty C. */
bool trivial(const Problem& p) { return p.batch == 0 || p.m == 0 || p.n == 0; }

}  // namespace

void gemmCuda(const Problem& p, int device, void* stream) {
  validate(p);
  if (trivial(p)) return;
  TSGPU_CUDA_CHECK(cudaSetDevice(device));
  auto s = static_cast<cudaStream_t>(stream);
  if (p.k == 0) return runBuiltin(p, s);  // C = beta·C; the built-in kernel handles it
  const BlasCall call = planOrThrow(p);
  if (cublas::api().loaded) return runCublas(p, call, device, s);
  runBuiltin(p, s);
}

void gemmCudaBuiltin(const Problem& p, int device, void* stream) {
  validate(p);
  if (trivial(p)) return;
  TSGPU_CUDA_CHECK(cudaSetDevice(device));
  runBuiltin(p, static_cast<cudaStream_t>(stream));
}

std::string cudaBackendDescription() {
  const cublas::Api& api = cublas::api();
  if (!api.loaded) return "built-in kernel: " + api.whyNot;
  std::string v = api.version ? " " + std::to_string(api.version / 10000) + "." + std::to_string(api.version / 100 % 100) + "." +
                                    std::to_string(api.version % 100)
                              : "";
  return "cuBLAS" + v + " (" + api.path + (api.ltPath.empty() ? "" : ", " + api.ltPath) + ")";
}

}  // namespace gemm
}  // namespace tsgpu
