// flashAttention and flashAttentionBackward on cpu through the registry: the
// forward against softmax(scale·q·kᵀ)·v written out here (causal and not,
// L ≠ S, strided q), the log-sum-exp of each row, and the backward against
// central differences of the forward (float64).
#include <cmath>
#include <vector>

#include "../harness.h"
#include "base/errors.h"
#include "op_call_builder.h"

using namespace optest;

namespace {

struct Problem {
  int B, L, S, D;
  bool causal;
  double scale;
};

/** out [B, L, D] and lse [B, L] written out from the definition, q, k, v contiguous. */
void reference(const Problem& p, const std::vector<double>& q, const std::vector<double>& k,
               const std::vector<double>& v, std::vector<double>& out, std::vector<double>& lse) {
  out.assign(static_cast<size_t>(p.B) * p.L * p.D, 0.0);
  lse.assign(static_cast<size_t>(p.B) * p.L, 0.0);
  for (int b = 0; b < p.B; ++b)
    for (int i = 0; i < p.L; ++i) {
      std::vector<double> s(p.S, -INFINITY);
      double mx = -INFINITY;
      for (int j = 0; j < p.S; ++j) {
        if (p.causal && j > i) continue;
        double d = 0;
        for (int c = 0; c < p.D; ++c) d += q[(b * p.L + i) * p.D + c] * k[(b * p.S + j) * p.D + c];
        s[j] = d * p.scale;
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (int j = 0; j < p.S; ++j) sum += std::exp(s[j] - mx);
      for (int j = 0; j < p.S; ++j)
        for (int c = 0; c < p.D; ++c) out[(b * p.L + i) * p.D + c] += std::exp(s[j] - mx) / sum * v[(b * p.S + j) * p.D + c];
      lse[b * p.L + i] = mx + std::log(sum);
    }
}

std::vector<double> filled(size_t n, double seed) {
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = std::sin(seed + 1.7 * static_cast<double>(i)) * 1.3;
  return x;
}

void forward(const Problem& p, std::vector<double>& q, std::vector<double>& k, std::vector<double>& v,
             std::vector<double>& out, std::vector<float>& lse) {
  out.assign(static_cast<size_t>(p.B) * p.L * p.D, 0.0);
  lse.assign(static_cast<size_t>(p.B) * p.L, 0.f);
  run("flashAttention", {view(out, {p.B, p.L, p.D}), view(lse, {p.B, p.L})},
      {view(q, {p.B, p.L, p.D}), view(k, {p.B, p.S, p.D}), view(v, {p.B, p.S, p.D})},
      {{"scale", p.scale}, {"causal", p.causal ? 1.0 : 0.0}});
}

}  // namespace

TEST(cpu_flash_attention_forward_matches_the_definition) {
  for (const Problem& p : {Problem{2, 5, 7, 3, false, 0.5}, Problem{1, 6, 4, 4, true, 0.9}, Problem{2, 3, 9, 8, true, 0.3}}) {
    std::vector<double> q = filled(static_cast<size_t>(p.B) * p.L * p.D, 0.1), k = filled(static_cast<size_t>(p.B) * p.S * p.D, 0.7),
                        v = filled(static_cast<size_t>(p.B) * p.S * p.D, 2.9), out, ref, refLse;
    std::vector<float> lse;
    forward(p, q, k, v, out, lse);
    reference(p, q, k, v, ref, refLse);
    for (size_t i = 0; i < out.size(); ++i) CHECK(std::fabs(out[i] - ref[i]) < 1e-12);
    for (size_t i = 0; i < lse.size(); ++i) CHECK(std::fabs(lse[i] - refLse[i]) < 1e-5);
  }
}

TEST(cpu_flash_attention_strided_query) {
  // q [1, 3, 4] read through a view of rows 8 apart (the heads of a fused projection).
  const Problem p{1, 3, 5, 4, false, 0.5};
  std::vector<double> wide = filled(3 * 8, 0.3), q(12), k = filled(20, 1.1), v = filled(20, 4.2), out(12), ref, refLse;
  for (int i = 0; i < 3; ++i)
    for (int c = 0; c < 4; ++c) q[i * 4 + c] = wide[i * 8 + 2 + c];
  std::vector<float> lse(3);
  run("flashAttention", {view(out, {1, 3, 4}), view(lse, {1, 3})},
      {strided(wide, {1, 3, 4}, {24, 8, 1}, 2), view(k, {1, 5, 4}), view(v, {1, 5, 4})}, {{"scale", 0.5}});
  reference(p, q, k, v, ref, refLse);
  for (size_t i = 0; i < out.size(); ++i) CHECK(std::fabs(out[i] - ref[i]) < 1e-12);
}

TEST(cpu_flash_attention_backward_matches_central_differences) {
  for (const Problem& p : {Problem{1, 4, 6, 3, false, 0.6}, Problem{2, 5, 3, 2, true, 1.1}}) {
    const size_t nq = static_cast<size_t>(p.B) * p.L * p.D, nk = static_cast<size_t>(p.B) * p.S * p.D;
    std::vector<double> q = filled(nq, 0.2), k = filled(nk, 1.9), v = filled(nk, 3.3), w = filled(nq, 5.1), out;
    std::vector<float> lse;
    forward(p, q, k, v, out, lse);
    std::vector<double> dq(nq), dk(nk), dv(nk);
    std::vector<float> work(static_cast<size_t>(p.B) * p.L * (p.D + 1));
    run("flashAttentionBackward",
        {view(dq, {p.B, p.L, p.D}), view(dk, {p.B, p.S, p.D}), view(dv, {p.B, p.S, p.D}),
         view(work, {static_cast<int64_t>(work.size())})},
        {view(w, {p.B, p.L, p.D}), view(q, {p.B, p.L, p.D}), view(k, {p.B, p.S, p.D}), view(v, {p.B, p.S, p.D}),
         view(out, {p.B, p.L, p.D}), view(lse, {p.B, p.L})},
        {{"scale", p.scale}, {"causal", p.causal ? 1.0 : 0.0}});
    // loss = Σ out · w; its derivative by each input element, by central differences.
    auto loss = [&]() {
      std::vector<double> o, l;
      reference(p, q, k, v, o, l);
      double s = 0;
      for (size_t i = 0; i < o.size(); ++i) s += o[i] * w[i];
      return s;
    };
    const double h = 1e-6;
    for (auto [x, g] : {std::pair{&q, &dq}, std::pair{&k, &dk}, std::pair{&v, &dv}}) {
      for (size_t i = 0; i < x->size(); ++i) {
        const double keep = (*x)[i];
        (*x)[i] = keep + h;
        const double up = loss();
        (*x)[i] = keep - h;
        const double down = loss();
        (*x)[i] = keep;
        // P is recomputed from the float32 log-sum-exp: agreement to ~1e-6.
        CHECK(std::fabs((up - down) / (2 * h) - (*g)[i]) < 2e-5);
      }
    }
  }
}

TEST(cpu_flash_attention_errors) {
  std::vector<double> q(2 * 130), out(2 * 130);
  std::vector<float> lse(2);
  CHECK_THROWS(run("flashAttention", {view(out, {1, 2, 130}), view(lse, {1, 2})},
                   {view(q, {1, 2, 130}), view(q, {1, 2, 130}), view(q, {1, 2, 130})}, {{"scale", 1.0}}),
               tsgpu::ArgumentError, "flashAttention: expected a head dim of at most 128, got 130");
  std::vector<double> k(3 * 4), a(2 * 4), o2(2 * 4);
  CHECK_THROWS(run("flashAttention", {view(o2, {1, 2, 4}), view(lse, {1, 2})},
                   {view(a, {1, 2, 4}), view(k, {1, 3, 4}), view(a, {1, 2, 4})}, {{"scale", 1.0}}),
               tsgpu::ArgumentError, "flashAttention: expected key [..., S, D] and value [..., S, D]");
  std::vector<double> lse64(2);
  CHECK_THROWS(run("flashAttention", {view(o2, {1, 2, 4}), view(lse64, {1, 2})},
                   {view(a, {1, 2, 4}), view(a, {1, 2, 4}), view(a, {1, 2, 4})}, {{"scale", 1.0}}),
               tsgpu::ArgumentError, "flashAttention: expected a float32 logsumexp [..., L]");
}
