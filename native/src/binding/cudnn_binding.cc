// Node-API functions of cuDNN's convolutions: cudnnInfo() -> { available,
// description }, cudnnChoices() -> the remembered algorithm choices,
// cudnnClearChoices().
#include "binding/binding.h"
#ifdef TSGPU_WITH_CUDA
#include "ops/cudnn_conv.h"
#endif

namespace tsgpu {
namespace binding {
namespace {

Napi::Value CudnnInfo(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Object o = Napi::Object::New(info.Env());
#ifdef TSGPU_WITH_CUDA
    std::string description;
    const bool ok = cudnnconv::available(&description);
    o.Set("available", ok);
    o.Set("description", description);
#else
    o.Set("available", false);
    o.Set("description", "not built with CUDA");
#endif
    return o;
  });
}

Napi::Value CudnnChoices(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Array out = Napi::Array::New(info.Env());
#ifdef TSGPU_WITH_CUDA
    uint32_t i = 0;
    for (const auto& c : cudnnconv::choices()) {
      Napi::Object o = Napi::Object::New(info.Env());
      o.Set("pass", c.pass);
      o.Set("key", c.key);
      o.Set("algo", c.algo);
      o.Set("mathType", c.mathType);
      o.Set("workspaceBytes", static_cast<double>(c.workspace));
      o.Set("timeMs", c.timeMs);
      o.Set("benchmarked", c.benchmarked);
      o.Set("uses", c.uses);
      out.Set(i++, o);
    }
#endif
    return out;
  });
}

Napi::Value CudnnClearChoices(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
#ifdef TSGPU_WITH_CUDA
    cudnnconv::clearChoices();
#endif
    return info.Env().Undefined();
  });
}

}  // namespace

void initCudnn(Napi::Env env, Napi::Object exports) {
  exportFunctions(env, exports, {{"cudnnInfo", CudnnInfo}, {"cudnnChoices", CudnnChoices}, {"cudnnClearChoices", CudnnClearChoices}});
}

}  // namespace binding
}  // namespace tsgpu
