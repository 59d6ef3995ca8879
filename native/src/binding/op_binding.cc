// The one entry point for every op: op(attrs?) runs the call that JavaScript
// encoded into the shared argument buffer (setOpBuffer), so that a call
// costs one crossing and no property lookups:
//
//   [0] op id (index in the op list)   [1] outputs   [2] inputs
//   then each output and input:
//     0, handle, dtype, ndim, offset, sizes[ndim], strides[ndim]   a tensor view
//     1, value                                                   a number (`#` inputs)
//     2                                                          absent (`?` inputs)
//
// `attrs` is an array in op-list order (undefined entries take the default).
// The binding checks what the op list promises kernels (devices, bounds,
// dtypes, counts) and runs the kernel; C++ errors become JS errors.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "base/errors.h"
#include "binding/binding.h"
#include "runtime/interrupt.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace binding {

namespace {

napi_ref gBufferRef = nullptr;  // the Float64Array JavaScript encodes into
double* gBuffer = nullptr;
size_t gBufferLength = 0;

AttrValue parseDefault(const AttrSpec& spec) {
  AttrValue v;
  v.present = spec.hasDefault;
  if (!spec.hasDefault) return v;
  const std::string& t = spec.defaultText;
  switch (spec.type) {
    case AttrType::kDouble: v.d = t == "inf" ? INFINITY : (t == "-inf" ? -INFINITY : std::strtod(t.c_str(), nullptr)); break;
    case AttrType::kInt: v.i = std::strtoll(t.c_str(), nullptr, 10); v.d = static_cast<double>(v.i); break;
    case AttrType::kBool: v.i = t == "true" ? 1 : 0; v.d = static_cast<double>(v.i); break;
    case AttrType::kString: v.s = t; break;
    case AttrType::kInts: {
      std::istringstream in(t == "[]" ? std::string() : t);
      std::string item;
      while (std::getline(in, item, ' '))
        if (!item.empty()) v.ints.push_back(std::strtoll(item.c_str(), nullptr, 10));
      break;
    }
  }
  return v;
}

const std::vector<AttrValue>& defaultsOf(OpId op) {
  static std::vector<std::vector<AttrValue>> all = [] {
    std::vector<std::vector<AttrValue>> r(kNumOps);
    for (int i = 0; i < kNumOps; ++i)
      for (const AttrSpec& a : opInfo(static_cast<OpId>(i)).attrs) r[i].push_back(parseDefault(a));
    return r;
  }();
  return all[static_cast<size_t>(op)];
}

const char* typeName(AttrType t) {
  switch (t) {
    case AttrType::kDouble: return "a number";
    case AttrType::kInt: return "an integer";
    case AttrType::kBool: return "a boolean";
    case AttrType::kString: return "a string";
    case AttrType::kInts: return "an integer or an array of integers";
  }
  return "a value";
}

std::string describe(const Napi::Value& v) {
  if (v.IsString()) return "'" + v.As<Napi::String>().Utf8Value() + "'";
  if (v.IsNumber() || v.IsBoolean()) return v.ToString().Utf8Value();
  if (v.IsArray()) return "an array";
  if (v.IsNull()) return "null";
  return "an object";
}

bool integral(double d) { return std::isfinite(d) && d == std::floor(d) && std::fabs(d) <= 9007199254740992.0; }

void readAttr(const OpInfo& info, size_t k, const Napi::Value& v, AttrValue& out) {
  const AttrSpec& spec = info.attrs[k];
  auto bad = [&]() {
    throw ArgumentError(std::string(info.name) + ": expected " + typeName(spec.type) + " for " + spec.name + ", got " +
                        describe(v));
  };
  out.present = true;
  switch (spec.type) {
    case AttrType::kDouble:
      if (v.IsNumber()) out.d = v.As<Napi::Number>().DoubleValue();
      else if (v.IsBoolean()) out.d = v.As<Napi::Boolean>().Value() ? 1 : 0;
      else bad();
      break;
    case AttrType::kInt:
      if (!v.IsNumber() || !integral(v.As<Napi::Number>().DoubleValue())) bad();
      out.d = v.As<Napi::Number>().DoubleValue();
      out.i = static_cast<int64_t>(out.d);
      break;
    case AttrType::kBool:
      if (!v.IsBoolean()) bad();
      out.i = v.As<Napi::Boolean>().Value() ? 1 : 0;
      out.d = static_cast<double>(out.i);
      break;
    case AttrType::kString:
      if (!v.IsString()) bad();
      out.s = v.As<Napi::String>().Utf8Value();
      break;
    case AttrType::kInts:
      out.ints.clear();
      if (v.IsNumber()) {
        if (!integral(v.As<Napi::Number>().DoubleValue())) bad();
        out.ints.push_back(static_cast<int64_t>(v.As<Napi::Number>().DoubleValue()));
      } else if (v.IsArray()) {
        Napi::Array a = v.As<Napi::Array>();
        for (uint32_t j = 0; j < a.Length(); ++j) {
          Napi::Value e = a.Get(j);
          if (!e.IsNumber() || !integral(e.As<Napi::Number>().DoubleValue())) bad();
          out.ints.push_back(static_cast<int64_t>(e.As<Napi::Number>().DoubleValue()));
        }
      } else {
        bad();
      }
      break;
  }
}

class Reader {
 public:
  Reader(const char* op) : op_(op) {}
  double next() {
    if (pos_ >= gBufferLength) throw Error("TSGPU_INTERNAL", std::string(op_) + ": argument buffer overrun");
    return gBuffer[pos_++];
  }
  int64_t nextInt() { return static_cast<int64_t>(next()); }

