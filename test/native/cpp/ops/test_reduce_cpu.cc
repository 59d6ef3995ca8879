// The cpu reductions and along-dim ops through the registry: dims, keepdim
// and dropped-dim outputs, strided inputs, the thread pool's split of one big
// output, dtypes of results (int64 sums, bool all/any), arg-reducers.
#include <cmath>
#include <numeric>
#include <vector>

#include "../harness.h"
#include "base/errors.h"
#include "op_call_builder.h"

using namespace optest;
using tsgpu::Half;

namespace {
bool close(double a, double b, double tol = 1e-6) { return std::fabs(a - b) <= tol * (1 + std::fabs(b)); }
}  // namespace

TEST(cpu_sum_mean_over_dims_with_both_output_shapes) {
  std::vector<float> a(24);
  std::iota(a.begin(), a.end(), 0.0f);  // [2, 3, 4]
  std::vector<float> out(4);
  run("sum", {view(out, {4})}, {view(a, {2, 3, 4})}, {{"dims", std::vector<int64_t>{0, 1}}});
  CHECK(out == (std::vector<float>{60, 66, 72, 78}));
  std::vector<float> keep(2);
  run("mean", {view(keep, {2, 1, 1})}, {view(a, {2, 3, 4})}, {{"dims", std::vector<int64_t>{-1, 1}}});
  CHECK(keep == (std::vector<float>{5.5f, 17.5f}));
  std::vector<float> all(1);
  run("sum", {view(all, {})}, {view(a, {2, 3, 4})});
  CHECK_EQ(all[0], 276.0f);
  CHECK_THROWS(run("sum", {view(all, {})}, {view(a, {2, 3, 4})}, {{"dims", std::vector<int64_t>{3}}}),
               tsgpu::ArgumentError, "sum: dim 3 is out of range for a tensor of 3 dims (expected -3 to 2)");
  CHECK_THROWS(run("sum", {view(out, {3})}, {view(a, {2, 3, 4})}, {{"dims", std::vector<int64_t>{0, 1}}}),
               tsgpu::ArgumentError, "sum: output of shape [3] does not fit the reduction of [2, 3, 4] to [1, 1, 4]");
}

TEST(cpu_sum_of_ints_is_int64_and_all_any_are_bool) {
  std::vector<int32_t> a = {1, -2, 3, 4, 0, 6};
  std::vector<int64_t> s(2);
  run("sum", {view(s, {2})}, {view(a, {2, 3})}, {{"dims", std::vector<int64_t>{1}}});
  CHECK(s == (std::vector<int64_t>{2, 10}));
  std::vector<char> b(3);
  TensorView bv = tsgpu::contiguousView(b.data(), DType::kBool, kCpu, std::vector<int64_t>{3}.data(), 1);
  run("all", {bv}, {view(a, {2, 3})}, {{"dims", std::vector<int64_t>{0}}});
  CHECK(b == (std::vector<char>{1, 0, 1}));
  run("any", {bv}, {view(a, {2, 3})}, {{"dims", std::vector<int64_t>{0}}});
  CHECK(b == (std::vector<char>{1, 1, 1}));
  std::vector<int32_t> wrong(2);
  CHECK_THROWS(run("sum", {view(wrong, {2})}, {view(a, {2, 3})}, {{"dims", std::vector<int64_t>{1}}}),
               tsgpu::ArgumentError, "sum: expected an output of dtype int64, got int32");
}

TEST(cpu_big_sum_splits_over_threads_and_matches_double) {
  const int n = 1 << 20;
  std::vector<float> a(n);
  double want = 0;
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(std::sin(i * 0.001)) + 0.25f;
    want += a[i];
  }
  std::vector<float> out(1);
  run("sum", {view(out, {})}, {view(a, {n})});
  CHECK(close(out[0], want, 1e-6));
}

