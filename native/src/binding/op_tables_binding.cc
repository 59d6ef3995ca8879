// The op list and the dtype table as the addon has them, for TypeScript to
// check its generated tables against (test/native/tensor.test.ts):
// opList(), dtypes(), registryProblems().
#include <string>
#include <vector>

#include "base/dtype.h"
#include "binding/binding.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace binding {

namespace {

Napi::Array stringList(Napi::Env env, const std::vector<std::string>& items) {
  Napi::Array a = Napi::Array::New(env, items.size());
  for (uint32_t i = 0; i < items.size(); ++i) a.Set(i, items[i]);
  return a;
}

// opList() -> [{name, inputs, outputs, attrs, dtypes, inplace, kernels, accepts}] (what TypeScript checks its table
// against; accepts: the dtype names of `dtypes` resolved, in code order, what supports() answers from)
Napi::Value OpList(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    Napi::Array out = Napi::Array::New(env, kNumOps);
    for (int i = 0; i < kNumOps; ++i) {
      const OpInfo& op = opInfo(static_cast<OpId>(i));
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", op.name);
      std::vector<std::string> ins, outs, attrs, kernels, accepts;
      for (const ParamSpec& p : op.inputs)
        ins.push_back(p.name + (p.optional ? "?" : "") + (p.scalarOk ? "#" : "") + (p.variadic ? "*" : ""));
      for (const ParamSpec& p : op.outputs) outs.push_back(p.name);
      static const char* const kTypes[] = {"double", "int", "bool", "string", "ints"};
      for (const AttrSpec& a : op.attrs)
        attrs.push_back(a.name + ":" + kTypes[static_cast<int>(a.type)] + (a.hasDefault ? "=" + a.defaultText : (a.required ? "" : "?")));
      for (int k = 0; k < kNumDeviceKinds; ++k)
        if (findKernel(op.id, static_cast<DeviceKind>(k)) != nullptr) kernels.push_back(deviceKindName(static_cast<DeviceKind>(k)));
      for (int c = 0; c < kNumDTypes; ++c)
        if (op.dtypeMask & (1u << c)) accepts.push_back(dtypeName(static_cast<DType>(c)));
      o.Set("inputs", stringList(env, ins));
      o.Set("outputs", stringList(env, outs));
      o.Set("attrs", stringList(env, attrs));
      o.Set("dtypes", op.dtypes);
      o.Set("inplace", op.inplace);
      o.Set("kernels", stringList(env, kernels));
      o.Set("accepts", stringList(env, accepts));
      out.Set(static_cast<uint32_t>(i), o);
    }
    return out;
  });
}

// dtypes() -> [{name, code, bytes, kind, signed}] from base/dtype.h
Napi::Value DTypes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env);
  uint32_t i = 0;
#define TSGPU_DTYPE_JS(Name, name, code, CppT, bytes, kind, sgn) \
  {                                                              \
    Napi::Object o = Napi::Object::New(env);                     \
    o.Set("name", #name);                                        \
    o.Set("code", code);                                         \
    o.Set("bytes", bytes);                                       \
    o.Set("kind", #kind);                                        \
    o.Set("signed", sgn == 1);                                   \
    out.Set(i++, o);                                             \
  }
  TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_JS)
#undef TSGPU_DTYPE_JS
  return out;
}

Napi::Value RegistryProblems(const Napi::CallbackInfo& info) {
  return stringList(info.Env(), registryProblems());
}

}  // namespace

void initOpTables(Napi::Env env, Napi::Object exports) {
  exportFunctions(env, exports, {{"opList", OpList}, {"dtypes", DTypes}, {"registryProblems", RegistryProblems}});
}

}  // namespace binding
}  // namespace tsgpu