 private:
  const char* op_;
  size_t pos_ = 3;
};

/** "input other", "output out": names an operand in messages (built only for errors). */
struct Role {
  const char* kind;  // "input" or "output"
  const char* name;
  std::string text() const { return std::string(kind) + " " + name; }
};

/** Reads one tensor view (after its kind tag) and checks it against its storage. */
TensorView readView(Reader& r, const char* op, const Role& role, Device** device, const std::string** deviceName) {
  TensorView v;
  const int32_t handle = static_cast<int32_t>(r.nextInt());
  const int64_t dtype = r.nextInt();
  const int64_t ndim = r.nextInt();
  v.offset = r.nextInt();
  StorageRecord* rec = storages().find(handle);
  if (rec == nullptr)
    throw Error("TSGPU_DISPOSED", std::string(op) + ": " + role.text() + " was disposed: it can no longer be used");
  if (!isDTypeCode(static_cast<int>(dtype))) throw Error("TSGPU_INTERNAL", std::string(op) + ": bad dtype code for " + role.text());
  if (ndim < 0 || ndim > kMaxDims)
    throw ArgumentError(std::string(op) + ": " + role.text() + " has " + std::to_string(ndim) + " dimensions (at most " +
                        std::to_string(kMaxDims) + ")");
  v.dtype = static_cast<DType>(dtype);
  v.ndim = static_cast<int32_t>(ndim);
  int64_t last = v.offset, numel = 1;
  for (int d = 0; d < v.ndim; ++d) v.sizes[d] = r.nextInt();
  for (int d = 0; d < v.ndim; ++d) {
    v.strides[d] = r.nextInt();
    if (v.sizes[d] < 0 || v.strides[d] < 0) throw Error("TSGPU_INTERNAL", std::string(op) + ": negative size or stride for " + role.text());
    numel *= v.sizes[d];
    last += (v.sizes[d] - 1) * v.strides[d];
  }
  const int64_t capacity = static_cast<int64_t>(rec->nbytes / dtypeSize(v.dtype));
  if (numel > 0 && (v.offset < 0 || last >= capacity))
    throw Error("TSGPU_INTERNAL", std::string(op) + ": " + role.text() + " reaches element " + std::to_string(last) +
                                      " of a storage of " + std::to_string(capacity) + " elements");
  Device* dev = slotDevice(rec->deviceSlot);
  if (dev == nullptr) throw Error("TSGPU_INTERNAL", std::string(op) + ": storage without a device");
  if (*device == nullptr) {
    *device = dev;
    *deviceName = &rec->device;
  } else if (*device != dev) {
    throw ArgumentError(std::string(op) + ": expected all tensors on one device, got " + **deviceName + " and " +
                        rec->device);
  }
  v.storageData = rec->data();
  v.device = DeviceId{dev->kind, dev->index < 0 ? 0 : dev->index};
  return v;
}

OpCall& reusableCall() {
  static OpCall call;  // the binding runs on one thread; vectors keep their capacity
  return call;
}

Napi::Value Op(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (gBuffer == nullptr) throw Error("TSGPU_INTERNAL", "op: setOpBuffer was not called");
    const double id = gBuffer[0];
    if (!(id >= 0 && id < kNumOps)) throw Error("TSGPU_INTERNAL", "op: unknown op id " + std::to_string(id));
    const OpInfo& op = opInfo(static_cast<OpId>(static_cast<int>(id)));
    const size_t nOut = static_cast<size_t>(gBuffer[1]), nIn = static_cast<size_t>(gBuffer[2]);
    const bool variadic = !op.inputs.empty() && op.inputs.back().variadic;
    if (nOut != op.outputs.size() || (variadic ? nIn < op.inputs.size() : nIn != op.inputs.size()))
      throw ArgumentError(std::string(op.name) + ": expected " + std::to_string(op.inputs.size()) + " inputs and " +
                          std::to_string(op.outputs.size()) + " outputs, got " + std::to_string(nIn) + " and " +
                          std::to_string(nOut));
    OpCall& call = reusableCall();
    call.op = op.id;
    call.outputs.resize(nOut);
    call.inputs.resize(nIn);
    call.scalars.assign(nIn, ScalarArg());
    Device* device = nullptr;
    const std::string* deviceName = nullptr;
    Reader r(op.name);
    for (size_t i = 0; i < nOut; ++i) {
      if (r.nextInt() != 0) throw ArgumentError(std::string(op.name) + ": output " + op.outputs[i].name + " must be a tensor");
      call.outputs[i] = readView(r, op.name, Role{"output", op.outputs[i].name.c_str()}, &device, &deviceName);
    }
    int firstTensor = -1;
    for (size_t i = 0; i < nIn; ++i) {
      const ParamSpec& spec = op.inputs[i < op.inputs.size() ? i : op.inputs.size() - 1];
      const int64_t kind = r.nextInt();
      call.inputs[i] = TensorView();
      if (kind == 0) {
        call.inputs[i] = readView(r, op.name, Role{"input", spec.name.c_str()}, &device, &deviceName);
        if (firstTensor < 0) firstTensor = static_cast<int>(i);
      } else if (kind == 1) {
        if (!spec.scalarOk) throw ArgumentError(std::string(op.name) + ": expected a tensor for " + spec.name + ", got a number");
        call.scalars[i].present = true;
        call.scalars[i].value = r.next();
      } else {
        if (!spec.optional) throw ArgumentError(std::string(op.name) + ": expected a tensor for " + spec.name + ", got nothing");
      }
    }
    const DType checked = firstTensor >= 0 ? call.inputs[firstTensor].dtype : call.outputs[0].dtype;
    if ((op.dtypeMask & (1u << static_cast<int>(checked))) == 0)
      throw ArgumentError(std::string(op.name) + ": dtype " + dtypeName(checked) + " is not supported (expected " +
                          op.dtypes + ")");
    const std::vector<AttrValue>& defaults = defaultsOf(op.id);
    call.attrs.resize(op.attrs.size());
    Napi::Array given = info.Length() > 0 && info[0].IsArray() ? info[0].As<Napi::Array>() : Napi::Array();
    for (size_t k = 0; k < op.attrs.size(); ++k) {
      Napi::Value v = !given.IsEmpty() && k < given.Length() ? given.Get(static_cast<uint32_t>(k)) : info.Env().Undefined();
      if (v.IsUndefined() || v.IsNull()) {
        if (op.attrs[k].required)
          throw ArgumentError(std::string(op.name) + ": expected a value for " + op.attrs[k].name + ", got nothing");
        call.attrs[k] = defaults[k];
      } else {
        readAttr(op, k, v, call.attrs[k]);
      }
    }
    call.device = call.outputs[0].device;
    device->backend->activate();
    call.stream = device->backend->stream();
    runKernel(call);
    return info.Env().Undefined();
  });
}

