// Tests of the gemm and attention ops on CPU through the op registry: batch
// dims broadcast by strides (some collapsed into one strided batch, some
// looped), alpha/beta, and the interrupt check of long matmuls.
#include <cmath>
#include <random>
#include <vector>

#include "base/errors.h"
#include "harness.h"
#include "ops/op_call_builder.h"
#include "runtime/interrupt.h"

using optest::Attr;
using optest::strided;
using optest::view;

namespace {

std::vector<float> randomValues(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

/** out[b0, b1] = alpha · A[b1] · B[b0, 0] + beta · out, A [B1, m, k] broadcast over b0, B [B0, 1, k, n]. */
void checkBroadcastGemm(int64_t b0n, int64_t b1n, int64_t m, int64_t n, int64_t k, double alpha, double beta) {
  std::vector<float> a = randomValues(static_cast<size_t>(b1n * m * k), 1);
  std::vector<float> b = randomValues(static_cast<size_t>(b0n * k * n), 2);
  std::vector<float> out = randomValues(static_cast<size_t>(b0n * b1n * m * n), 3), before = out;
  optest::run("gemm", {view(out, {b0n, b1n, m, n})}, {view(a, {b1n, m, k}), view(b, {b0n, 1, k, n})},
              {Attr("alpha", alpha), Attr("beta", beta)});
  for (int64_t i0 = 0; i0 < b0n; ++i0)
    for (int64_t i1 = 0; i1 < b1n; ++i1)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double ref = 0, mag = 0;
          for (int64_t p = 0; p < k; ++p) {
            const double x = a[((i1 * m) + i) * k + p], y = b[((i0 * k) + p) * n + j];
            ref += x * y;
            mag += std::fabs(x * y);
          }
          const size_t o = static_cast<size_t>(((i0 * b1n + i1) * m + i) * n + j);
          ref = alpha * ref + beta * before[o];
          if (!(std::fabs(out[o] - ref) <= 1e-5 * (mag + 1))) {
            harness::fail(__FILE__, __LINE__, "gemm op out[" + std::to_string(i0) + "," + std::to_string(i1) + "," + std::to_string(i) + "," + std::to_string(j) + "] = " + std::to_string(out[o]) + ", expected " + std::to_string(ref));
            return;
          }
        }
}

}  // namespace

TEST(gemm_op_broadcasts_batch_dims) {
  checkBroadcastGemm(2, 3, 4, 5, 6, 1.0, 0.0);
  checkBroadcastGemm(3, 1, 7, 2, 9, -0.5, 2.0);
  checkBroadcastGemm(1, 4, 1, 33, 17, 2.0, 0.0);
}

TEST(gemm_op_with_transposed_and_expanded_operands) {
  // a: a transposed view ([k, m] storage), b: one [k, n] matrix expanded over a batch of 3 (stride 0).
  const int64_t m = 5, n = 4, k = 3;
  std::vector<float> a = randomValues(static_cast<size_t>(k * m), 4), b = randomValues(static_cast<size_t>(k * n), 5);
  std::vector<float> out(static_cast<size_t>(3 * m * n));
  optest::run("gemm", {view(out, {3, m, n})}, {strided(a, {3, m, k}, {0, 1, m}), strided(b, {3, k, n}, {0, n, 1})});
  for (int64_t bi = 0; bi < 3; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0;
        for (int64_t p = 0; p < k; ++p) ref += a[p * m + i] * b[p * n + j];
        CHECK(std::fabs(out[static_cast<size_t>((bi * m + i) * n + j)] - ref) < 1e-5);
      }
}

TEST(gemm_op_checks_interrupts_and_shapes) {
  std::vector<float> a(6), b(6), out(4);
  tsgpu::requestInterrupt();
  CHECK_THROWS(optest::run("gemm", {view(out, {2, 2})}, {view(a, {2, 3}), view(b, {3, 2})}), tsgpu::InterruptedError, "");
  tsgpu::clearInterrupt();
  optest::run("gemm", {view(out, {2, 2})}, {view(a, {2, 3}), view(b, {3, 2})});
  CHECK_THROWS(optest::run("gemm", {view(out, {2, 2})}, {view(a, {3, 2}), view(b, {3, 2})}), tsgpu::ArgumentError,
               "gemm: expected out [..., m, n] = [..., m, k] @ [..., k, n] of one dtype, got [2, 2] (float32) = [3, 2] (float32) @ [3, 2] (float32)");
}

TEST(attention_op_rows_sum_to_one_and_respect_causal_mask) {
  const int64_t L = 4, S = 4, E = 3;
  std::vector<float> q = randomValues(L * E, 6), k = randomValues(S * E, 7), v(S * S, 0.0f);
  for (int64_t j = 0; j < S; ++j) v[static_cast<size_t>(j * S + j)] = 1.0f;  // value = identity: out = weights
  std::vector<float> out(L * S), w(L * S);
  optest::run("attention", {view(out, {L, S}), view(w, {L, S})},
              {view(q, {L, E}), view(k, {S, E}), view(v, {S, S}), optest::Arg::absent()},
              {Attr("scale", 0.5), Attr("causal", 1.0)});
  for (int64_t i = 0; i < L; ++i) {
    double sum = 0;
    for (int64_t j = 0; j < S; ++j) {
      const float x = out[static_cast<size_t>(i * S + j)];
      if (j > i) CHECK_EQ(x, 0.0f);
      sum += x;
    }
    CHECK(std::fabs(sum - 1.0) < 1e-5);
  }
}
