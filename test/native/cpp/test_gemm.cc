// Tests of the CPU gemm (native/src/ops/gemm.h) against a naive float64 reference:
// BLAS and the blocked kernel (every instruction set this CPU has), strided,
// transposed and broadcast operands, alpha/beta, every dtype, edge sizes.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/cpu/blas_loader.h"
#include "gemm_test_util.h"
#include "harness.h"
#include "ops/cpu/gemm_internal.h"
#include "ops/gemm.h"
#include "runtime/thread_pool.h"

using namespace tsgpu::gemm;
using gemmtest::Case;
using gemmtest::Layout;

namespace {

/** Runs one case with `run` and checks it against the reference; returns false (after reporting) on mismatch. */
bool check(const Case& cs, void (*run)(const Problem&), const std::string& label) {
  gemmtest::Operands ops(cs);
  Problem p = ops.problem();
  run(p);
  std::string why = ops.compare();
  if (!why.empty()) {
    harness::fail(__FILE__, __LINE__, label + " " + cs.describe() + ": " + why);
    return false;
  }
  return true;
}

const MicroKernels* gKernels = nullptr;
void runWithKernels(const Problem& p) { gemmCpuBlockedWith(*gKernels, p); }

std::vector<Case> shapeCases(ScalarType t) {
  std::vector<Case> cases;
  const int64_t shapes[][4] = {{1, 1, 1, 1},   {1, 7, 13, 5},     {1, 33, 1, 70},   {1, 1, 50, 9},   {3, 129, 65, 300},
                               {2, 17, 40, 1}, {1, 300, 3100, 17}, {1, 64, 64, 64}, {5, 6, 32, 512}, {1, 13, 97, 257}};
  int seed = 1;
  for (const auto& s : shapes) {
    Case c;
    c.type = t;
    c.batch = s[0];
    c.m = s[1];
    c.n = s[2];
    c.k = s[3];
    c.seed = seed++;
    cases.push_back(c);
  }
  // Layouts: transposed A, B and C, padded rows, broadcast batch operands, alpha/beta.
  const Layout layouts[] = {Layout::kRowMajor, Layout::kColMajor, Layout::kPadded};
  for (Layout la : layouts)
    for (Layout lb : layouts)
      for (Layout lc : layouts) {
        Case c;
        c.type = t;
        c.batch = 2;
        c.m = 37;
        c.n = 29;
        c.k = 41;
        c.la = la;
        c.lb = lb;
        c.lc = lc;
        c.seed = seed++;
        cases.push_back(c);
      }
  Case bcast;
  bcast.type = t;
  bcast.batch = 4;
  bcast.m = 20;
  bcast.n = 24;
  bcast.k = 18;
  bcast.broadcastB = true;
  bcast.alpha = -0.5;
  bcast.beta = 1.5;
  bcast.seed = seed++;
  cases.push_back(bcast);
  bcast.broadcastB = false;
  bcast.broadcastA = true;
  bcast.beta = 0.0;
  bcast.nanInC = true;
  cases.push_back(bcast);
  Case k0;
  k0.type = t;
  k0.m = 5;
  k0.n = 6;
  k0.k = 0;
  k0.beta = 2.0;
  cases.push_back(k0);
  k0.beta = 0.0;
  k0.nanInC = true;
  cases.push_back(k0);
  return cases;
}

}  // namespace

TEST(gemm_cpu_matches_reference_all_dtypes) {
  for (ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64, ScalarType::kFloat16, ScalarType::kBFloat16})
    for (const Case& c : shapeCases(t)) check(c, gemmCpu, "gemmCpu");
}

TEST(gemm_blocked_matches_reference_every_isa) {
  std::vector<const MicroKernels*> sets = {&microKernelsGeneric()};
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) sets.push_back(&microKernelsAvx2());
  if (__builtin_cpu_supports("avx512f")) sets.push_back(&microKernelsAvx512());
  for (const MicroKernels* k : sets) {
    gKernels = k;
    for (ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64})
      for (const Case& c : shapeCases(t)) check(c, runWithKernels, std::string("blocked/") + k->isa);
  }
  for (const Case& c : shapeCases(ScalarType::kBFloat16)) check(c, gemmCpuBlocked, "blocked");
}

