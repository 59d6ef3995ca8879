// gather, scatter, scatterAdd, scatterReduce, layerNorm and rmsNorm on cpu
// through the registry: index semantics along a dim, repeated scatterAdd and
// scatterReduce targets (with and without self's values), number sources,
// out-of-range indices left alone, normalization of rows.
#include <cmath>
#include <vector>

#include "../harness.h"
#include "base/errors.h"
#include "op_call_builder.h"

using namespace optest;

TEST(cpu_gather_along_dims_and_errors) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6};  // [2, 3]
  std::vector<int64_t> idx = {2, 0, 1, 1};    // [2, 2]
  std::vector<float> out(4);
  run("gather", {view(out, {2, 2})}, {view(x, {2, 3}), view(idx, {2, 2})}, {{"dim", 1.0}});
  CHECK(out == (std::vector<float>{3, 1, 5, 5}));
  std::vector<int64_t> rows = {1, 0, 1};  // [1, 3]
  std::vector<float> r(3);
  run("gather", {view(r, {1, 3})}, {view(x, {2, 3}), view(rows, {1, 3})}, {{"dim", 0.0}});
  CHECK(r == (std::vector<float>{4, 2, 6}));
  std::vector<int64_t> bad(3);
  CHECK_THROWS(run("gather", {view(r, {3})}, {view(x, {2, 3}), view(bad, {3})}, {{"dim", 0.0}}), tsgpu::ArgumentError,
               "gather: expected index with as many dims as self (2), got 1");
  std::vector<int32_t> wrongType(3);
  CHECK_THROWS(run("gather", {view(r, {1, 3})}, {view(x, {2, 3}), view(wrongType, {1, 3})}, {{"dim", 0.0}}),
               tsgpu::ArgumentError, "gather: expected an int64 index, got int32");
}

TEST(cpu_scatter_and_scatter_add) {
  std::vector<double> self(6, 0.0);  // [2, 3], written in place
  std::vector<int64_t> idx = {0, 1, 0, 1, 1, 2};  // [2, 3] into dim 1
  std::vector<double> src = {1, 2, 3, 4, 5, 6};
  TensorView s = view(self, {2, 3});
  run("scatterAdd", {s}, {s, view(idx, {2, 3}), view(src, {2, 3})}, {{"dim", 1.0}});
  CHECK(self == (std::vector<double>{4, 2, 0, 0, 9, 6}));
  run("scatter", {s}, {s, view(idx, {2, 3}), -1.0}, {{"dim", 1.0}});
  CHECK(self == (std::vector<double>{-1, -1, 0, 0, -1, -1}));
  std::vector<int64_t> outOfRange = {5, 0, 0};  // [1, 3]: 5 is skipped, nothing is written outside
  run("scatter", {s}, {s, view(outOfRange, {1, 3}), 8.0}, {{"dim", 1.0}});
  CHECK(self == (std::vector<double>{8, -1, 0, 0, -1, -1}));
}

TEST(cpu_scatter_reduce_with_and_without_self) {
  const std::vector<float> base = {1, 2, 3, 4, 5, 6};  // [2, 3]
  std::vector<int64_t> idx = {0, 0, 1, 1};             // [2, 2] into dim 1: row 0 -> 0, 0; row 1 -> 1, 1
  std::vector<float> src = {10, -20, 7, 0.5f};
  struct Want {
    const char* reduce;
    bool includeSelf;
    std::vector<float> out;
  };
  const Want wants[] = {
      {"sum", true, {-9, 2, 3, 4, 12.5f, 6}},   {"sum", false, {-10, 2, 3, 4, 7.5f, 6}},
      {"prod", true, {-200, 2, 3, 4, 17.5f, 6}}, {"prod", false, {-200, 2, 3, 4, 3.5f, 6}},
      {"amax", true, {10, 2, 3, 4, 7, 6}},       {"amax", false, {10, 2, 3, 4, 7, 6}},
      {"amin", true, {-20, 2, 3, 4, 0.5f, 6}},   {"amin", false, {-20, 2, 3, 4, 0.5f, 6}},
  };
  for (const Want& w : wants) {
    std::vector<float> self = base;
    TensorView s = view(self, {2, 3});
    run("scatterReduce", {s}, {s, view(idx, {2, 2}), view(src, {2, 2})},
        {{"dim", 1.0}, {"reduce", w.reduce}, {"includeSelf", w.includeSelf ? 1.0 : 0.0}});
    CHECK(self == w.out);
  }
  std::vector<int32_t> ints = {5, 5, 5};  // a number source, combined three times into element 1
  std::vector<int64_t> same = {1, 1, 1};
  TensorView iv = view(ints, {3});
  run("scatterReduce", {iv}, {iv, view(same, {3}), 3.0}, {{"dim", 0.0}, {"reduce", "prod"}, {"includeSelf", 0.0}});
  CHECK(ints == (std::vector<int32_t>{5, 27, 5}));
  std::vector<float> self = base;
  TensorView s = view(self, {2, 3});
  CHECK_THROWS(run("scatterReduce", {s}, {s, view(idx, {2, 2}), view(src, {2, 2})}, {{"dim", 1.0}, {"reduce", "mean"}}),
               tsgpu::ArgumentError, "scatterReduce: expected 'sum', 'prod', 'amax' or 'amin' for reduce, got 'mean'");
}

TEST(cpu_layer_norm_and_rms_norm_rows) {
  std::vector<float> x = {1, 2, 3, 4, 10, 20, 30, 40}, w = {1, 2, 1, 2}, b = {0, 0, 1, 1}, y(8), mean(2), rstd(2);
  run("layerNorm", {view(y, {2, 4}), view(mean, {2}), view(rstd, {2})}, {view(x, {2, 4}), view(w, {4}), view(b, {4})},
      {{"normalizedNumel", 4.0}, {"eps", 0.0}});
  CHECK(std::fabs(mean[0] - 2.5) < 1e-6 && std::fabs(mean[1] - 25) < 1e-5);
  CHECK(std::fabs(rstd[0] - 1 / std::sqrt(1.25)) < 1e-6 && std::fabs(rstd[1] - 1 / std::sqrt(125.0)) < 1e-6);
  const double inv = 1.0 / std::sqrt(1.25);
  const double want[4] = {-1.5 * inv, -0.5 * inv * 2, 0.5 * inv + 1, 1.5 * inv * 2 + 1};
  int bad = 0;
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 4; ++j)
      if (std::fabs(y[r * 4 + j] - want[j]) > 1e-5) ++bad;
  CHECK_EQ(bad, 0);
  run("rmsNorm", {view(y, {2, 4})}, {view(x, {2, 4}), Arg::absent()}, {{"normalizedNumel", 4.0}, {"eps", 0.0}});
  const double rms = std::sqrt(30.0 / 4);
  CHECK(std::fabs(y[0] - 1 / rms) < 1e-6 && std::fabs(y[7] - 40 / (10 * rms)) < 1e-6);
  CHECK_THROWS(run("layerNorm", {view(y, {2, 4}), view(mean, {2}), view(rstd, {2})}, {view(x, {2, 4}), Arg::absent(), Arg::absent()},
                   {{"normalizedNumel", 3.0}, {"eps", 0.0}}),
               tsgpu::ArgumentError, "layerNorm: expected a normalized size dividing 8 for normalizedNumel, got 3");
}
