// Module entry point of tsgpu.node.
#include <cstdio>
#include <cstdlib>

#include "binding/binding.h"

namespace tsgpu {
namespace binding {

namespace {

Napi::Value SetErrorClasses(const Napi::CallbackInfo& info) {
  if (info[0].IsObject()) {
    Napi::Value oom = info[0].As<Napi::Object>().Get("OutOfMemoryError");
    if (oom.IsFunction()) setOutOfMemoryClass(oom.As<Napi::Function>());
  }
  return info.Env().Undefined();
}

// quickExit(code): flushes C stdio and ends the process at once, without Node's teardown, static destructors
// or atexit handlers. For a kernel that has flushed and closed everything but whose socket thread handed
// zeromq frames without a copy (kernel/guard.ts, exitProcess, says why that teardown is then unsafe).
Napi::Value QuickExit(const Napi::CallbackInfo& info) {
  const int code = info[0].IsNumber() ? info[0].As<Napi::Number>().Int32Value() : 0;
  std::fflush(nullptr);
  std::_Exit(code);
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  initStorage(env, exports);
  initMemory(env, exports);
  initNvml(env, exports);
  initOpBinding(env, exports);
  initOpTables(env, exports);
  initTransfer(env, exports);
  initLinalg(env, exports);
  initCudnn(env, exports);
  exports.Set("quickExit", Napi::Function::New(env, QuickExit, "quickExit"));
  exports.Set("setErrorClasses", Napi::Function::New(env, SetErrorClasses, "setErrorClasses"));
#ifdef TSGPU_WITH_CUDA
  exports.Set("builtWithCuda", Napi::Boolean::New(env, true));
#else
  exports.Set("builtWithCuda", Napi::Boolean::New(env, false));
#endif
  return exports;
}

}  // namespace binding
}  // namespace tsgpu

static Napi::Object InitTsgpu(Napi::Env env, Napi::Object exports) {
  return tsgpu::binding::Init(env, exports);
}

NODE_API_MODULE(tsgpu, InitTsgpu)
