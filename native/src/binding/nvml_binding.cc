// gpuProcesses(): NVML's view of every GPU (memory and compute processes), for
// torch.cuda.processes() and `%memory --processes`.
#include "backends/nvml.h"
#include "binding/binding.h"

namespace tsgpu {
namespace binding {

namespace {

Napi::Value GpuProcesses(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    GpuProcessReport r = queryGpuProcesses();
    Napi::Object out = Napi::Object::New(env);
    out.Set("available", r.available);
    out.Set("reason", r.reason);
    Napi::Array devices = Napi::Array::New(env, r.devices.size());
    for (size_t i = 0; i < r.devices.size(); ++i) {
      const GpuProcessDevice& d = r.devices[i];
      Napi::Object o = Napi::Object::New(env);
      o.Set("index", d.index);
      o.Set("name", d.name);
      o.Set("uuid", d.uuid);
      o.Set("total", static_cast<double>(d.total));
      o.Set("used", static_cast<double>(d.used));
      o.Set("free", static_cast<double>(d.free));
      Napi::Array procs = Napi::Array::New(env, d.processes.size());
      for (size_t k = 0; k < d.processes.size(); ++k) {
        Napi::Object p = Napi::Object::New(env);
        p.Set("pid", d.processes[k].pid);
        p.Set("usedBytes", d.processes[k].usedBytes < 0 ? env.Null() : Napi::Number::New(env, static_cast<double>(d.processes[k].usedBytes)));
        procs.Set(static_cast<uint32_t>(k), p);
      }
      o.Set("processes", procs);
      devices.Set(static_cast<uint32_t>(i), o);
    }
    out.Set("devices", devices);
    return out;
  });
}

}  // namespace

void initNvml(Napi::Env env, Napi::Object exports) {
  exports.Set("gpuProcesses", Napi::Function::New(env, GpuProcesses, "gpuProcesses"));
}

}  // namespace binding
}  // namespace tsgpu
