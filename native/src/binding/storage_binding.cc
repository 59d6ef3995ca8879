// Storages as small integer handles owned by JavaScript objects.
//
// alloc(owner, slot, nbytes, dtype, id, frames) allocates a block and keeps
// a weak reference to `owner` (the Tensor); JavaScript holds only the
// returned handle, a number. A storage is freed by whichever comes first:
// free(handle) (dispose), or a sweep that finds its owner collected.
//
// Why weak references and a sweep rather than finalizers: Node-API
// finalizers and FinalizationRegistry callbacks run later, from the event
// loop, so a synchronous loop that drops tensors would never see them. Weak
// references are cleared during the collection itself, so the sweep frees
// every storage whose owner is gone right away. Sweeps run when a new
// storage is made after any collection (noticed through a weak "canary"
// object), and on the allocator's out-of-memory path after asking
// JavaScript to collect garbage.
//
// The hot path (alloc, free) uses the C Node-API directly: no wrapper
// object, no string arguments, no exceptions unless something is wrong.
// dispose() does not even call in: it appends the handle to a queue shared
// with JavaScript (setFreeQueue), which every entry point drains first.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "binding/binding.h"
#include "binding/external_memory.h"
#include "base/errors.h"

namespace tsgpu {
namespace binding {

namespace {

std::vector<Device*> gSlots;       // devices by slot (index given to JavaScript)
ExternalMemory gExternal;          // bytes reported to V8, per device slot
napi_ref gCanary = nullptr;        // weak; its target is gone after any garbage collection
napi_ref gGcHook = nullptr;        // strong; JS function that runs the collector
napi_env gMainEnv = nullptr;       // the env that owns the storages and may run the hook
thread_local napi_env tlEnv = nullptr;  // env of the binding call in progress

// Queues of disposed handles, one per module instance of the runtime on the
// main thread: [0] the count, then the handles. Each holds a reference to
// its array, so the memory stays valid.
struct FreeQueue {
  int32_t* words;
  size_t length;
  napi_ref ref;
};
std::vector<FreeQueue> gFreeQueues;

// Collections asked for because tensors were dropped without dispose():
// when the bytes held by JavaScript-owned storages have grown by more than
// the threshold since the last collection, a full collection runs before the
// next allocation and the storages of collected tensors are freed. A loop
// that disposes its temporaries holds a flat amount and never triggers it; a
// loop that drops 4 MiB temporaries triggers it every 32 of them. The
// threshold grows with what survives (half of it, at least kGcMinGrowth), so
// building up a large live set costs few collections.
constexpr int64_t kGcMinGrowth = 128LL << 20;
int64_t gHeldAfterGc = 0;    // bytes held right after the last collection
uint64_t gForcedGcs = 0;     // collections run by this rule
double gForcedGcSeconds = 0; // time spent in them (collection and sweep)

void releaseStorage(napi_env env, StorageTable::Handle h) {
  StorageRecord* rec = storages().find(h);
  if (rec == nullptr) return;
  const uint32_t slot = rec->deviceSlot;
  const size_t nbytes = rec->nbytes;
  if (rec->owner != nullptr) napi_delete_reference(env, static_cast<napi_ref>(rec->owner));
  rec->owner = nullptr;
  storages().release(h);
  gExternal.sub(env, slot, nbytes);
  if (gExternal.held() < gHeldAfterGc) gHeldAfterGc = gExternal.held();  // the baseline follows frees down
}

/** Runs the JavaScript collector through the hook (best effort: its exception is cleared). */
void runGcHook(napi_env env) {
  if (gGcHook == nullptr) return;
  napi_value fn = nullptr, global = nullptr, result = nullptr;
  if (napi_get_reference_value(env, gGcHook, &fn) == napi_ok && fn != nullptr) {
    napi_get_global(env, &global);
    if (napi_call_function(env, global, fn, 0, nullptr, &result) != napi_ok) {
      napi_value ignored;
      napi_get_and_clear_last_exception(env, &ignored);
    }
  }
}

bool freeMemoryCallback() {
  napi_env env = tlEnv;
  if (env == nullptr || env != gMainEnv) return false;
  Napi::Env e(env);
  Napi::HandleScope scope(e);
  size_t freed = sweepCollected(env);
  runGcHook(env);
  freed += sweepCollected(env);
  return freed > 0;
}

void afterCollection() { gHeldAfterGc = gExternal.held(); }

void collectIfGrown(napi_env env) {
  const int64_t held = gExternal.held();
  const int64_t threshold = std::max(kGcMinGrowth, gHeldAfterGc / 2);
  if (held - gHeldAfterGc < threshold || gGcHook == nullptr) return;
  const auto start = std::chrono::steady_clock::now();
  runGcHook(env);
  sweepCollected(env);
  afterCollection();
  ++gForcedGcs;
  gForcedGcSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct EnvScope {
  napi_env saved;
  explicit EnvScope(napi_env env) : saved(tlEnv) { tlEnv = env; }
  ~EnvScope() { tlEnv = saved; }
};

/** Sweeps if a collection happened since the last look (the canary is gone). */
void sweepIfCollected(napi_env env) {
  napi_value canary = nullptr;
  if (gCanary != nullptr) napi_get_reference_value(env, gCanary, &canary);
  if (canary != nullptr) return;  // (one handle to the canary: harmless, it is a new object each time)
  sweepCollected(env);
  if (gCanary != nullptr) napi_delete_reference(env, gCanary);
  napi_value obj;
  napi_create_object(env, &obj);
  napi_create_reference(env, obj, 0, &gCanary);
}

// deviceSlot(device) -> slot: the small integer alloc() takes for a device.
Napi::Value DeviceSlot(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Device& device = DeviceRegistry::instance().get(argString(info, 0, "device"));
    for (size_t i = 0; i < gSlots.size(); ++i)
      if (gSlots[i] == &device) return Napi::Number::New(info.Env(), static_cast<double>(i));
    device.allocator->setFreeMemoryCallback(freeMemoryCallback);
    gSlots.push_back(&device);
    gExternal.addDevice(device.backend->memInfo().totalBytes);
    return Napi::Number::New(info.Env(), static_cast<double>(gSlots.size() - 1));
  });
}

[[noreturn]] void badArg(napi_env env, const char* what) { throwJs(Napi::Env(env), "TSGPU_ARG", what); }

// alloc(owner, slot, nbytes, dtype, id, frames?) -> handle
napi_value Alloc(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, cbinfo, &argc, argv, nullptr, nullptr);
  try {
    int32_t slot = -1, dtype = -1;
    double nbytes = -1, id = 0;
    napi_valuetype ownerType = napi_undefined;
    if (argc < 5) badArg(env, "alloc(owner, slot, nbytes, dtype, id) needs five arguments");
    napi_typeof(env, argv[0], &ownerType);
    if (ownerType != napi_object) badArg(env, "expected an object for owner");
    if (napi_get_value_int32(env, argv[1], &slot) != napi_ok || slot < 0 ||
        static_cast<size_t>(slot) >= gSlots.size())
      badArg(env, "expected a device slot from deviceSlot() for slot");
    if (napi_get_value_double(env, argv[2], &nbytes) != napi_ok || !(nbytes >= 0) ||
        nbytes != std::floor(nbytes) || nbytes > 9007199254740992.0)
      badArg(env, "expected a non-negative integer for nbytes");
    if (napi_get_value_int32(env, argv[3], &dtype) != napi_ok || dtype < 0 || dtype >= kNumDTypes)
      badArg(env, "expected a dtype code for dtype");
    if (napi_get_value_double(env, argv[4], &id) != napi_ok) badArg(env, "expected a number for id");
    drainFrees(env);
    Context context;
    if (argc > 5) {
      bool isArray = false;
      napi_is_array(env, argv[5], &isArray);
      if (isArray) {
        Napi::CallbackInfo info(env, cbinfo);
        context = argContext(info, 5);
      }
    }
    const StorageTable::Handle h = allocOwned(env, argv[0], static_cast<uint32_t>(slot), static_cast<size_t>(nbytes),
                                              static_cast<uint8_t>(dtype), id, std::move(context));
    napi_value out;
    napi_create_int32(env, h, &out);
    return out;
  } catch (...) {
    throwPendingJs(env);
  }
  return nullptr;
}

// free(handle) -> undefined; a released handle is ignored.
napi_value Free(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, cbinfo, &argc, argv, nullptr, nullptr);
  int32_t h = -1;
  if (argc >= 1) napi_get_value_int32(env, argv[0], &h);
  try {
    drainFrees(env);
    releaseStorage(env, h);
  } catch (...) {
    throwPendingJs(env);
  }
  return nullptr;
}

