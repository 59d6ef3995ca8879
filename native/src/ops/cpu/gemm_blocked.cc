// The CPU gemm of our own: BLIS-style blocking (panels of B of KC×NC, of A of
// m×KC, packed into register-tile slivers), threaded on the shared pool and
// vectorized by the micro kernels of the CPU's instruction set.
//
// Per (jc, pc) block: pack the B panel and the A panel in parallel, then run
// tasks of (MC rows × JG slivers of NR columns) in parallel; within a task
// the B sliver stays in L1 while the MR-row slivers of A (in L2) pass over it.
// A batch of small matrices is spread over the pool one matrix per chunk.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "ops/cpu/gemm_internal.h"
#include "ops/cpu/gemm_micro.h"
#include "ops/gemm.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace gemm {
namespace {

constexpr int64_t kKC = 256;    // depth of a packed panel
constexpr int64_t kNC = 3072;   // columns of a packed B panel
constexpr int64_t kMCTiles = 8; // MR slivers per task
constexpr int64_t kJG = 4;      // NR slivers per task
constexpr int64_t kBatchInlineMax = int64_t(1) << 21;  // m*n*k (multiply-adds) of a matrix of a batch always run one per thread
constexpr int64_t kBatchSplitMax = int64_t(1) << 27;   // m*n*k up to which a batch of at least 2 per thread runs one per thread

const MicroKernels& pickKernels() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (std::getenv("TSGPU_GEMM_ISA") == nullptr || std::strcmp(std::getenv("TSGPU_GEMM_ISA"), "generic") != 0) {
    if (__builtin_cpu_supports("avx512f")) return microKernelsAvx512();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return microKernelsAvx2();
  }
#endif
  return microKernelsGeneric();
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

template <typename T>
std::unique_ptr<T, FreeDeleter> alignedBuffer(int64_t count) {
  size_t bytes = (static_cast<size_t>(count) * sizeof(T) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return std::unique_ptr<T, FreeDeleter>(static_cast<T*>(p));
}

template <typename T>
struct Traits;
template <>
struct Traits<float> {
  static int mr(const MicroKernels& k) { return k.mrF32; }
  static int nr(const MicroKernels& k) { return k.nrF32; }
  static MicroKernel<float> micro(const MicroKernels& k) { return k.f32; }
};
template <>
struct Traits<double> {
  static int mr(const MicroKernels& k) { return k.mrF64; }
  static int nr(const MicroKernels& k) { return k.nrF64; }
  static MicroKernel<double> micro(const MicroKernels& k) { return k.f64; }
};

/** Packs rows [0, m) × depth [p0, p0+kc) of A into MR-row slivers (kc steps of MR values, zero-padded). */
template <typename T>
void packA(const T* a, int64_t rs, int64_t cs, int64_t m, int64_t p0, int64_t kc, int mr, T* out) {
  const int64_t slivers = (m + mr - 1) / mr;
  parallel_for(0, slivers, 16, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      T* dst = out + s * kc * mr;
      const int64_t i0 = s * mr;
      const int rows = static_cast<int>(std::min<int64_t>(mr, m - i0));
      for (int64_t p = 0; p < kc; ++p) {
        const T* src = a + i0 * rs + (p0 + p) * cs;
        int i = 0;
        for (; i < rows; ++i) dst[p * mr + i] = src[i * rs];
        for (; i < mr; ++i) dst[p * mr + i] = T(0);
      }
    }
  });
}

/** Packs depth [p0, p0+kc) × columns [j0, j0+nc) of B into NR-column slivers (kc steps of NR values, zero-padded). */
template <typename T>
void packB(const T* b, int64_t rs, int64_t cs, int64_t j0, int64_t nc, int64_t p0, int64_t kc, int nr, T* out) {
  const int64_t slivers = (nc + nr - 1) / nr;
  parallel_for(0, slivers, 4, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      T* dst = out + s * kc * nr;
      const int64_t jb = j0 + s * nr;
      const int cols = static_cast<int>(std::min<int64_t>(nr, j0 + nc - jb));
      for (int64_t p = 0; p < kc; ++p) {
        const T* src = b + (p0 + p) * rs + jb * cs;
        T* d = dst + p * nr;
        if (cs == 1 && cols == nr) {
          std::memcpy(d, src, sizeof(T) * nr);
          continue;
        }
        int j = 0;
        for (; j < cols; ++j) d[j] = src[j * cs];
        for (; j < nr; ++j) d[j] = T(0);
      }
    }
  });
}

/** C = beta·C for a k == 0 product (beta == 0 writes zeros without reading C). */
template <typename T>
void scaleC(T* c, int64_t rs, int64_t cs, int64_t m, int64_t n, T beta) {
  parallel_for(0, m, 64, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i)
      for (int64_t j = 0; j < n; ++j) {
        T* d = c + i * rs + j * cs;
        *d = beta == T(0) ? T(0) : *d * beta;
      }
  });
}