TEST(cpu_var_std_norm_logsumexp) {
  std::vector<double> a = {1, 2, 3, 4, 10, 20, 30, 40};  // [2, 4]
  std::vector<double> out(2);
  run("var", {view(out, {2})}, {view(a, {2, 4})}, {{"dims", std::vector<int64_t>{1}}});
  CHECK(close(out[0], 5.0 / 3.0) && close(out[1], 500.0 / 3.0));
  run("std", {view(out, {2})}, {view(a, {2, 4})}, {{"dims", std::vector<int64_t>{1}}, {"correction", 0.0}});
  CHECK(close(out[0], std::sqrt(1.25)) && close(out[1], std::sqrt(125.0)));
  run("norm", {view(out, {2})}, {view(a, {2, 4})}, {{"dims", std::vector<int64_t>{1}}});
  CHECK(close(out[0], std::sqrt(30.0)) && close(out[1], std::sqrt(3000.0)));
  run("norm", {view(out, {2})}, {view(a, {2, 4})}, {{"dims", std::vector<int64_t>{1}}, {"p", INFINITY}});
  CHECK(out[0] == 4.0 && out[1] == 40.0);
  run("logsumexp", {view(out, {2})}, {view(a, {2, 4})}, {{"dims", std::vector<int64_t>{1}}});
  CHECK(close(out[0], std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0) + std::exp(4.0))));
  CHECK(close(out[1], 40.0 + std::log(1 + std::exp(-10.0) + std::exp(-20.0) + std::exp(-30.0))));
}

TEST(cpu_arg_reducers_and_max_with_indices_on_a_transposed_view) {
  // a = [[3, 7, 7], [9, 1, 9]]; read transposed: [3, 2] with strides [1, 3].
  std::vector<Half> a = {Half(3.0f), Half(7.0f), Half(7.0f), Half(9.0f), Half(1.0f), Half(9.0f)};
  std::vector<int64_t> idx(1);
  run("argmax", {view(idx, {})}, {view(a, {2, 3})});
  CHECK_EQ(idx[0], 3);  // first of the two 9s
  run("argmin", {view(idx, {})}, {view(a, {2, 3})});
  CHECK_EQ(idx[0], 4);
  std::vector<Half> values(2);
  std::vector<int64_t> indices(2);
  run("maxDim", {view(values, {2}), view(indices, {2})}, {strided(a, {3, 2}, {1, 3})}, {{"dim", 0.0}});
  CHECK(float(values[0]) == 7.0f && float(values[1]) == 9.0f);
  CHECK(indices == (std::vector<int64_t>{1, 0}));
  run("minDim", {view(values, {2}), view(indices, {2})}, {strided(a, {3, 2}, {1, 3})}, {{"dim", 0.0}});
  CHECK(float(values[0]) == 3.0f && float(values[1]) == 1.0f);
  CHECK(indices == (std::vector<int64_t>{0, 1}));
  std::vector<float> nan = {1, NAN, 5};
  run("argmax", {view(idx, {})}, {view(nan, {3})});
  CHECK_EQ(idx[0], 1);
}

TEST(cpu_softmax_log_softmax_cumsum_along_dims) {
  std::vector<float> a = {1, 2, 3, 1000, 1001, 1002};  // [2, 3]
  std::vector<float> out(6);
  run("softmax", {view(out, {2, 3})}, {view(a, {2, 3})}, {{"dim", 1.0}});
  const double z = std::exp(-2.0) + std::exp(-1.0) + 1.0;
  CHECK(close(out[2], 1.0 / z, 1e-5) && close(out[5], 1.0 / z, 1e-5));
  run("logSoftmax", {view(out, {2, 3})}, {view(a, {2, 3})}, {{"dim", -1.0}});
  CHECK(close(out[0], -2.0 - std::log(z), 1e-5) && close(out[3], -2.0 - std::log(z), 1e-5));
  run("softmax", {view(out, {2, 3})}, {view(a, {2, 3})}, {{"dim", 0.0}});
  CHECK(close(out[0], 0.0) && close(out[3], 1.0));
  std::vector<int32_t> c = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> cs(6);
  run("cumsum", {view(cs, {2, 3})}, {view(c, {2, 3})}, {{"dim", 0.0}});
  CHECK(cs == (std::vector<int64_t>{1, 2, 3, 5, 7, 9}));
  run("cumsum", {view(cs, {2, 3})}, {view(c, {2, 3})}, {{"dim", 1.0}});
  CHECK(cs == (std::vector<int64_t>{1, 3, 6, 4, 9, 15}));
}
