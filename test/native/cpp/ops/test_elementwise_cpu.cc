// The cpu elementwise kernels through the registry: broadcasting, numbers for
// `#` inputs, strided and in-place outputs, dtypes (half, int, bool), attributes.
#include <cmath>
#include <vector>

#include "../harness.h"
#include "base/errors.h"
#include "op_call_builder.h"

using namespace optest;
using tsgpu::BFloat16;
using tsgpu::Half;

TEST(cpu_add_broadcast_alpha_and_sub_number) {
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30}, out(6);
  run("add", {view(out, {2, 3})}, {view(a, {2, 3}), view(b, {3})}, {{"alpha", 2.0}});
  CHECK(out == (std::vector<float>{21, 42, 63, 24, 45, 66}));
  run("sub", {view(out, {2, 3})}, {view(a, {2, 3}), 0.5}, {{"alpha", 2.0}});
  CHECK(out == (std::vector<float>{0, 1, 2, 3, 4, 5}));
}

TEST(cpu_mul_half_with_number_on_the_left) {
  std::vector<Half> a = {Half(1.5f), Half(-2.0f), Half(0.1f)}, out(3);
  run("mul", {view(out, {3})}, {3.0, view(a, {3})});
  CHECK_EQ(float(out[0]), 4.5f);
  CHECK_EQ(float(out[1]), -6.0f);
  CHECK_EQ(float(out[2]), float(Half(float(Half(0.1f)) * 3.0f)));
}

TEST(cpu_div_rounding_modes_int_and_float) {
  std::vector<int32_t> a = {7, -7, 7, -7}, b = {2, 2, -2, -2}, out(4);
  run("div", {view(out, {4})}, {view(a, {4}), view(b, {4})}, {{"roundingMode", "floor"}});
  CHECK(out == (std::vector<int32_t>{3, -4, -4, 3}));
  run("div", {view(out, {4})}, {view(a, {4}), view(b, {4})}, {{"roundingMode", "trunc"}});
  CHECK(out == (std::vector<int32_t>{3, -3, -3, 3}));
  std::vector<double> x = {1, 3}, y(2);
  run("div", {view(y, {2})}, {view(x, {2}), 4.0});
  CHECK(y == (std::vector<double>{0.25, 0.75}));
  CHECK_THROWS(run("div", {view(y, {2})}, {view(x, {2}), 4.0}, {{"roundingMode", "ceil"}}), tsgpu::ArgumentError,
               "div: expected 'trunc' or 'floor' for roundingMode, got 'ceil'");
}

TEST(cpu_unary_on_a_transposed_view_into_a_strided_output) {
  // a is [[0, 1, 2], [3, 4, 5]] read transposed as [3, 2]; out is every other element of a [3, 4] buffer.
  std::vector<float> a = {0, 1, 2, 3, 4, 5}, buf(12, -1.0f);
  run("exp", {strided(buf, {3, 2}, {4, 2})}, {strided(a, {3, 2}, {1, 3})});
  const float want[3][2] = {{0, 3}, {1, 4}, {2, 5}};
  int bad = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      if (std::fabs(buf[i * 4 + j * 2] - std::exp(want[i][j])) > 1e-5f * std::exp(want[i][j])) ++bad;
      if (buf[i * 4 + j * 2 + 1] != -1.0f) ++bad;  // untouched
    }
  CHECK_EQ(bad, 0);
}

TEST(cpu_in_place_relu_and_gelu_modes) {
  std::vector<float> x = {-1.0f, 0.5f, NAN, 2.0f};
  TensorView v = view(x, {4});
  run("relu", {v}, {v});
  CHECK_EQ(x[0], 0.0f);
  CHECK(std::isnan(x[2]));
  std::vector<double> g = {1.0}, out(1);
  run("gelu", {view(out, {1})}, {view(g, {1})}, {{"approximate", "tanh"}});
  CHECK(std::fabs(out[0] - 0.8411919906082768) < 1e-12);
  run("gelu", {view(out, {1})}, {view(g, {1})});
  CHECK(std::fabs(out[0] - 0.8413447460685429) < 1e-12);
  CHECK_THROWS(run("gelu", {view(out, {1})}, {view(g, {1})}, {{"approximate", "fast"}}), tsgpu::ArgumentError,
               "expected 'none' or 'tanh' for approximate, got 'fast'");
}

TEST(cpu_comparisons_give_bool_and_where_takes_numbers) {
  std::vector<int64_t> a = {1, 5, 3}, b = {2, 5, 1};
  std::vector<char> mask(3);
  TensorView m = tsgpu::contiguousView(mask.data(), DType::kBool, kCpu, std::vector<int64_t>{3}.data(), 1);
  run("lt", {m}, {view(a, {3}), view(b, {3})});
  CHECK(mask == (std::vector<char>{1, 0, 0}));
  run("ge", {m}, {view(a, {3}), 3.0});
  CHECK(mask == (std::vector<char>{0, 1, 1}));
  std::vector<float> x = {1, 2, 3}, out(3);
  run("where", {view(out, {3})}, {m, view(x, {3}), -1.0});
  CHECK(out == (std::vector<float>{-1, 2, 3}));
  run("where", {view(out, {3})}, {m, 7.0, 8.0});
  CHECK(out == (std::vector<float>{8, 7, 7}));
}

TEST(cpu_clamp_bounds_and_lerp_addcdiv) {
  std::vector<float> x = {-5, 0, 5, 10}, lo = {-1, 1, 1, 1}, out(4);
  run("clamp", {view(out, {4})}, {view(x, {4}), view(lo, {4}), 6.0});
  CHECK(out == (std::vector<float>{-1, 1, 5, 6}));
  run("clamp", {view(out, {4})}, {view(x, {4}), Arg::absent(), 2.0});
  CHECK(out == (std::vector<float>{-5, 0, 2, 2}));
  std::vector<float> s = {0, 10}, e = {10, 20}, r(2);
  run("lerp", {view(r, {2})}, {view(s, {2}), view(e, {2}), 0.25});
  CHECK(r == (std::vector<float>{2.5f, 12.5f}));
  std::vector<float> t1 = {3, 4}, t2 = {2, 8};
  run("addcdiv", {view(r, {2})}, {view(s, {2}), view(t1, {2}), view(t2, {2})}, {{"value", 2.0}});
  CHECK(r == (std::vector<float>{3, 11}));
}

TEST(cpu_large_broadcast_over_the_thread_pool) {
  const int rows = 300, cols = 1001;  // > one parallel chunk, odd row length
  std::vector<BFloat16> a(rows * cols), col(rows), out(rows * cols);
  for (int i = 0; i < rows * cols; ++i) a[i] = BFloat16(static_cast<float>(i % 97));
  for (int i = 0; i < rows; ++i) col[i] = BFloat16(static_cast<float>(i % 5));
  run("maximum", {view(out, {rows, cols})}, {view(a, {rows, cols}), view(col, {rows, 1})});
  int bad = 0;
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) {
      const float want = std::fmax(static_cast<float>((i * cols + j) % 97), static_cast<float>(i % 5));
      if (float(out[i * cols + j]) != want) ++bad;
    }
  CHECK_EQ(bad, 0);
}

TEST(cpu_broadcast_error_names_the_op_and_shapes) {
  std::vector<float> a(6), b(4), out(6);
  CHECK_THROWS(run("mul", {view(out, {2, 3})}, {view(a, {2, 3}), view(b, {4})}), tsgpu::ArgumentError,
               "mul: shapes [4] and [2, 3] cannot be broadcast");
}
