// The vectorized cpu loops (vec_kernels.h) of every instruction set this
// machine runs, against the scalar math they vectorize: lengths around the
// vector width (tails), in-place use, erf, tan, exp, sigmoid, silu, tanh, log and logit, softmax's NaN / -inf / large-spread
// rows, sums and dots of many elements against a double reference, and normal against
// philox::normal4 at offsets that are not a multiple of the vector width.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "../harness.h"
#include "ops/common/philox.h"
#include "ops/common/poly_math.h"
#include "ops/cpu/vec_kernels.h"

using namespace tsgpu;

namespace {

std::vector<const vec::VecKernels*> available() {
  std::vector<const vec::VecKernels*> ks{&vec::vecKernelsGeneric()};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ks.push_back(&vec::vecKernelsAvx2());
  if (__builtin_cpu_supports("avx512f")) ks.push_back(&vec::vecKernelsAvx512());
#endif
  return ks;
}

/** Deterministic values in [-scale, scale). */
std::vector<float> values(int64_t n, float scale, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = scale * (2.0f * philox::uniformFloat(seed, static_cast<uint64_t>(i)) - 1.0f);
  return v;
}

/** Within `ulps` float ulps of `ref` (relative), or both NaN, or equal. */
bool close(float got, double ref, double ulps) {
  if (std::isnan(ref)) return std::isnan(got);
  if (std::isinf(ref)) return got == ref;
  return std::fabs(got - ref) <= ulps * 5.960464477539063e-8 * std::fmax(std::fabs(ref), 1e-37);
}

void failAt(const std::string& what, const char* isa, int64_t n, int64_t i, double got, double want) {
  std::ostringstream os;
  os << what << " (" << isa << ", n = " << n << "): element " << i << " is " << got << ", expected " << want;
  harness::fail(__FILE__, __LINE__, os.str());
}

const int64_t kLengths[] = {0, 1, 3, 7, 8, 15, 16, 17, 31, 33, 63, 64, 65, 255, 1001, 4099, 8193};

}  // namespace

TEST(vec_gelu_matches_the_scalar_math_at_every_tail) {
  for (const vec::VecKernels* k : available()) {
    for (int64_t n : kLengths) {
      const std::vector<float> x = values(n, 8.0f, 11);
      std::vector<float> y(x.size()), t(x.size()), inPlace = x;
      k->geluErf(x.data(), y.data(), n);
      k->geluTanh(x.data(), t.data(), n);
      k->geluErf(inPlace.data(), inPlace.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        // FMA contraction may differ between the vector and the scalar build: a few roundings,
        // amplified where the result is small by the functions' conditioning (x^2 for erf's tail,
        // the cubic's derivative for tanh's).
        const double a = std::fabs(x[i]);
        if (!close(y[i], pm::geluErf(x[i]), 4 * (1 + a * a))) failAt("geluErf", k->isa, n, i, y[i], pm::geluErf(x[i]));
        if (!close(t[i], pm::geluTanh(x[i]), 4 * (1 + 2 * a + 0.11 * a * a * a)))
          failAt("geluTanh", k->isa, n, i, t[i], pm::geluTanh(x[i]));
        if (inPlace[i] != y[i]) failAt("geluErf in place", k->isa, n, i, inPlace[i], y[i]);
      }
    }
  }
}

TEST(vec_erf_and_tan_match_the_scalar_math_at_every_tail) {
  for (const vec::VecKernels* k : available()) {
    for (int64_t n : kLengths) {
      std::vector<float> x = values(n, 6.0f, 21);
      // Arguments tan reduces in double and the ones it leaves to libm: large, infinite, NaN.
      if (n > 5) x[1] = 12345.678f, x[2] = 3.0e6f, x[3] = INFINITY, x[4] = NAN, x[5] = -1.0e5f;
      std::vector<float> e(x.size()), t(x.size()), inPlace = x;
      k->erf(x.data(), e.data(), n);
      k->tan(x.data(), t.data(), n);
      k->tan(inPlace.data(), inPlace.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        if (!close(e[i], pm::erf(x[i]), 4)) failAt("erf", k->isa, n, i, e[i], pm::erf(x[i]));
        const double want = pm::absf(x[i]) <= pm::kTanReducedMax ? pm::tanReduced(x[i]) : std::tan(static_cast<double>(x[i]));
        if (!close(t[i], want, 4)) failAt("tan", k->isa, n, i, t[i], want);
        if (!(inPlace[i] == t[i] || (std::isnan(inPlace[i]) && std::isnan(t[i])))) failAt("tan in place", k->isa, n, i, inPlace[i], t[i]);
      }
    }
  }
}

