// Tensor ops over storages: argument checks and dispatch to ops/.
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

Napi::Value Fill(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Operand out = operand(info, 0);
    ops::fill(*out.device, out.data(), out.numel(), static_cast<float>(argNumber(info, 1, "value")));
    return info.Env().Undefined();
  });
}

Napi::Value Randn(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Operand out = operand(info, 0);
    ops::randn(*out.device, out.data(), out.numel());
    return info.Env().Undefined();
  });
}

Napi::Value Rand(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Operand out = operand(info, 0);
    ops::rand(*out.device, out.data(), out.numel());
    return info.Env().Undefined();
  });
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

Napi::Value Write(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Operand out = operand(info, 0);
    if (!info[1].IsTypedArray()) throwJs(info.Env(), "TSGPU_ARG", "expected a Float32Array for data");
    Napi::Float32Array src = info[1].As<Napi::Float32Array>();
    if (src.ElementLength() != out.numel())
      throw ArgumentError("data has " + std::to_string(src.ElementLength()) + " elements, the tensor " +
                          std::to_string(out.numel()));
    if (out.rec->nbytes) out.device->backend->copyHostToDevice(out.data(), src.Data(), out.rec->nbytes);
    return info.Env().Undefined();
  });
}

Napi::Value Read(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Operand a = operand(info, 0);
    Napi::Float32Array dst = Napi::Float32Array::New(info.Env(), a.numel());
    if (a.rec->nbytes) a.device->backend->copyDeviceToHost(dst.Data(), a.data(), a.rec->nbytes);
    return dst;
  });
}

// copy(dst, src): any pair of devices; equal byte sizes.
Napi::Value Copy(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    StorageRecord& dst = argStorage(info, 0);
    StorageRecord& src = argStorage(info, 1);
    if (dst.nbytes != src.nbytes) throw ArgumentError("copy between storages of different sizes");
    if (dst.nbytes == 0) return info.Env().Undefined();
    Device& dd = DeviceRegistry::instance().get(dst.device);
    Device& sd = DeviceRegistry::instance().get(src.device);
    if (&dd == &sd) {
      dd.backend->copyDeviceToDevice(dst.data(), src.data(), dst.nbytes);
    } else if (sd.kind == DeviceKind::kCpu) {
      dd.backend->copyHostToDevice(dst.data(), src.data(), dst.nbytes);
    } else if (dd.kind == DeviceKind::kCpu) {
      sd.backend->copyDeviceToHost(dst.data(), src.data(), dst.nbytes);
    } else {
      std::vector<char> bounce(dst.nbytes);
      sd.backend->copyDeviceToHost(bounce.data(), src.data(), dst.nbytes);
      dd.backend->copyHostToDevice(dst.data(), bounce.data(), dst.nbytes);
    }
    return info.Env().Undefined();
  });
}

Napi::Value ManualSeed(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    ops::manualSeed(argCount(info, 0, "seed"));
    return info.Env().Undefined();
  });
}

}  // namespace

void initOps(Napi::Env env, Napi::Object exports) {
  const std::pair<const char*, Napi::Function::Callback> fns[] = {
      {"fill", Fill}, {"randn", Randn}, {"rand", Rand},   {"binary", Binary}, {"binaryScalar", BinaryScalar},         {"matmul", Matmul},
      {"sum", Sum},   {"write", Write}, {"read", Read},   {"copy", Copy},             {"manualSeed", ManualSeed},
  };
  for (const auto& f : fns) exports.Set(f.first, Napi::Function::New(env, f.second, f.first));
}

}  // namespace binding
}  // namespace tsgpu
