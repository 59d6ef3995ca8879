// Storages as JavaScript objects. A storage is freed by whichever comes
// first: dispose(), a sweep after garbage collection, or its finalizer.
//
// Node-API finalizers run later, from the event loop, so a synchronous loop
// that drops tensors would never see them. Weak references, however, are
// cleared during the collection itself; the sweep frees every storage whose
// handle is gone, right away. Sweeps run after any collection (noticed
// through a weak "canary" object) and on the allocator's out-of-memory path,
// after asking JavaScript to collect garbage.
#include <unordered_map>
#include <unordered_set>

#include "binding/binding.h"
#include "core/errors.h"

namespace tsgpu {
namespace binding {

namespace {

class StorageHandle : public Napi::ObjectWrap<StorageHandle> {
 public:
  static Napi::FunctionReference constructor;
  explicit StorageHandle(const Napi::CallbackInfo& info) : Napi::ObjectWrap<StorageHandle>(info) {}
  ~StorageHandle() override;
  uint64_t id = 0;  // 0 once released
};

Napi::FunctionReference StorageHandle::constructor;
std::unordered_map<uint64_t, StorageHandle*> gHandles;  // live storages by id
Napi::ObjectReference gCanary;     // weak; empty after any garbage collection
Napi::FunctionReference gGcHook;   // JS function that runs the collector
napi_env gMainEnv = nullptr;       // the env that may run the hook
thread_local napi_env tlEnv = nullptr;  // env of the binding call in progress
std::unordered_set<std::string> gHooked;  // devices whose allocator has our callback

void adjustExternal(napi_env env, int64_t delta) {
  int64_t ignored = 0;
  if (env != nullptr && delta != 0) napi_adjust_external_memory(env, delta, &ignored);
}

void releaseStorage(napi_env env, uint64_t id) {
  StorageRecord* rec = storages().find(id);
  if (rec == nullptr) return;
  const int64_t nbytes = static_cast<int64_t>(rec->nbytes);
  auto it = gHandles.find(id);
  if (it != gHandles.end()) {
    it->second->id = 0;
    gHandles.erase(it);
  }
  storages().release(id);
  adjustExternal(env, -nbytes);
}

StorageHandle::~StorageHandle() {
  if (id == 0) return;
  try {
    releaseStorage(Env(), id);
  } catch (...) {
    // A finalizer must not throw; the memory stays cached in the allocator.
  }
}

bool freeMemoryCallback() {
  napi_env env = tlEnv;
  if (env == nullptr || env != gMainEnv) return false;
  Napi::Env e(env);
  Napi::HandleScope scope(e);
  size_t freed = sweepCollected(e);
  if (!gGcHook.IsEmpty()) {
    try {
      gGcHook.Call({});
    } catch (const Napi::Error&) {
      // The hook is best effort; the allocator goes on to report OOM.
    }
  }
  freed += sweepCollected(e);
  return freed > 0;
}

struct EnvScope {
  napi_env saved;
  explicit EnvScope(napi_env env) : saved(tlEnv) { tlEnv = env; }
  ~EnvScope() { tlEnv = saved; }
};

size_t dtypeSize(const std::string& dtype) {
  if (dtype == "float32" || dtype == "int32") return 4;
  if (dtype == "float16" || dtype == "bfloat16") return 2;
  if (dtype == "uint8") return 1;  // raw bytes (allocation benchmarks)
  throw ArgumentError("unsupported dtype '" + dtype + "' (supported: float32)");
}

Napi::Value Empty(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    std::string deviceArg = argString(info, 0, "device");
    std::vector<int64_t> shape = argShape(info, 1);
    std::string dtype = argString(info, 2, "dtype");
    Context context = argContext(info, 3);
    uint64_t numel = 1;
    for (int64_t d : shape) {
      if (d != 0 && numel > (1ULL << 53) / static_cast<uint64_t>(d))
        throw ArgumentError("tensor too large: the shape has more than 2^53 elements");
      numel *= static_cast<uint64_t>(d);
    }
    const size_t nbytes = numel * dtypeSize(dtype);
    Device& device = DeviceRegistry::instance().get(deviceArg);
    if (gHooked.insert(device.name).second) device.allocator->setFreeMemoryCallback(freeMemoryCallback);
    // Free what the collector already found before asking for more.
    if (static_cast<napi_env>(env) == gMainEnv && (gCanary.IsEmpty() || gCanary.Value().IsEmpty())) {
      sweepCollected(env);
      gCanary = Napi::Weak(Napi::Object::New(env));
    }
    EnvScope scope(env);
    StorageRecord& rec = storages().create(device.allocator.get(), nbytes, device.name, dtype, shape, context);
    const uint64_t id = rec.id;
    Napi::Object obj;
    try {
      obj = StorageHandle::constructor.New({});
    } catch (...) {
      storages().release(id);
      throw;
    }
    StorageHandle* handle = StorageHandle::Unwrap(obj);
    handle->id = id;
    gHandles[id] = handle;
    adjustExternal(env, static_cast<int64_t>(nbytes));
    return obj;
  });
}

Napi::Value Dispose(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (!info[0].IsObject()) throwJs(info.Env(), "TSGPU_ARG", "expected a storage handle");
    StorageHandle* handle = StorageHandle::Unwrap(info[0].As<Napi::Object>());
    if (handle->id == 0) return Napi::Boolean::New(info.Env(), false);
    releaseStorage(info.Env(), handle->id);
    return Napi::Boolean::New(info.Env(), true);
  });
}