TEST(vec_exp_sigmoid_silu_tanh_log_logit_match_the_scalar_math_at_every_tail) {
  for (const vec::VecKernels* k : available()) {
    for (int64_t n : kLengths) {
      std::vector<float> x = values(n, 30.0f, 23);
      // The edges: overflow and underflow of exp, zero of both signs, infinities, NaN, a subnormal.
      if (n > 8) x[1] = 100.0f, x[2] = -120.0f, x[3] = 0.0f, x[4] = -0.0f, x[5] = INFINITY, x[6] = -INFINITY, x[7] = NAN, x[8] = 1e-40f;
      std::vector<float> p(x.size());  // logit's arguments: mostly in (0, 1), and the edges
      for (int64_t i = 0; i < n; ++i) p[i] = x[i] / 60.0f + 0.5f;
      if (n > 8) p[1] = 0.0f, p[2] = 1.0f, p[3] = -0.5f, p[4] = 1.5f, p[5] = NAN, p[6] = 1e-30f;
      std::vector<float> e(x.size()), s(x.size()), u(x.size()), t(x.size()), l(x.size()), g(x.size()), gc(x.size()), inPlace = x;
      k->exp(x.data(), e.data(), n);
      k->sigmoid(x.data(), s.data(), n);
      k->silu(x.data(), u.data(), n);
      k->tanh(x.data(), t.data(), n);
      k->log(x.data(), l.data(), n);
      k->logit(p.data(), g.data(), n, -INFINITY, INFINITY);
      k->logit(p.data(), gc.data(), n, 0.05f, 0.95f);
      k->tanh(inPlace.data(), inPlace.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const float v = x[i];
        if (!close(e[i], pm::exp(v), 2)) failAt("exp", k->isa, n, i, e[i], pm::exp(v));
        if (!close(s[i], 1.0 / (1.0 + std::exp(-static_cast<double>(v))), 3)) failAt("sigmoid", k->isa, n, i, s[i], 1.0 / (1.0 + std::exp(-static_cast<double>(v))));
        const double silu = v / (1.0 + std::exp(-static_cast<double>(v)));
        if (!(close(u[i], silu, 4) || (std::isnan(silu) && std::isnan(u[i])))) failAt("silu", k->isa, n, i, u[i], silu);
        if (!close(t[i], std::tanh(static_cast<double>(v)), 2) || std::signbit(t[i]) != std::signbit(v)) failAt("tanh", k->isa, n, i, t[i], std::tanh(static_cast<double>(v)));
        if (!(inPlace[i] == t[i] || (std::isnan(inPlace[i]) && std::isnan(t[i])))) failAt("tanh in place", k->isa, n, i, inPlace[i], t[i]);
        if (!close(l[i], std::log(static_cast<double>(v)), 2)) failAt("log", k->isa, n, i, l[i], std::log(static_cast<double>(v)));
        const double q = p[i];
        const float r = p[i] / (1.0f - p[i]);  // the ratio as the loop rounds it
        if (!close(g[i], std::log(static_cast<double>(r)), 2)) failAt("logit", k->isa, n, i, g[i], std::log(q / (1 - q)));
        const float c = p[i] < 0.05f ? 0.05f : (p[i] > 0.95f ? 0.95f : p[i]);
        const double wantClamped = std::isnan(p[i]) ? NAN : std::log(static_cast<double>(c / (1.0f - c)));
        if (!close(gc[i], wantClamped, 2)) failAt("logit clamped", k->isa, n, i, gc[i], wantClamped);
      }
    }
  }
}

TEST(vec_atan2_matches_the_scalar_math_at_every_tail_and_in_place) {
  for (const vec::VecKernels* k : available()) {
    for (int64_t n : kLengths) {
      std::vector<float> y = values(n, 5.0f, 31), x = values(n, 3.0f, 32);
      // The pairs left to libm: 0/0, inf/inf, NaN.
      if (n > 4) x[1] = 0.0f, y[1] = -0.0f, x[2] = -INFINITY, y[2] = INFINITY, x[3] = NAN, y[4] = NAN;
      std::vector<float> out(y.size()), inPlace = y;
      k->atan2(y.data(), x.data(), out.data(), n);
      k->atan2(inPlace.data(), x.data(), inPlace.data(), n);
      for (int64_t i = 0; i < n; ++i) {
        const double want = pm::atan2Special(y[i], x[i]) ? std::atan2(y[i], x[i]) : pm::atan2Regular(y[i], x[i]);
        if (!close(out[i], want, 2) || std::signbit(out[i]) != std::signbit(static_cast<float>(want)))
          failAt("atan2", k->isa, n, i, out[i], want);
        if (!(inPlace[i] == out[i] || (std::isnan(inPlace[i]) && std::isnan(out[i])))) failAt("atan2 in place", k->isa, n, i, inPlace[i], out[i]);
      }
    }
  }
}