// takeIds(n) -> first of n storage ids unique in this process (every module instance that
// loads the runtime takes its ids from here, so liveStorages never lists two storages with one id).
Napi::Value TakeIds(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    static double next = 1;
    const double n = static_cast<double>(argPositive(info, 0, "n"));
    const double first = next;
    next += n;
    return Napi::Number::New(info.Env(), first);
  });
}

// isLive(handle) -> boolean
Napi::Value IsLive(const Napi::CallbackInfo& info) {
  drainFrees(info.Env());
  int32_t h = info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : -1;
  return Napi::Boolean::New(info.Env(), storages().find(h) != nullptr);
}

// setAllocationCell(cell) -> undefined: storages made from now on are tagged with this notebook cell's
// execution count (0: none); liveStorages reports it as `cell`.
Napi::Value SetAllocationCell(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const uint64_t cell = argCount(info, 0, "cell");
    if (cell > 0x7fffffff)
      throwJs(info.Env(), "TSGPU_ARG", "expected a cell number below 2147483648 for cell, got " + std::to_string(cell));
    storages().setCurrentCell(static_cast<int32_t>(cell));
    return info.Env().Undefined();
  });
}

// liveStorages(device?) -> [{ id, shape, dtype, device, nbytes, cell?, frames? }], oldest first
Napi::Value LiveStorages(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    std::string device;
    if (info.Length() > 0 && info[0].IsString() && !info[0].As<Napi::String>().Utf8Value().empty())
      device = DeviceRegistry::instance().canonicalize(info[0].As<Napi::String>().Utf8Value());
    if (static_cast<napi_env>(env) == gMainEnv) sweepCollected(env);
    std::vector<std::pair<double, Napi::Object>> rows;
    storages().forEachLive([&](StorageTable::Handle, StorageRecord& rec) {
      if (!device.empty() && rec.device != device) return;
      Napi::Object o = Napi::Object::New(env);
      // The shape lives on the owner (the Tensor); storages made without one report a flat shape.
      Napi::Value shape;
      napi_value owner = nullptr;
      if (rec.owner != nullptr) napi_get_reference_value(env, static_cast<napi_ref>(rec.owner), &owner);
      if (owner != nullptr) shape = Napi::Object(env, owner).Get("shape");
      if (shape.IsEmpty() || !shape.IsArray()) {
        Napi::Array flat = Napi::Array::New(env, 1);
        size_t elem = dtypeSize(static_cast<DType>(rec.dtype));
        flat.Set(0u, static_cast<double>(elem ? rec.nbytes / elem : rec.nbytes));
        shape = flat;
      } else {
        Napi::Array copy = Napi::Array::New(env);
        Napi::Array src = shape.As<Napi::Array>();
        for (uint32_t k = 0; k < src.Length(); ++k) copy.Set(k, src.Get(k));
        shape = copy;
      }
      o.Set("id", rec.id);
      o.Set("shape", shape);
      o.Set("dtype", dtypeName(static_cast<DType>(rec.dtype)));
      o.Set("device", rec.device);
      o.Set("nbytes", static_cast<double>(rec.nbytes));
      if (rec.cell > 0) o.Set("cell", rec.cell);
      if (rec.site) o.Set("frames", contextToJs(env, rec.site));
      rows.emplace_back(rec.id, o);
    });
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    Napi::Array out = Napi::Array::New(env, rows.size());
    for (uint32_t k = 0; k < rows.size(); ++k) out.Set(k, rows[k].second);
    return out;
  });
}