TEST(gemm_results_do_not_depend_on_thread_count) {
  const int saved = tsgpu::getNumThreads();
  for (int threads : {1, 2, 5}) {
    tsgpu::setNumThreads(threads);
    Case c;
    c.batch = 3;
    c.m = 150;
    c.n = 140;
    c.k = 300;
    c.seed = 99;
    check(c, gemmCpu, "threads " + std::to_string(threads));
    check(c, gemmCpuBlocked, "blocked threads " + std::to_string(threads));
    c.batch = 40;  // small matrices: spread over the pool one per chunk
    c.m = c.n = c.k = 12;
    check(c, gemmCpu, "small batch threads " + std::to_string(threads));
    check(c, gemmCpuBlocked, "blocked small batch threads " + std::to_string(threads));
  }
  tsgpu::setNumThreads(saved);
}

TEST(gemm_float16_accumulates_in_float32) {
  // 2048 + 1 + 1: float16 accumulation would stay at 2048 (its spacing there is 2); float32 gives 2050.
  uint16_t a[3], b[3], c[1];
  const float av[3] = {2048.0f, 1.0f, 1.0f}, bv[3] = {1.0f, 1.0f, 1.0f};
  blockedKernels().fromFloat(av, a, 3, false);
  blockedKernels().fromFloat(bv, b, 3, false);
  Problem p;
  p.type = ScalarType::kFloat16;
  p.m = p.n = 1;
  p.k = 3;
  p.a = contiguousMatrix(a, 1, 3);
  p.b = contiguousMatrix(b, 3, 1);
  p.c = contiguousMatrix(c, 1, 1);
  gemmCpu(p);
  float out;
  blockedKernels().toFloat(c, &out, 1, false);
  CHECK_EQ(out, 2050.0f);
  // bfloat16 keeps NaN a NaN.
  const float nan = std::nanf("");
  uint16_t bits;
  blockedKernels().fromFloat(&nan, &bits, 1, true);
  float back;
  blockedKernels().toFloat(&bits, &back, 1, true);
  CHECK(std::isnan(back));
}

TEST(gemm_layout_rules) {
  bool t = false;
  int64_t ld = 0;
  CHECK(blasLayout(4, 5, 5, 1, &t, &ld) && !t && ld == 5);
  CHECK(blasLayout(4, 5, 8, 1, &t, &ld) && !t && ld == 8);
  CHECK(blasLayout(4, 5, 1, 4, &t, &ld) && t && ld == 4);
  CHECK(blasLayout(1, 5, 0, 1, &t, &ld) && !t && ld == 5);
  CHECK(blasLayout(4, 1, 1, 0, &t, &ld) && ld >= 1);
  CHECK(!blasLayout(4, 5, 10, 2, &t, &ld));  // neither stride is 1
  CHECK(!blasLayout(4, 5, 0, 1, &t, &ld));   // rows overlap (an expanded row)
  CHECK(!blasLayout(4, 5, 1, 2, &t, &ld));   // columns overlap
  Problem p;
  p.m = -1;
  CHECK_THROWS(validate(p), std::invalid_argument, "expected non-negative sizes for batch, m, n, k, got 1, -1, 0, 0");
  p.m = 2;
  p.n = 2;
  p.k = 2;
  CHECK_THROWS(validate(p), std::invalid_argument, "expected a data pointer for C, got null");
}

TEST(gemm_blas_is_reported) {
  const std::string d = cpuBackendDescription();
  CHECK(d.find("blocked kernel (") != std::string::npos);
  const tsgpu::cpu::BlasLibrary& lib = tsgpu::cpu::blas();
  if (lib.loaded) {
    CHECK(!lib.path.empty());
    CHECK(d.find(lib.path) != std::string::npos);
  } else {
    CHECK(d.find("libopenblas.so.0") != std::string::npos);  // says where it looked
  }
  std::cout << "  cpu gemm: " << d << "\n";
}
