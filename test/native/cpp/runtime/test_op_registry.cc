// The op list, the kernel registry and OpCall, with the example cpu `add`.
#include <vector>

#include "base/errors.h"
#include "harness.h"
#include "runtime/op_registry.h"

using namespace tsgpu;

namespace {

OpCall addCall() {
  OpCall call;
  call.op = OpId::add;
  call.device = DeviceId{DeviceKind::kCpu, 0};
  call.attrs.resize(opInfo(OpId::add).attrs.size());
  call.attrs[0].present = true;
  call.attrs[0].d = 1.0;
  return call;
}

}  // namespace

TEST(op_list_is_parsed) {
  const OpInfo& add = opInfo(OpId::add);
  CHECK_EQ(std::string(add.name), std::string("add"));
  CHECK_EQ(add.inputs.size(), size_t(2));
  CHECK(add.inputs[1].scalarOk);
  CHECK(!add.inputs[0].scalarOk);
  CHECK_EQ(add.attrs.size(), size_t(1));
  CHECK_EQ(add.attrs[0].name, std::string("alpha"));
  CHECK(add.attrs[0].hasDefault);
  CHECK(add.inplace);
  CHECK((add.dtypeMask & (1u << static_cast<int>(DType::kBool))) == 0);
  CHECK((add.dtypeMask & (1u << static_cast<int>(DType::kBFloat16))) != 0);
  CHECK(findOp("add") == &add);
  CHECK(findOp("nope") == nullptr);
  const OpInfo& uniform = opInfo(OpId::uniform);
  CHECK((uniform.dtypeMask & (1u << static_cast<int>(DType::kInt32))) == 0);
}

TEST(registry_has_no_problems_and_finds_cpu_add) {
  CHECK(registryProblems().empty());
  CHECK(findKernel(OpId::add, DeviceKind::kCpu) != nullptr);
  CHECK(findKernel(OpId::add, DeviceKind::kPolicy) == nullptr);
}

TEST(missing_kernel_names_op_and_device) {
  OpCall call = addCall();
  call.device = DeviceId{DeviceKind::kPolicy, 0};
  CHECK_THROWS(runKernel(call), Error, "add: no kernel for policy");
}

TEST(cpu_add_broadcasts_by_strides) {
  // a: [2, 3] row-major, b: [3] broadcast over rows, alpha 2.
  std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {10, 20, 30}, out(6, 0.0f);
  int64_t s23[] = {2, 3}, s3[] = {3};
  OpCall call = addCall();
  call.attrs[0].d = 2.0;
  const DeviceId cpu{DeviceKind::kCpu, 0};
  call.outputs = {contiguousView(out.data(), DType::kFloat32, cpu, s23, 2)};
  call.inputs = {contiguousView(a.data(), DType::kFloat32, cpu, s23, 2), contiguousView(b.data(), DType::kFloat32, cpu, s3, 1)};
  call.scalars.resize(2);
  runKernel(call);
  const float expected[] = {21, 42, 63, 24, 45, 66};
  for (int i = 0; i < 6; ++i) CHECK_EQ(out[i], expected[i]);
}

TEST(cpu_add_scalar_and_strided_output) {
  // out is a transposed view [3, 2] of a [2, 3] buffer; a is contiguous [3, 2]; other = 0.5 (a number).
  std::vector<double> a = {1, 2, 3, 4, 5, 6}, buf(6, 0.0);
  int64_t s32[] = {3, 2};
  const DeviceId cpu{DeviceKind::kCpu, 0};
  OpCall call = addCall();
  TensorView out = contiguousView(buf.data(), DType::kFloat64, cpu, s32, 2);
  out.strides[0] = 1;
  out.strides[1] = 3;
  CHECK(!out.isContiguous());
  call.outputs = {out};
  call.inputs = {contiguousView(a.data(), DType::kFloat64, cpu, s32, 2), TensorView()};
  call.scalars.resize(2);
  call.scalars[1].present = true;
  call.scalars[1].value = 0.5;
  CHECK(call.isScalar(1));
  CHECK(!call.in(1).defined());
  runKernel(call);
  // out[i][j] = buf[i + 3j] = a[i][j] + 0.5
  const double expected[] = {1.5, 3.5, 5.5, 2.5, 4.5, 6.5};
  for (int i = 0; i < 6; ++i) CHECK_EQ(buf[i], expected[i]);
}

TEST(attribute_accessors_check_names_and_types) {
  OpCall call = addCall();
  CHECK(call.hasAttr("alpha"));
  CHECK(!call.hasAttr("beta"));
  CHECK_EQ(call.attrDouble("alpha"), 1.0);
  CHECK_THROWS(call.attrString("alpha"), Error, "wrong type");
  CHECK_THROWS(call.attrDouble("beta"), Error, "add: no attribute 'beta'");
}

TEST(random_counters_are_reserved_in_blocks_of_four) {
  OpCall call = addCall();
  RandomCounters a = call.randomCounters(5);
  RandomCounters b = call.randomCounters(1);
  CHECK_EQ(b.offset - a.offset, uint64_t(8));
  CHECK_EQ(a.seed, b.seed);
}