template <typename T>
void gemmOne(const MicroKernels& kern, const T* a, const Matrix& ma, const T* b, const Matrix& mb, T* c,
             const Matrix& mc, int64_t m, int64_t n, int64_t k, T alpha, T beta) {
  if (m == 0 || n == 0) return;
  if (k == 0 || alpha == T(0)) {
    scaleC(c, mc.rowStride, mc.colStride, m, n, beta);
    return;
  }
  const int mr = Traits<T>::mr(kern), nr = Traits<T>::nr(kern);
  const MicroKernel<T> micro = Traits<T>::micro(kern);
  const int64_t kcMax = std::min(k, kKC);
  const int64_t ncMax = std::min(n, kNC);
  auto ap = alignedBuffer<T>(((m + mr - 1) / mr) * mr * kcMax);
  auto bp = alignedBuffer<T>(((ncMax + nr - 1) / nr) * nr * kcMax);
  const int64_t mcRows = kMCTiles * mr;
  for (int64_t jc = 0; jc < n; jc += kNC) {
    const int64_t nc = std::min(kNC, n - jc);
    const int64_t slivers = (nc + nr - 1) / nr;
    for (int64_t pc = 0; pc < k; pc += kKC) {
      const int64_t kc = std::min(kKC, k - pc);
      const T betaHere = pc == 0 ? beta : T(1);
      packB(b, mb.rowStride, mb.colStride, jc, nc, pc, kc, nr, bp.get());
      packA(a, ma.rowStride, ma.colStride, m, pc, kc, mr, ap.get());
      const int64_t rowBlocks = (m + mcRows - 1) / mcRows;
      const int64_t colGroups = (slivers + kJG - 1) / kJG;
      const T* apc = ap.get();
      const T* bpc = bp.get();
      parallel_for(0, rowBlocks * colGroups, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t) {
          const int64_t rb = t / colGroups, cg = t % colGroups;
          const int64_t s1 = std::min(slivers, (cg + 1) * kJG);
          for (int64_t s = cg * kJG; s < s1; ++s) {
            const int64_t j = jc + s * nr;
            const int nv = static_cast<int>(std::min<int64_t>(nr, jc + nc - j));
            const int64_t i1 = std::min(m, (rb + 1) * mcRows);
            for (int64_t i = rb * mcRows; i < i1; i += mr) {
              const int mv = static_cast<int>(std::min<int64_t>(mr, m - i));
              micro(kc, apc + (i / mr) * kc * mr, bpc + s * kc * nr, c + i * mc.rowStride + j * mc.colStride,
                    mc.rowStride, mc.colStride, mv, nv, alpha, betaHere);
            }
          }
        }
      });
    }
  }
}

template <typename T>
void gemmBatched(const MicroKernels& kern, const Problem& p) {
  const T* a = static_cast<const T*>(p.a.data);
  const T* b = static_cast<const T*>(p.b.data);
  T* c = static_cast<T*>(p.c.data);
  auto one = [&](int64_t i) {
    gemmOne<T>(kern, a + i * p.a.batchStride, p.a, b + i * p.b.batchStride, p.b, c + i * p.c.batchStride, p.c, p.m,
               p.n, p.k, static_cast<T>(p.alpha), static_cast<T>(p.beta));
  };
  // Small matrices, or at least two per thread of moderate ones: one per chunk (their inner loops then run
  // inline, each thread packing its own panels); otherwise parallel inside each.
  const int64_t volume = p.m * p.n * p.k;
  if (p.batch > 1 && (volume <= kBatchInlineMax || (p.batch >= 2 * getNumThreads() && volume <= kBatchSplitMax))) {
    parallel_for(0, p.batch, 1, [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) one(i);
    });
  } else {
    for (int64_t i = 0; i < p.batch; ++i) one(i);
  }
}

}  // namespace

const MicroKernels& blockedKernels() {
  static const MicroKernels& k = pickKernels();
  return k;
}

const char* blockedKernelIsa() { return blockedKernels().isa; }

void gemmCpuBlockedWith(const MicroKernels& kern, const Problem& p) {
  validate(p);
  switch (p.type) {
    case ScalarType::kFloat32: return gemmBatched<float>(kern, p);
    case ScalarType::kFloat64: return gemmBatched<double>(kern, p);
    case ScalarType::kFloat16:
    case ScalarType::kBFloat16: return gemmWidened(p, gemmCpuBlocked);
  }
}

void gemmCpuBlocked(const Problem& p) { gemmCpuBlockedWith(blockedKernels(), p); }

}  // namespace gemm
}  // namespace tsgpu
