// Shared declarations of the Node-API glue. The binding only converts
// arguments, maps C++ exceptions to JavaScript errors with a `code`, and
// ties storage lifetime to JavaScript objects; all policy lives in core/.
#pragma once

#include <napi.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/device_registry.h"
#include "core/history.h"
#include "core/storage.h"

namespace tsgpu {
namespace binding {

// ---- convert.cc: arguments and errors
/** Throws a JS Error with `code` and `message`. */
[[noreturn]] void throwJs(Napi::Env env, const std::string& code, const std::string& message);
/** Rethrows the current C++ exception as a JS error (OutOfMemoryError for OOM). */
[[noreturn]] void rethrowAsJs(Napi::Env env);
/**
 * For raw napi callbacks (the alloc/free hot path), inside a catch block:
 * makes the exception being handled the pending JS exception (as
 * rethrowAsJs converts it), so the callback can return.
 */
void throwPendingJs(napi_env env);
/**
 * Frees the storages JavaScript disposed since the last call into the addon
 * (storage.ts queues them in a shared array instead of calling free() each
 * time). Every entry point runs it first, so nothing the addon reports or
 * does sees a disposed storage as live. Cheap when the queue is empty.
 */
void drainFrees(napi_env env);
/** Runs `body` (after drainFrees), turning C++ exceptions into JS errors. */
template <typename F>
Napi::Value guarded(const Napi::CallbackInfo& info, F body) {
  try {
    drainFrees(info.Env());
    return body();
  } catch (const Napi::Error&) {
    throw;
  } catch (...) {
    rethrowAsJs(info.Env());
  }
}
std::string argString(const Napi::CallbackInfo& info, size_t i, const char* name);
/** A non-negative integer that fits in 2^53 ("expected a non-negative integer for ..."). */
uint64_t argCount(const Napi::CallbackInfo& info, size_t i, const char* name);
/** A positive integer ("expected a positive integer for size, got -3"). */
uint64_t argPositive(const Napi::CallbackInfo& info, size_t i, const char* name);
double argNumber(const Napi::CallbackInfo& info, size_t i, const char* name);
bool argBool(const Napi::CallbackInfo& info, size_t i, const char* name, bool fallback);
std::vector<int64_t> argShape(const Napi::CallbackInfo& info, size_t i);
/** Frames [{filename, line, column, name}] or null/undefined → null context. */
Context argContext(const Napi::CallbackInfo& info, size_t i);
/** Registers the JS OutOfMemoryError class used for TSGPU_OOM errors. */
void setOutOfMemoryClass(Napi::Function ctor);
Napi::Object contextToJs(Napi::Env env, const Context& context);

/** A function the addon exports: its JavaScript name and the C++ function behind it. */
struct Export {
  const char* name;
  Napi::Value (*fn)(const Napi::CallbackInfo&);
};
/** Sets each function of `list` on `exports` under its name. */
inline void exportFunctions(Napi::Env env, Napi::Object exports, std::initializer_list<Export> list) {
  for (const Export& e : list) exports.Set(e.name, Napi::Function::New(env, e.fn, e.name));
}

// ---- nvml_binding.cc: gpuProcesses() from NVML
void initNvml(Napi::Env env, Napi::Object exports);

// ---- storage_binding.cc: storages owned by JS objects
StorageTable& storages();
/** The live storage behind handle argument `i` (a number); throws TSGPU_DISPOSED if freed. */
StorageRecord& argStorage(const Napi::CallbackInfo& info, size_t i);
/** The device of a slot from deviceSlot(), or nullptr. */
Device* slotDevice(uint32_t slot);
/**
 * Allocates `nbytes` on the device of `slot` (a valid slot) for the JS object
 * `owner`, as alloc() does: first frees storages whose owners were collected
 * and collects garbage when dropped tensors may hold a lot; tells V8 the
 * bytes. Throws OutOfMemoryError. Returns the storage's handle.
 */
StorageTable::Handle allocOwned(napi_env env, napi_value owner, uint32_t slot, size_t nbytes, uint8_t dtype, double id,
                                Context context);
/** Frees a storage now (as free(): its owner reference and its bytes told to V8 go too). */
void releaseOwned(napi_env env, StorageTable::Handle h);
/** Frees storages whose JS owners were garbage collected; returns how many. */
size_t sweepCollected(napi_env env);
void initStorage(Napi::Env env, Napi::Object exports);

// ---- memory_binding.cc / op_binding.cc
void initMemory(Napi::Env env, Napi::Object exports);
/** readBytes, writeBytes, copyBytes, manualSeed, initialSeed. */
void initTransfer(Napi::Env env, Napi::Object exports);
/** The generic op entry point: op, setOpBuffer, setInterruptFlag. */
void initOpBinding(Napi::Env env, Napi::Object exports);
// ---- op_tables_binding.cc
/** The op list and dtype table as the addon has them: opList, dtypes, registryProblems. */
void initOpTables(Napi::Env env, Napi::Object exports);

// ---- linalg_binding.cc: thread pool size and matmul engines
void initLinalg(Napi::Env env, Napi::Object exports);

// ---- cudnn_binding.cc: cuDNN's availability and remembered algorithm choices
void initCudnn(Napi::Env env, Napi::Object exports);

}  // namespace binding
}  // namespace tsgpu
