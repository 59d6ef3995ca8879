// The first float32 ops over whole contiguous storages (binary, binaryScalar,
// matmul, sum), kept until their kernels move to the op registry; new ops go
// through op_binding.cc.
#include <cstring>
#include <vector>

#include "binding/binding.h"
#include "base/errors.h"
#include "ops/ops.h"

namespace tsgpu {
namespace binding {

namespace {

struct Operand {
  StorageRecord* rec;
  Device* device;
  float* data() const { return static_cast<float*>(rec->data()); }
  size_t numel() const { return rec->nbytes / sizeof(float); }
};

Operand operand(const Napi::CallbackInfo& info, size_t i) {
  StorageRecord& rec = argStorage(info, i);
  if (static_cast<DType>(rec.dtype) != DType::kFloat32)
    throw ArgumentError(std::string("operation not supported for dtype ") + dtypeName(static_cast<DType>(rec.dtype)));
  return Operand{&rec, &DeviceRegistry::instance().get(rec.device)};
}

void sameDevice(const Operand& a, const Operand& b) {
  if (a.rec->device != b.rec->device)
    throw ArgumentError("expected all tensors to be on the same device, but found " + a.rec->device + " and " +
                        b.rec->device);
}

ops::Binary binaryOp(const std::string& name) {
  if (name == "add") return ops::Binary::kAdd;
  if (name == "sub") return ops::Binary::kSub;
  if (name == "mul") return ops::Binary::kMul;
  if (name == "div") return ops::Binary::kDiv;
  throw ArgumentError("unknown binary op '" + name + "'");
}

// binary(op, out, a, b): out = a op b, elementwise over equal sizes.
Napi::Value Binary(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    ops::Binary op = binaryOp(argString(info, 0, "op"));
    Operand out = operand(info, 1), a = operand(info, 2), b = operand(info, 3);
    sameDevice(out, a);
    sameDevice(a, b);
    if (a.numel() != out.numel() || b.numel() != out.numel())
      throw ArgumentError("element counts differ: " + std::to_string(a.numel()) + " and " +
                          std::to_string(b.numel()));
    ops::binary(*out.device, op, out.data(), a.data(), b.data(), out.numel());
    return info.Env().Undefined();
  });
}

// binaryScalar(op, out, a, x): out = a op x for a number x.
Napi::Value BinaryScalar(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    ops::Binary op = binaryOp(argString(info, 0, "op"));
    Operand out = operand(info, 1), a = operand(info, 2);
    sameDevice(out, a);
    ops::binaryScalar(*out.device, op, out.data(), a.data(), static_cast<float>(argNumber(info, 3, "other")),
                      out.numel());
    return info.Env().Undefined();
  });
}

Napi::Value Matmul(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Operand out = operand(info, 0), a = operand(info, 1), b = operand(info, 2);
    sameDevice(out, a);
    sameDevice(a, b);
    uint64_t m = argCount(info, 3, "m"), k = argCount(info, 4, "k"), n = argCount(info, 5, "n");
    if (a.numel() != m * k || b.numel() != k * n || out.numel() != m * n)
      throw ArgumentError("matmul shapes do not match the storages");
    ops::matmul(*out.device, out.data(), a.data(), b.data(), m, k, n);
    return info.Env().Undefined();
  });
}

Napi::Value Sum(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Operand out = operand(info, 0), a = operand(info, 1);
    sameDevice(out, a);
    if (out.numel() < 1) throw ArgumentError("sum needs a one-element output");
    ops::sum(*out.device, out.data(), a.data(), a.numel());
    return info.Env().Undefined();
  });
}

}  // namespace

void initOps(Napi::Env env, Napi::Object exports) {
  const std::pair<const char*, Napi::Function::Callback> fns[] = {
      {"binary", Binary}, {"binaryScalar", BinaryScalar}, {"matmul", Matmul}, {"sum", Sum}};
  for (const auto& f : fns) exports.Set(f.first, Napi::Function::New(env, f.second, f.first));
}

}  // namespace binding
}  // namespace tsgpu