Napi::Value StorageId(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    StorageHandle* handle = StorageHandle::Unwrap(info[0].As<Napi::Object>());
    return Napi::Number::New(info.Env(), static_cast<double>(handle->id));
  });
}

Napi::Value LiveStorages(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    std::string device;
    if (info.Length() > 0 && info[0].IsString() && !info[0].As<Napi::String>().Utf8Value().empty())
      device = DeviceRegistry::instance().canonicalize(info[0].As<Napi::String>().Utf8Value());
    Napi::Array out = Napi::Array::New(env);
    uint32_t k = 0;
    for (const StorageRecord& rec : storages().live(device)) {
      Napi::Object o = Napi::Object::New(env);
      Napi::Array shape = Napi::Array::New(env, rec.shape.size());
      for (uint32_t d = 0; d < rec.shape.size(); ++d) shape.Set(d, static_cast<double>(rec.shape[d]));
      o.Set("id", static_cast<double>(rec.id));
      o.Set("shape", shape);
      o.Set("dtype", rec.dtype);
      o.Set("device", rec.device);
      o.Set("nbytes", static_cast<double>(rec.nbytes));
      out.Set(k++, o);
    }
    return out;
  });
}

Napi::Value Reclaim(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), static_cast<double>(sweepCollected(info.Env())));
  });
}

Napi::Value SetGcHook(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (static_cast<napi_env>(info.Env()) != gMainEnv) return info.Env().Undefined();  // another thread
    if (info[0].IsFunction()) {
      gGcHook = Napi::Persistent(info[0].As<Napi::Function>());
    } else {
      gGcHook.Reset();
    }
    return info.Env().Undefined();
  });
}

}  // namespace

StorageTable& storages() {
  static StorageTable* table = new StorageTable();
  return *table;
}

StorageRecord& argStorage(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsObject()) throwJs(info.Env(), "TSGPU_ARG", "expected a storage handle");
  StorageHandle* handle = StorageHandle::Unwrap(info[i].As<Napi::Object>());
  StorageRecord* rec = handle->id ? storages().find(handle->id) : nullptr;
  if (rec == nullptr) throwJs(info.Env(), "TSGPU_DISPOSED", "storage was disposed: it can no longer be used");
  return *rec;
}

size_t sweepCollected(Napi::Env env) {
  std::vector<uint64_t> dead;
  {
    Napi::HandleScope scope(env);
    for (const auto& kv : gHandles)
      if (kv.second->Value().IsEmpty()) dead.push_back(kv.first);
  }
  for (uint64_t id : dead) releaseStorage(env, id);
  return dead.size();
}

void initStorage(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = StorageHandle::DefineClass(env, "Storage", {});
  StorageHandle::constructor = Napi::Persistent(ctor);
  if (gMainEnv == nullptr) gMainEnv = env;
  exports.Set("empty", Napi::Function::New(env, Empty, "empty"));
  exports.Set("dispose", Napi::Function::New(env, Dispose, "dispose"));
  exports.Set("storageId", Napi::Function::New(env, StorageId, "storageId"));
  exports.Set("liveStorages", Napi::Function::New(env, LiveStorages, "liveStorages"));
  exports.Set("reclaim", Napi::Function::New(env, Reclaim, "reclaim"));
  exports.Set("setGcHook", Napi::Function::New(env, SetGcHook, "setGcHook"));
}

}  // namespace binding
}  // namespace tsgpu
