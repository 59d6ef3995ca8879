// Moving bytes between storages and the host: readBytes (device -> host,
// waits for the device's stream), writeBytes (host -> device) and copyBytes
// (storage -> storage, any two devices). Offsets and lengths are in bytes and
// checked against the storages.
#include <vector>

#include "base/errors.h"
#include "binding/binding.h"
#include "runtime/generator.h"

namespace tsgpu {
namespace binding {

namespace {

void checkRange(const StorageRecord& rec, uint64_t offset, uint64_t nbytes, const char* what) {
  if (offset + nbytes > rec.nbytes)
    throw ArgumentError(std::string(what) + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset + nbytes) +
                        ") are outside the storage of " + std::to_string(rec.nbytes) + " bytes");
}

Device& deviceOf(const StorageRecord& rec) {
  Device* d = slotDevice(rec.deviceSlot);
  if (d == nullptr) throw Error("TSGPU_INTERNAL", "storage without a device");
  return *d;
}

// readBytes(handle, byteOffset, nbytes) -> ArrayBuffer
Napi::Value ReadBytes(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    StorageRecord& rec = argStorage(info, 0);
    const uint64_t offset = argCount(info, 1, "byteOffset"), nbytes = argCount(info, 2, "nbytes");
    checkRange(rec, offset, nbytes, "readBytes");
    Napi::ArrayBuffer out = Napi::ArrayBuffer::New(info.Env(), static_cast<size_t>(nbytes));
    if (nbytes > 0) {
      Device& d = deviceOf(rec);
      d.backend->activate();
      d.backend->copyDeviceToHost(out.Data(), static_cast<char*>(rec.data()) + offset, static_cast<size_t>(nbytes));
    }
    return out;
  });
}

// writeBytes(handle, byteOffset, data: ArrayBufferView)
Napi::Value WriteBytes(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    StorageRecord& rec = argStorage(info, 0);
    const uint64_t offset = argCount(info, 1, "byteOffset");
    if (!info[2].IsTypedArray() && !info[2].IsDataView())
      throwJs(info.Env(), "TSGPU_ARG", "expected a typed array for data");
    Napi::TypedArray src = info[2].As<Napi::TypedArray>();
    const size_t nbytes = src.ByteLength();
    checkRange(rec, offset, nbytes, "writeBytes");
    if (nbytes > 0) {
      const char* p = static_cast<const char*>(src.ArrayBuffer().Data()) + src.ByteOffset();
      Device& d = deviceOf(rec);
      d.backend->activate();
      d.backend->copyHostToDevice(static_cast<char*>(rec.data()) + offset, p, nbytes);
    }
    return info.Env().Undefined();
  });
}

// copyBytes(dst, dstByteOffset, src, srcByteOffset, nbytes): any pair of devices.
Napi::Value CopyBytes(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    StorageRecord& dst = argStorage(info, 0);
    const uint64_t dstOffset = argCount(info, 1, "dstByteOffset");
    StorageRecord& src = argStorage(info, 2);
    const uint64_t srcOffset = argCount(info, 3, "srcByteOffset"), nbytes = argCount(info, 4, "nbytes");
    checkRange(dst, dstOffset, nbytes, "copyBytes (destination)");
    checkRange(src, srcOffset, nbytes, "copyBytes (source)");
    if (nbytes == 0) return info.Env().Undefined();
    Device& dd = deviceOf(dst);
    Device& sd = deviceOf(src);
    char* to = static_cast<char*>(dst.data()) + dstOffset;
    const char* from = static_cast<const char*>(src.data()) + srcOffset;
    const size_t n = static_cast<size_t>(nbytes);
    if (&dd == &sd) {
      dd.backend->activate();
      dd.backend->copyDeviceToDevice(to, from, n);
    } else if (sd.kind == DeviceKind::kCpu) {
      dd.backend->activate();
      dd.backend->copyHostToDevice(to, from, n);
    } else if (dd.kind == DeviceKind::kCpu) {
      sd.backend->activate();
      sd.backend->copyDeviceToHost(to, from, n);
    } else {
      std::vector<char> bounce(n);
      sd.backend->activate();
      sd.backend->copyDeviceToHost(bounce.data(), from, n);
      dd.backend->activate();
      dd.backend->copyHostToDevice(to, bounce.data(), n);
    }
    return info.Env().Undefined();
  });
}

Napi::Value ManualSeed(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    manualSeed(argCount(info, 0, "seed"));
    return info.Env().Undefined();
  });
}

Napi::Value InitialSeed(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(initialSeed()));
}

// [seed, offset] as two doubles: both stay below 2^53 (seeds are checked by manualSeed; offsets count draws).
Napi::Value GetRngState(const Napi::CallbackInfo& info) {
  uint64_t seed = 0, offset = 0;
  rngState(&seed, &offset);
  Napi::Array a = Napi::Array::New(info.Env(), 2);
  a.Set(0u, Napi::Number::New(info.Env(), static_cast<double>(seed)));
  a.Set(1u, Napi::Number::New(info.Env(), static_cast<double>(offset)));
  return a;
}

Napi::Value SetRngState(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    setRngState(argCount(info, 0, "seed"), argCount(info, 1, "offset"));
    return info.Env().Undefined();
  });
}

}  // namespace

void initTransfer(Napi::Env env, Napi::Object exports) {
  exports.Set("readBytes", Napi::Function::New(env, ReadBytes, "readBytes"));
  exports.Set("writeBytes", Napi::Function::New(env, WriteBytes, "writeBytes"));
  exports.Set("copyBytes", Napi::Function::New(env, CopyBytes, "copyBytes"));
  exports.Set("manualSeed", Napi::Function::New(env, ManualSeed, "manualSeed"));
  exports.Set("initialSeed", Napi::Function::New(env, InitialSeed, "initialSeed"));
  exports.Set("getRngState", Napi::Function::New(env, GetRngState, "getRngState"));
  exports.Set("setRngState", Napi::Function::New(env, SetRngState, "setRngState"));
}

}  // namespace binding
}  // namespace tsgpu