TEST(vec_softmax_rows_against_double) {
  for (const vec::VecKernels* k : available()) {
    for (int64_t n : kLengths) {
      if (n == 0) continue;
      for (float scale : {1.0f, 30.0f, 300.0f}) {
        const std::vector<float> x = values(n, scale, 5 + static_cast<uint32_t>(n));
        double mx = -INFINITY, sum = 0;
        for (float v : x) mx = std::fmax(mx, v);
        for (float v : x) sum += std::exp(v - mx);
        std::vector<float> y(x.size()), ly(x.size());
        k->softmaxRow(x.data(), y.data(), n, false);
        k->softmaxRow(x.data(), ly.data(), n, true);
        for (int64_t i = 0; i < n; ++i) {
          // x - max rounds in float (as PyTorch's); the rest is compared with exact arithmetic.
          const double d = static_cast<float>(x[i] - static_cast<float>(mx));
          const double p = std::exp(d) / sum;
          const double lp = d - std::log(sum);
          // Relative for probabilities that matter, absolute below.
          if (std::fabs(y[i] - p) > 8 * 5.96e-8 * p + 1e-37) failAt("softmax", k->isa, n, i, y[i], p);
          if (std::fabs(ly[i] - lp) > 8 * 5.96e-8 * std::fmax(std::fabs(lp), std::fabs(mx))) failAt("logSoftmax", k->isa, n, i, ly[i], lp);
        }
      }
    }
    // NaN anywhere, or a row of -inf: NaN everywhere (as PyTorch); -inf entries get 0 / -inf.
    std::vector<float> x = values(40, 3, 9), y(40);
    x[37] = NAN;
    k->softmaxRow(x.data(), y.data(), 40, false);
    for (int i = 0; i < 40; ++i) CHECK(std::isnan(y[i]));
    std::vector<float> ninf(20, -INFINITY);
    k->softmaxRow(ninf.data(), y.data(), 20, true);
    for (int i = 0; i < 20; ++i) CHECK(std::isnan(y[i]));
    ninf[19] = 2.0f;
    k->softmaxRow(ninf.data(), y.data(), 20, false);
    for (int i = 0; i < 19; ++i) CHECK(y[i] == 0.0f);
    CHECK(y[19] == 1.0f);
    k->softmaxRow(ninf.data(), y.data(), 20, true);
    CHECK(y[0] == -INFINITY && y[19] == 0.0f);
  }
}

TEST(vec_sum_and_dot_against_double) {
  for (const vec::VecKernels* k : available()) {
    for (int64_t n : {int64_t(0), int64_t(1), int64_t(17), int64_t(1001), int64_t(1) << 20, (int64_t(1) << 20) + 13}) {
      const std::vector<float> x = values(n, 100.0f, 3);
      long double ref = 0, mag = 0;
      for (float v : x) ref += v, mag += std::fabs(v);
      const double got = k->sum(x.data(), n);
      // Float lanes inside each block of 4096: at most 64 additions per lane and 6 to fold the lanes,
      // each rounding by half an ulp of a partial sum no larger than the block's sum of magnitudes.
      if (std::fabs(got - static_cast<double>(ref)) > 70 * 0.5 * 5.960464477539063e-8 * static_cast<double>(mag) + 1e-300)
        failAt("sum", k->isa, n, -1, got, static_cast<double>(ref));
      std::vector<float> w = values(n, 3.0f, 5);
      long double dref = 0, dmag = 0;
      for (int64_t i = 0; i < n; ++i) dref += static_cast<long double>(x[i]) * w[i], dmag += std::fabs(static_cast<long double>(x[i]) * w[i]);
      const double dgot = k->dot(x.data(), w.data(), n);
      // As sum's bound, plus the rounding of each product (or none where it is fused into its addition).
      if (std::fabs(dgot - static_cast<double>(dref)) > 71 * 0.5 * 5.960464477539063e-8 * static_cast<double>(dmag) + 1e-300)
        failAt("dot", k->isa, n, -1, dgot, static_cast<double>(dref));
    }
    const float special[] = {1, INFINITY, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    CHECK(std::isinf(k->sum(special, 18)));
    const float nan[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, NAN};
    CHECK(std::isnan(k->sum(nan, 18)));
  }
}

TEST(vec_normal_matches_philox_normal4) {
  for (const vec::VecKernels* k : available()) {
    for (int64_t n : {int64_t(1), int64_t(5), int64_t(64), int64_t(67), int64_t(1003)}) {
      for (uint64_t first : {uint64_t(0), uint64_t(3), uint64_t(1) << 33}) {
        std::vector<float> out(static_cast<size_t>(n));
        k->normal(0x1234567887654321ull, first, out.data(), n, 0.5f, 2.0f);
        for (int64_t i = 0; i < n; ++i) {
          float z[4];
          philox::normal4<float>(0x1234567887654321ull, first + static_cast<uint64_t>(i / 4), z);
          const float want = 0.5f + 2.0f * z[i % 4];
          if (std::fabs(out[i] - want) > 1e-6f * (1 + std::fabs(want))) failAt("normal", k->isa, n, i, out[i], want);
        }
      }
    }
  }
}