Napi::Value Reclaim(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    return Napi::Number::New(info.Env(), static_cast<double>(sweepCollected(info.Env())));
  });
}

// setFreeQueue(Int32Array) -> true when the addon drains it (on the thread that loaded the
// addon first), false otherwise: then dispose() must call free() itself.
Napi::Value SetFreeQueue(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    napi_env env = info.Env();
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
      throwJs(info.Env(), "TSGPU_ARG", "expected an Int32Array for queue");
    Napi::Int32Array a = info[0].As<Napi::Int32Array>();
    if (a.ElementLength() < 2) throwJs(info.Env(), "TSGPU_ARG", "expected an Int32Array of at least two elements for queue");
    if (env != gMainEnv) return Napi::Boolean::New(env, false);
    FreeQueue q;
    q.words = a.Data();
    q.length = a.ElementLength();
    q.words[0] = 0;
    napi_create_reference(env, a, 1, &q.ref);
    gFreeQueues.push_back(q);
    return Napi::Boolean::New(env, true);
  });
}

Napi::Value SetGcHook(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    napi_env env = info.Env();
    if (env != gMainEnv) return info.Env().Undefined();  // another thread
    if (gGcHook != nullptr) napi_delete_reference(env, gGcHook);
    gGcHook = nullptr;
    if (info[0].IsFunction()) napi_create_reference(env, info[0], 1, &gGcHook);
    return info.Env().Undefined();
  });
}

// externalMemory() -> { reported, held, forcedCollections, forcedCollectionSeconds }: bytes V8 was
// told and bytes JS-owned storages hold; collections run because dropped tensors held a lot, and their time.
Napi::Value ExternalMemoryInfo(const Napi::CallbackInfo& info) {
  drainFrees(info.Env());
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("reported", static_cast<double>(gExternal.reported()));
  o.Set("held", static_cast<double>(gExternal.held()));
  o.Set("forcedCollections", static_cast<double>(gForcedGcs));
  o.Set("forcedCollectionSeconds", gForcedGcSeconds);
  return o;
}

}  // namespace

