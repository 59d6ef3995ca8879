// Node-API functions of the CPU thread pool and the matmul engines:
// setNumThreads(n), getNumThreads(), linalgInfo() -> { cpu, cuda, isa }.
#include "binding/binding.h"
#include "ops/gemm.h"
#include "runtime/thread_pool.h"

namespace tsgpu {
namespace binding {
namespace {

Napi::Value SetNumThreads(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    const uint64_t n = argPositive(info, 0, "n");
    if (n > 4096) throwJs(info.Env(), "TSGPU_ARG", "setNumThreads: expected at most 4096 threads for n, got " + std::to_string(n));
    tsgpu::setNumThreads(static_cast<int>(n));
    return info.Env().Undefined();
  });
}

Napi::Value GetNumThreads(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), tsgpu::getNumThreads());
}

Napi::Value LinalgInfo(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Object o = Napi::Object::New(info.Env());
    o.Set("cpu", gemm::cpuBackendDescription());
    o.Set("isa", gemm::blockedKernelIsa());
#ifdef TSGPU_WITH_CUDA
    o.Set("cuda", gemm::cudaBackendDescription());
#else
    o.Set("cuda", "not built with CUDA");
#endif
    return o;
  });
}

}  // namespace

void initLinalg(Napi::Env env, Napi::Object exports) {
  exportFunctions(env, exports, {{"setNumThreads", SetNumThreads}, {"getNumThreads", GetNumThreads}, {"linalgInfo", LinalgInfo}});
}

}  // namespace binding
}  // namespace tsgpu
