// The CPU gemm's entry point: float32/float64 through the loaded BLAS when its
// layout rules allow, the blocked kernel otherwise; 16-bit floats widened.
#include "ops/gemm.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "backends/cpu/blas_loader.h"
#include "ops/cpu/gemm_internal.h"
#include "ops/cpu/vec_kernels.h"
#include "ops/gemm_plan.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace gemm {
namespace {

/** Per-matrix work (m·n·k) up to which BLAS runs single-threaded, so a batch is spread over the pool instead. */
constexpr int64_t kSmallBlasWork = int64_t(1) << 18;

constexpr int kCblasOp[2] = {cpu::kCblasNoTrans, cpu::kCblasTrans};

template <typename T, typename Fn>
void runBlas(const Problem& p, const BlasCall& call, Fn gemmFn) {
  const T* a = static_cast<const T*>(call.a.data);
  const T* b = static_cast<const T*>(call.b.data);
  T* c = static_cast<T*>(call.c.data);
  const T alpha = static_cast<T>(p.alpha), beta = static_cast<T>(p.beta);
  auto one = [&](int64_t i) {
    gemmFn(cpu::kCblasRowMajor, kCblasOp[call.transA], kCblasOp[call.transB], call.m, call.n, call.k, alpha, a + i * call.a.batchStride,
           call.lda, b + i * call.b.batchStride, call.ldb, beta, c + i * call.c.batchStride, call.ldc);
  };
  if (p.batch > 1 && p.m * p.n * p.k <= kSmallBlasWork) {
    parallel_for(0, p.batch, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) one(i);
    });
    return;
  }
  if (!inParallelRegion()) cpu::blasUseThreads(getNumThreads());
  for (int64_t i = 0; i < p.batch; ++i) one(i);
}

/** Widens one operand (batches × rows × cols, strided) into contiguous float32. */
void widen(const MicroKernels& kern, bool brain, const Matrix& src, int64_t batches, int64_t rows, int64_t cols,
           float* out) {
  const uint16_t* base = static_cast<const uint16_t*>(src.data);
  parallel_for(0, batches * rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const uint16_t* row = base + (r / rows) * src.batchStride + (r % rows) * src.rowStride;
      float* dst = out + r * cols;
      if (src.colStride == 1) {
        kern.toFloat(row, dst, cols, brain);
      } else {
        for (int64_t j = 0; j < cols; ++j) kern.toFloat(row + j * src.colStride, dst + j, 1, brain);
      }
    }
  });
}

/** Rounds contiguous float32 (batches × rows × cols) into a strided 16-bit operand. */
void narrow(const MicroKernels& kern, bool brain, const float* in, int64_t batches, int64_t rows, int64_t cols,
            const Matrix& dst) {
  uint16_t* base = static_cast<uint16_t*>(dst.data);
  parallel_for(0, batches * rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      uint16_t* row = base + (r / rows) * dst.batchStride + (r % rows) * dst.rowStride;
      const float* src = in + r * cols;
      if (dst.colStride == 1) {
        kern.fromFloat(src, row, cols, brain);
      } else {
        for (int64_t j = 0; j < cols; ++j) kern.fromFloat(src + j, row + j * dst.colStride, 1, brain);
      }
    }
  });
}

/** Vector-vector products from this many elements take the dot loop: BLAS's gemm with m = n = 1 is 6x slower. */
constexpr int64_t kDotMinK = 4096;
/** Elements per chunk of a parallel dot (the chunks' partials combine in chunk order: deterministic per thread count). */
constexpr int64_t kDotGrain = 1 << 16;

/** c = alpha * a·b + beta * c for each batch of a float32 1×k by k×1 problem with unit-stride operands. */
bool tryDot(const Problem& p) {
  if (p.type != ScalarType::kFloat32 || p.m != 1 || p.n != 1 || p.k < kDotMinK) return false;
  if ((p.k > 1 && (p.a.colStride != 1 || p.b.rowStride != 1))) return false;
  const vec::VecKernels& kern = vec::vecKernels();
  for (int64_t i = 0; i < p.batch; ++i) {
    const float* a = static_cast<const float*>(p.a.data) + i * p.a.batchStride;
    const float* b = static_cast<const float*>(p.b.data) + i * p.b.batchStride;
    float* c = static_cast<float*>(p.c.data) + i * p.c.batchStride;
    const double d = parallel_reduce(
        int64_t(0), p.k, kDotGrain, 0.0, [&](int64_t k0, int64_t k1) { return kern.dot(a + k0, b + k0, k1 - k0); },
        [](double x, double y) { return x + y; });
    const double prior = p.beta != 0.0 ? p.beta * static_cast<double>(*c) : 0.0;
    *c = static_cast<float>(p.alpha * d + prior);
  }
  return true;
}

}  // namespace

void gemmWidened(const Problem& p, void (*runFloat32)(const Problem&)) {
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  const MicroKernels& kern = blockedKernels();
  const bool brain = p.type == ScalarType::kBFloat16;
  const int64_t batchesA = p.a.batchStride == 0 ? 1 : p.batch;
  const int64_t batchesB = p.b.batchStride == 0 ? 1 : p.batch;
  std::vector<float> a(static_cast<size_t>(batchesA * p.m * p.k)), b(static_cast<size_t>(batchesB * p.k * p.n));
  std::vector<float> c(static_cast<size_t>(p.batch * p.m * p.n));
  if (p.k > 0) {
    widen(kern, brain, p.a, batchesA, p.m, p.k, a.data());
    widen(kern, brain, p.b, batchesB, p.k, p.n, b.data());
  }
  if (p.beta != 0.0) widen(kern, brain, p.c, p.batch, p.m, p.n, c.data());
  Problem q = p;
  q.type = ScalarType::kFloat32;
  q.a = contiguousMatrix(a.data(), p.m, p.k);
  q.b = contiguousMatrix(b.data(), p.k, p.n);
  q.c = contiguousMatrix(c.data(), p.m, p.n);
  if (batchesA == 1) q.a.batchStride = 0;
  if (batchesB == 1) q.b.batchStride = 0;
  runFloat32(q);
  narrow(kern, brain, c.data(), p.batch, p.m, p.n, p.c);
}

void gemmCpu(const Problem& p) {
  validate(p);
  if (p.batch == 0 || p.m == 0 || p.n == 0) return;
  if (p.type == ScalarType::kFloat16 || p.type == ScalarType::kBFloat16) return gemmWidened(p, gemmCpu);
  if (tryDot(p)) return;
  const cpu::BlasLibrary& lib = cpu::blas();
  BlasCall call;
  if (lib.loaded && p.k > 0 && planBlas(p, &call)) {
    if (p.type == ScalarType::kFloat32) return runBlas<float>(p, call, lib.sgemm);
    return runBlas<double>(p, call, lib.dgemm);
  }
  gemmCpuBlocked(p);
}

std::string cpuBackendDescription() {
  const cpu::BlasLibrary& lib = cpu::blas();
  const std::string own = std::string("blocked kernel (") + blockedKernelIsa() + ")";
  if (lib.loaded) return lib.vendor + " (" + lib.path + "); " + own + " for layouts BLAS cannot take";
  return own + "; " + cpu::blasDescription();
}

}  // namespace gemm
}  // namespace tsgpu
