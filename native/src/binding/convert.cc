#include <cmath>
#include <mutex>
#include <unordered_map>

#include "binding/binding.h"
#include "base/errors.h"

namespace tsgpu {
namespace binding {

namespace {

// The OutOfMemoryError class of every environment that loaded the runtime (the main thread's and any
// worker thread's). A class belongs to its environment: it is used only there, and its reference is
// deleted by a cleanup hook while that environment still exists. (One process-wide reference was the
// last loader's: after that worker ended, an out-of-memory error on the main thread crashed the process,
// and the reference's static destructor called into an environment already torn down.)
struct OomClasses {
  std::mutex mutex;
  std::unordered_map<napi_env, napi_ref> byEnv;
};

OomClasses& oomClasses() {
  static OomClasses* classes = new OomClasses();  // never destroyed: nothing may call N-API after exit
  return *classes;
}

void forgetOomClass(void* arg) {
  napi_env env = static_cast<napi_env>(arg);
  napi_ref ref = nullptr;
  {
    std::lock_guard<std::mutex> lock(oomClasses().mutex);
    auto it = oomClasses().byEnv.find(env);
    if (it == oomClasses().byEnv.end()) return;
    ref = it->second;
    oomClasses().byEnv.erase(it);
  }
  napi_delete_reference(env, ref);
}

/** The OutOfMemoryError class `env` registered, or nullptr. */
napi_value oomClassOf(napi_env env) {
  napi_ref ref = nullptr;
  {
    std::lock_guard<std::mutex> lock(oomClasses().mutex);
    auto it = oomClasses().byEnv.find(env);
    if (it != oomClasses().byEnv.end()) ref = it->second;
  }
  napi_value ctor = nullptr;
  if (ref != nullptr && napi_get_reference_value(env, ref, &ctor) != napi_ok) ctor = nullptr;
  return ctor;
}

std::string describe(const Napi::Value& v) {
  if (v.IsUndefined()) return "undefined";
  if (v.IsNull()) return "null";
  if (v.IsNumber() || v.IsBoolean() || v.IsString()) {
    std::string s = v.ToString().Utf8Value();
    return v.IsString() ? "'" + s + "'" : s;
  }
  if (v.IsArray()) return "an array";
  if (v.IsFunction()) return "a function";
  return "an object";
}

[[noreturn]] void argError(Napi::Env env, const std::string& expected, const char* name, const Napi::Value& v) {
  throwJs(env, "TSGPU_ARG", "expected " + expected + " for " + name + ", got " + describe(v));
}

}  // namespace

void throwJs(Napi::Env env, const std::string& code, const std::string& message) {
  Napi::Error err = Napi::Error::New(env, message);
  err.Set("code", Napi::String::New(env, code));
  throw err;
}

void setOutOfMemoryClass(Napi::Function ctor) {
  napi_env env = ctor.Env();
  napi_ref ref = nullptr;
  if (napi_create_reference(env, ctor, 1, &ref) != napi_ok) return;
  napi_ref old = nullptr;
  bool first = false;
  {
    std::lock_guard<std::mutex> lock(oomClasses().mutex);
    auto [it, inserted] = oomClasses().byEnv.try_emplace(env, ref);
    if (!inserted) {
      old = it->second;
      it->second = ref;
    }
    first = inserted;
  }
  if (old != nullptr) napi_delete_reference(env, old);
  if (first) napi_add_env_cleanup_hook(env, forgetOomClass, env);
}

void rethrowAsJs(Napi::Env env) {
  try {
    throw;
  } catch (const OutOfMemoryError& e) {
    Napi::Object details = Napi::Object::New(env);
    details.Set("device", e.device);
    details.Set("requested", static_cast<double>(e.requested));
    details.Set("totalBytes", static_cast<double>(e.totalBytes));
    details.Set("freeBytes", static_cast<double>(e.freeBytes));
    details.Set("allocated", static_cast<double>(e.allocated));
    details.Set("reservedUnallocated", static_cast<double>(e.reservedUnallocated));
    if (napi_value ctor = oomClassOf(env)) {
      Napi::Object obj = Napi::Function(env, ctor).New({Napi::String::New(env, e.what()), details});
      throw Napi::Error(env, obj);
    }
    Napi::Error err = Napi::Error::New(env, e.what());
    err.Set("code", Napi::String::New(env, e.code()));
    err.Set("name", Napi::String::New(env, "OutOfMemoryError"));
    throw err;
  } catch (const Error& e) {
    throwJs(env, e.code(), e.what());
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throwJs(env, "TSGPU_OOM", "out of host memory for runtime bookkeeping");
  } catch (const std::exception& e) {
    throwJs(env, "TSGPU_INTERNAL", e.what());
  } catch (...) {
    throwJs(env, "TSGPU_INTERNAL", "unknown native error");
  }
}

void throwPendingJs(napi_env env) {
  try {
    rethrowAsJs(Napi::Env(env));
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
}

std::string argString(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (info.Length() <= i || !info[i].IsString()) argError(info.Env(), "a string", name, info[i]);
  return info[i].As<Napi::String>().Utf8Value();
}

uint64_t argCount(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value v = info[i];
  if (!v.IsNumber()) argError(info.Env(), "a non-negative integer", name, v);
  double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0) || d != std::floor(d) || d > 9007199254740992.0)
    argError(info.Env(), "a non-negative integer", name, v);
  return static_cast<uint64_t>(d);
}

uint64_t argPositive(const Napi::CallbackInfo& info, size_t i, const char* name) {
  Napi::Value v = info[i];
  if (!v.IsNumber()) argError(info.Env(), "a positive integer", name, v);
  double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 1) || d != std::floor(d) || d > 9007199254740992.0)
    argError(info.Env(), "a positive integer", name, v);
  return static_cast<uint64_t>(d);
}