Device* slotDevice(uint32_t slot) { return slot < gSlots.size() ? gSlots[slot] : nullptr; }

void drainFrees(napi_env env) {
  if (env != gMainEnv) return;
  for (FreeQueue& q : gFreeQueues) {
    const int32_t n = q.words[0];
    if (n <= 0) continue;
    q.words[0] = 0;
    const size_t count = std::min(static_cast<size_t>(n), q.length - 1);
    for (size_t i = 1; i <= count; ++i) releaseStorage(env, q.words[i]);  // a stale handle is ignored
  }
}

StorageTable::Handle allocOwned(napi_env env, napi_value owner, uint32_t slot, size_t nbytes, uint8_t dtype, double id,
                                Context context) {
  Device* device = gSlots[slot];
  if (env == gMainEnv) {
    sweepIfCollected(env);  // free what the collector already found
    collectIfGrown(env);    // or collect now, if dropped tensors may hold a lot
  }
  StorageTable::Handle h;
  {
    EnvScope scope(env);
    h = storages().create(device->allocator.get(), nbytes, device->name, slot, dtype, id, std::move(context));
  }
  napi_ref ref = nullptr;
  if (napi_create_reference(env, owner, 0, &ref) != napi_ok) {
    storages().release(h);
    throwJs(Napi::Env(env), "TSGPU_INTERNAL", "could not reference the storage's owner");
  }
  storages().find(h)->owner = ref;
  gExternal.add(env, slot, nbytes);
  return h;
}

void releaseOwned(napi_env env, StorageTable::Handle h) { releaseStorage(env, h); }

StorageTable& storages() {
  static StorageTable* table = new StorageTable();
  return *table;
}

StorageRecord& argStorage(const Napi::CallbackInfo& info, size_t i) {
  int32_t h = -1;
  if (info.Length() <= i || napi_get_value_int32(info.Env(), info[i], &h) != napi_ok)
    throwJs(info.Env(), "TSGPU_ARG", "expected a storage handle");
  StorageRecord* rec = storages().find(h);
  if (rec == nullptr) throwJs(info.Env(), "TSGPU_DISPOSED", "storage was disposed: it can no longer be used");
  return *rec;
}

size_t sweepCollected(napi_env env) {
  std::vector<StorageTable::Handle> dead;
  // Looking at an owner makes a handle to it; the scope drops those handles
  // again, or every owner would stay alive until the calling function returns
  // (and a collection run from the out-of-memory path could free nothing).
  napi_handle_scope scope = nullptr;
  napi_open_handle_scope(env, &scope);
  storages().forEachLive([&](StorageTable::Handle h, StorageRecord& rec) {
    if (rec.owner == nullptr) return;
    napi_value v = nullptr;
    napi_get_reference_value(env, static_cast<napi_ref>(rec.owner), &v);
    if (v == nullptr) dead.push_back(h);
  });
  if (scope != nullptr) napi_close_handle_scope(env, scope);
  for (StorageTable::Handle h : dead) releaseStorage(env, h);
  return dead.size();
}

void initStorage(Napi::Env env, Napi::Object exports) {
  if (gMainEnv == nullptr) gMainEnv = env;
  exports.Set("deviceSlot", Napi::Function::New(env, DeviceSlot, "deviceSlot"));
  napi_value fn;
  napi_create_function(env, "alloc", NAPI_AUTO_LENGTH, Alloc, nullptr, &fn);
  exports.Set("alloc", Napi::Value(env, fn));
  napi_create_function(env, "free", NAPI_AUTO_LENGTH, Free, nullptr, &fn);
  exports.Set("free", Napi::Value(env, fn));
  exports.Set("isLive", Napi::Function::New(env, IsLive, "isLive"));
  exports.Set("takeIds", Napi::Function::New(env, TakeIds, "takeIds"));
  exports.Set("liveStorages", Napi::Function::New(env, LiveStorages, "liveStorages"));
  exports.Set("setAllocationCell", Napi::Function::New(env, SetAllocationCell, "setAllocationCell"));
  exports.Set("reclaim", Napi::Function::New(env, Reclaim, "reclaim"));
  exports.Set("setGcHook", Napi::Function::New(env, SetGcHook, "setGcHook"));
  exports.Set("setFreeQueue", Napi::Function::New(env, SetFreeQueue, "setFreeQueue"));
  exports.Set("externalMemory", Napi::Function::New(env, ExternalMemoryInfo, "externalMemory"));
}

}  // namespace binding
}  // namespace tsgpu