// setOpBuffer(Float64Array): the buffer op() reads its arguments from.
Napi::Value SetOpBuffer(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
      throwJs(info.Env(), "TSGPU_ARG", "expected a Float64Array for buffer");
    Napi::Float64Array a = info[0].As<Napi::Float64Array>();
    if (gBufferRef != nullptr) napi_delete_reference(info.Env(), gBufferRef);
    napi_create_reference(info.Env(), a, 1, &gBufferRef);  // keeps the memory alive
    gBuffer = a.Data();
    gBufferLength = a.ElementLength();
    return info.Env().Undefined();
  });
}

napi_ref gInterruptRef = nullptr;  // keeps the shared flag's memory alive

// setInterruptFlag(Int32Array | null): long ops stop (TSGPU_INTERRUPTED) when element 0 is nonzero.
Napi::Value SetInterruptFlag(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (gInterruptRef != nullptr) napi_delete_reference(info.Env(), gInterruptRef);
    gInterruptRef = nullptr;
    setInterruptWord(nullptr);
    if (info[0].IsNull() || info[0].IsUndefined()) return info.Env().Undefined();
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
      throwJs(info.Env(), "TSGPU_ARG", "expected an Int32Array or null for flag");
    Napi::Int32Array a = info[0].As<Napi::Int32Array>();
    if (a.ElementLength() < 1) throwJs(info.Env(), "TSGPU_ARG", "expected an Int32Array of at least one element for flag");
    napi_create_reference(info.Env(), a, 1, &gInterruptRef);
    setInterruptWord(a.Data());
    return info.Env().Undefined();
  });
}