double argNumber(const Napi::CallbackInfo& info, size_t i, const char* name) {
  if (!info[i].IsNumber()) argError(info.Env(), "a number", name, info[i]);
  return info[i].As<Napi::Number>().DoubleValue();
}

bool argBool(const Napi::CallbackInfo& info, size_t i, const char* name, bool fallback) {
  if (info.Length() <= i || info[i].IsUndefined()) return fallback;
  if (!info[i].IsBoolean()) argError(info.Env(), "a boolean", name, info[i]);
  return info[i].As<Napi::Boolean>().Value();
}

std::vector<int64_t> argShape(const Napi::CallbackInfo& info, size_t i) {
  if (!info[i].IsArray()) argError(info.Env(), "an array of non-negative integers", "shape", info[i]);
  Napi::Array a = info[i].As<Napi::Array>();
  std::vector<int64_t> shape;
  for (uint32_t k = 0; k < a.Length(); ++k) {
    Napi::Value v = a.Get(k);
    double d = v.IsNumber() ? v.As<Napi::Number>().DoubleValue() : -1;
    if (!(d >= 0) || d != std::floor(d) || d > 9007199254740992.0)
      argError(info.Env(), "a non-negative integer", "shape dimension", v);
    shape.push_back(static_cast<int64_t>(d));
  }
  return shape;
}

Context argContext(const Napi::CallbackInfo& info, size_t i) {
  if (info.Length() <= i || !info[i].IsArray()) return nullptr;
  Napi::Array a = info[i].As<Napi::Array>();
  auto frames = std::make_shared<std::vector<Frame>>();
  for (uint32_t k = 0; k < a.Length(); ++k) {
    Napi::Value v = a.Get(k);
    if (!v.IsObject()) continue;
    Napi::Object o = v.As<Napi::Object>();
    Frame f;
    Napi::Value file = o.Get("filename"), line = o.Get("line"), col = o.Get("column"), name = o.Get("name"), cell = o.Get("cell");
    if (cell.IsNumber()) f.cell = cell.As<Napi::Number>().Int32Value();
    if (file.IsString()) f.filename = file.As<Napi::String>().Utf8Value();
    if (line.IsNumber()) f.line = line.As<Napi::Number>().Int32Value();
    if (col.IsNumber()) f.column = col.As<Napi::Number>().Int32Value();
    if (name.IsString()) f.name = name.As<Napi::String>().Utf8Value();
    frames->push_back(std::move(f));
  }
  return frames;
}

Napi::Object contextToJs(Napi::Env env, const Context& context) {
  Napi::Array frames = Napi::Array::New(env);
  if (context) {
    uint32_t k = 0;
    for (const Frame& f : *context) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("filename", f.filename);
      o.Set("line", f.line);
      o.Set("column", f.column);
      o.Set("name", f.name);
      if (f.cell > 0) o.Set("cell", f.cell);
      frames.Set(k++, o);
    }
  }
  return frames;
}

}  // namespace binding
}  // namespace tsgpu
