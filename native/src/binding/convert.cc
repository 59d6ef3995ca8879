#include <cmath>

#include "binding/binding.h"
#include "base/errors.h"

namespace tsgpu {
namespace binding {

namespace {

Napi::FunctionReference& oomClass() {
  static Napi::FunctionReference ref;
  return ref;
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

void setOutOfMemoryClass(Napi::Function ctor) { oomClass() = Napi::Persistent(ctor); }

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
    if (!oomClass().IsEmpty()) {
      Napi::Object obj = oomClass().New({Napi::String::New(env, e.what()), details});
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
    Napi::Value file = o.Get("filename"), line = o.Get("line"), col = o.Get("column"), name = o.Get("name");
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
      frames.Set(k++, o);
    }
  }
  return frames;
}

}  // namespace binding
}  // namespace tsgpu