Napi::Array stringList(Napi::Env env, const std::vector<std::string>& items) {
  Napi::Array a = Napi::Array::New(env, items.size());
  for (uint32_t i = 0; i < items.size(); ++i) a.Set(i, items[i]);
  return a;
}

// opList() -> [{name, inputs, outputs, attrs, dtypes, inplace, kernels}] (what TypeScript checks its table against)
Napi::Value OpList(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    Napi::Env env = info.Env();
    Napi::Array out = Napi::Array::New(env, kNumOps);
    for (int i = 0; i < kNumOps; ++i) {
      const OpInfo& op = opInfo(static_cast<OpId>(i));
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", op.name);
      std::vector<std::string> ins, outs, attrs, kernels;
      for (const ParamSpec& p : op.inputs)
        ins.push_back(p.name + (p.optional ? "?" : "") + (p.scalarOk ? "#" : "") + (p.variadic ? "*" : ""));
      for (const ParamSpec& p : op.outputs) outs.push_back(p.name);
      static const char* const kTypes[] = {"double", "int", "bool", "string", "ints"};
      for (const AttrSpec& a : op.attrs)
        attrs.push_back(a.name + ":" + kTypes[static_cast<int>(a.type)] + (a.hasDefault ? "=" + a.defaultText : (a.required ? "" : "?")));
      for (int k = 0; k < kNumDeviceKinds; ++k)
        if (findKernel(op.id, static_cast<DeviceKind>(k)) != nullptr) kernels.push_back(deviceKindName(static_cast<DeviceKind>(k)));
      o.Set("inputs", stringList(env, ins));
      o.Set("outputs", stringList(env, outs));
      o.Set("attrs", stringList(env, attrs));
      o.Set("dtypes", op.dtypes);
      o.Set("inplace", op.inplace);
      o.Set("kernels", stringList(env, kernels));
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

void initOpBinding(Napi::Env env, Napi::Object exports) {
  exports.Set("op", Napi::Function::New(env, Op, "op"));
  exports.Set("setOpBuffer", Napi::Function::New(env, SetOpBuffer, "setOpBuffer"));
  exports.Set("opList", Napi::Function::New(env, OpList, "opList"));
  exports.Set("dtypes", Napi::Function::New(env, DTypes, "dtypes"));
  exports.Set("setInterruptFlag", Napi::Function::New(env, SetInterruptFlag, "setInterruptFlag"));
  exports.Set("registryProblems", Napi::Function::New(env, RegistryProblems, "registryProblems"));
}

}  // namespace binding
}  // namespace tsgpu
