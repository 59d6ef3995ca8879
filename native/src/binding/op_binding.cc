// The one entry point for every op: op(attrs?, owner?) runs the call that
// JavaScript encoded into the shared argument buffer (setOpBuffer), so that
// a call costs one crossing and no property lookups:
//
//   [0] op id (index in the op list)   [1] outputs   [2] inputs
//   then each output:
//     0, handle, dtype, ndim, offset, sizes[ndim], strides[ndim]   a tensor view
//     3, slot, dtype, ndim, id, sizes[ndim]      a new dense tensor: the binding allocates
//                                                its storage for `owner` and returns the handle
//   then each input:
//     0, <view as above>                                         a tensor
//     1, value                                                   a number (`#` inputs)
//     2                                                          absent (`?` inputs)
//   then the attributes: count, and for each in op-list order
//     0                 not given (the default)
//     1, value          a number
//     2, 0|1            a boolean
//     3                 given in attrs[k] (strings, arrays)
//
// The binding checks what the op list promises kernels (devices, bounds,
// dtypes, counts) and runs the kernel; C++ errors become JS errors. A new
// output is freed again when the op fails.
#include <unordered_set>

#include "base/errors.h"
#include "binding/binding.h"
#include "binding/op_attrs.h"
#include "runtime/device_registry.h"
#include "runtime/interrupt.h"
#include "runtime/launch_queue.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace binding {

namespace {

/**
 * The Float64Array JavaScript encodes an op's arguments into, one per thread:
 * each JavaScript environment (the main thread, every worker that loads the
 * runtime) runs on its own thread and registers its own buffer, so a worker
 * that ends leaves the main thread's buffer alone.
 */
struct OpBuffer {
  napi_ref ref = nullptr;  // keeps the array (and so `data`) alive
  double* data = nullptr;  // its elements
  size_t length = 0;       // its element count
};
thread_local OpBuffer tlOpBuffer;

[[noreturn, gnu::noinline, gnu::cold]] void overrun(const char* op) {
  throw Error("TSGPU_INTERNAL", std::string(op) + ": argument buffer overrun");
}

class Reader {
 public:
  Reader(const char* op, const OpBuffer& buffer) : op_(op), data_(buffer.data), length_(buffer.length) {}
  double next() {
    if (pos_ >= length_) overrun(op_);
    return data_[pos_++];
  }
  int64_t nextInt() { return static_cast<int64_t>(next()); }

 private:
  const char* op_;
  const double* data_;
  size_t length_;
  size_t pos_ = 3;
};

/** "input other", "output out": names an operand in messages (built only for errors). */
struct Role {
  const char* kind;  // "input" or "output"
  const char* name;
  std::string text() const { return std::string(kind) + " " + name; }
};

/** Zeroes v's sizes and strides from dimension ndim on, as a fresh view has them (views are reused in place). */
void zeroPast(TensorView& v, int ndim) {
  for (int d = ndim; d < v.ndim; ++d) v.sizes[d] = v.strides[d] = 0;
}

/**
 * Reads one tensor view (after its kind tag) into v (in place: a view is
 * large) and checks it against its storage.
 */
void readView(Reader& r, const char* op, const Role& role, Device** device, TensorView& v) {
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
  zeroPast(v, static_cast<int>(ndim));
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
  } else if (*device != dev) {
    throw ArgumentError(std::string(op) + ": expected all tensors on one device, got " + (*device)->name + " and " +
                        dev->name);
  }
  v.storageData = rec->data();
  v.device = DeviceId{dev->kind, dev->index < 0 ? 0 : dev->index};
}

/**
 * Reads a new output (after its tag): allocates a dense storage for `owner`
 * on the slot's device and makes v its view; *handle is set first thing
 * after the allocation, so that the caller frees it if anything fails later.
 */
void newOutput(napi_env env, Reader& r, const OpInfo& op, size_t i, napi_value owner, Device** device,
               StorageTable::Handle* handle, TensorView& v) {
  auto what = [&op, i]() { return std::string(op.name) + ": output " + op.outputs[i].name; };  // for errors only
  if (*handle >= 0) throw Error("TSGPU_INTERNAL", what() + ": only one new output per call");
  napi_valuetype ownerType = napi_undefined;
  if (owner == nullptr || napi_typeof(env, owner, &ownerType) != napi_ok || ownerType != napi_object)
    throw Error("TSGPU_INTERNAL", what() + ": a new output needs its owner object");
  const double slotCode = r.next();
  const int64_t dtype = r.nextInt();
  const int64_t ndim = r.nextInt();
  const double id = r.next();
  Device* dev = slotCode >= 0 ? slotDevice(static_cast<uint32_t>(slotCode)) : nullptr;
  if (dev == nullptr) throw Error("TSGPU_INTERNAL", what() + ": bad device slot");
  if (!isDTypeCode(static_cast<int>(dtype))) throw Error("TSGPU_INTERNAL", what() + ": bad dtype code");
  if (ndim < 0 || ndim > kMaxDims)
    throw ArgumentError(what() + " has " + std::to_string(ndim) + " dimensions (at most " + std::to_string(kMaxDims) + ")");
  zeroPast(v, static_cast<int>(ndim));
  v.dtype = static_cast<DType>(dtype);
  v.ndim = static_cast<int32_t>(ndim);
  v.offset = 0;
  double numel = 1;
  for (int d = 0; d < v.ndim; ++d) {
    v.sizes[d] = r.nextInt();
    if (v.sizes[d] < 0) throw Error("TSGPU_INTERNAL", what() + ": negative size");
    numel *= static_cast<double>(v.sizes[d]);
  }
  int64_t stride = 1;
  for (int d = v.ndim - 1; d >= 0; --d) {
    v.strides[d] = stride;
    stride *= v.sizes[d] > 1 ? v.sizes[d] : 1;
  }
  const double nbytes = numel * static_cast<double>(dtypeSize(v.dtype));
  if (nbytes > 9007199254740992.0) throw ArgumentError(what() + " would need " + std::to_string(nbytes) + " bytes");
  *handle = allocOwned(env, owner, static_cast<uint32_t>(slotCode), static_cast<size_t>(nbytes),
                       static_cast<uint8_t>(dtype), id, Context());
  v.storageData = storages().find(*handle)->data();
  v.device = DeviceId{dev->kind, dev->index < 0 ? 0 : dev->index};
  if (*device != nullptr && *device != dev)
    throw ArgumentError(std::string(op.name) + ": expected all tensors on one device, got " + (*device)->name + " and " +
                        dev->name);
  *device = dev;
}

/** Reads the attributes (after the inputs) into call.attrs: the given values, checked against the op list, or defaults. */
void readAttrs(napi_env env, Reader& r, const OpInfo& op, napi_value given, OpCall& call) {
  const std::vector<AttrValue>& defaults = defaultsOf(op.id);
  const size_t n = op.attrs.size();
  call.attrs.resize(n);
  const size_t count = static_cast<size_t>(r.nextInt());
  if (count != n)
    throw Error("TSGPU_INTERNAL", std::string(op.name) + ": " + std::to_string(count) + " attributes encoded, the op list has " +
                                      std::to_string(n));
  for (size_t k = 0; k < n; ++k) {
    const AttrSpec& spec = op.attrs[k];
    AttrValue& out = call.attrs[k];
    const int64_t tag = r.nextInt();
    if (tag == 0) {
      if (spec.required) throw ArgumentError(std::string(op.name) + ": expected a value for " + spec.name + ", got nothing");
      const AttrValue& def = defaults[k];
      out.present = def.present;
      out.d = def.d;
      out.i = def.i;
      if (spec.type == AttrType::kString) out.s = def.s;
      if (spec.type == AttrType::kInts) out.ints = def.ints;
      continue;
    }
    napi_value v = nullptr;
    if (tag == 1 || tag == 2) {
      const double x = r.next();
      // The common cases directly; anything else through readAttr, which converts or names the problem.
      if (tag == 1 && spec.type == AttrType::kDouble) {
        out.present = true;
        out.d = x;
        continue;
      }
      if (tag == 1 && spec.type == AttrType::kInt && integral(x)) {
        out.present = true;
        out.d = x;
        out.i = static_cast<int64_t>(x);
        continue;
      }
      if (tag == 2 && spec.type == AttrType::kBool) {
        out.present = true;
        out.i = x != 0 ? 1 : 0;
        out.d = static_cast<double>(out.i);
        continue;
      }
      if (tag == 1) napi_create_double(env, x, &v);
      else napi_get_boolean(env, x != 0, &v);
    } else if (tag == 3) {
      bool isArray = false;
      if (given != nullptr) napi_is_array(env, given, &isArray);
      if (!isArray || napi_get_element(env, given, static_cast<uint32_t>(k), &v) != napi_ok)
        throw Error("TSGPU_INTERNAL", std::string(op.name) + ": attribute " + spec.name + " is not in the attribute array");
    } else {
      throw Error("TSGPU_INTERNAL", std::string(op.name) + ": bad attribute tag for " + spec.name);
    }
    readAttr(op, k, Napi::Value(env, v), out);
  }
}

OpCall& reusableCall() {
  thread_local OpCall call;  // one per JavaScript thread; vectors keep their capacity
  return call;
}

/** What queueSignature returns for a call that always runs inline. */
constexpr uint64_t kNotQueueable = ~uint64_t(0);

/**
 * The op and the dtypes of a call whose op is marked "queued" (bits: op id, output dtype, then per input
 * its dtype, 30 for a number, 31 for nothing), or kNotQueueable for calls the launch thread must not take:
 * more than three inputs, or an operand of 2^31 elements or more (whose kernel may refuse strided layouts).
 */
uint64_t queueSignature(const OpCall& call) {
  constexpr int64_t kMaxQueuedNumel = int64_t(1) << 31;
  if (call.outputs.size() != 1 || call.inputs.size() > 3 || call.outputs[0].numel() >= kMaxQueuedNumel) return kNotQueueable;
  uint64_t key = static_cast<uint64_t>(call.op) << 20 | static_cast<uint64_t>(call.outputs[0].dtype) << 15;
  for (size_t i = 0; i < 3; ++i) {
    uint64_t code = 31;
    if (i < call.inputs.size()) {
      const TensorView& in = call.inputs[i];
      if (call.isScalar(i)) code = 30;
      else if (in.defined()) {
        if (in.numel() >= kMaxQueuedNumel) return kNotQueueable;
        code = static_cast<uint64_t>(in.dtype);
      }
    }
    key |= code << (5 * i);
  }
  // String attributes (gelu's approximate, div's roundingMode) choose the kernel's path: part of the key.
  for (const AttrValue& a : call.attrs)
    if (!a.s.empty()) key ^= (std::hash<std::string>()(a.s) | 1) << 36;
  return key == kNotQueueable ? key - 1 : key;
}

/**
 * Signatures (queueSignature) that ran inline on this thread without an error: their later calls go
 * through the device's LaunchQueue, so that an argument error a kernel raises stays the error of the
 * call that caused it.
 */
thread_local std::unordered_set<uint64_t> tlQueueable;

/** Decodes the buffer into call (allocating a new output for `owner`) and runs or queues the kernel. */
void runEncoded(napi_env env, napi_value attrs, napi_value owner, StorageTable::Handle* allocated) {
  const OpBuffer& buffer = tlOpBuffer;
  if (buffer.data == nullptr) throw Error("TSGPU_INTERNAL", "op: setOpBuffer was not called");
  const double* words = buffer.data;
  const double id = words[0];
  if (!(id >= 0 && id < kNumOps)) throw Error("TSGPU_INTERNAL", "op: unknown op id " + std::to_string(id));
  const OpInfo& op = opInfo(static_cast<OpId>(static_cast<int>(id)));
  const size_t nOut = static_cast<size_t>(words[1]), nIn = static_cast<size_t>(words[2]);
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
  Reader r(op.name, buffer);
  for (size_t i = 0; i < nOut; ++i) {
    const int64_t kind = r.nextInt();
    if (kind == 3) newOutput(env, r, op, i, owner, &device, allocated, call.outputs[i]);
    else if (kind == 0) readView(r, op.name, Role{"output", op.outputs[i].name.c_str()}, &device, call.outputs[i]);
    else throw ArgumentError(std::string(op.name) + ": output " + op.outputs[i].name + " must be a tensor");
  }
  int firstTensor = -1;
  for (size_t i = 0; i < nIn; ++i) {
    const ParamSpec& spec = op.inputs[i < op.inputs.size() ? i : op.inputs.size() - 1];
    const int64_t kind = r.nextInt();
    TensorView& in = call.inputs[i];
    if (kind == 0) {
      readView(r, op.name, Role{"input", spec.name.c_str()}, &device, in);
      if (firstTensor < 0) firstTensor = static_cast<int>(i);
      continue;
    }
    zeroPast(in, 0);  // an undefined view, as TensorView() (reset in place: a view is large)
    in.ndim = -1;
    in.storageData = nullptr;
    in.offset = 0;
    in.dtype = DType::kFloat32;
    in.device = DeviceId();
    if (kind == 1) {
      if (!spec.scalarOk) throw ArgumentError(std::string(op.name) + ": expected a tensor for " + spec.name + ", got a number");
      call.scalars[i].present = true;
      call.scalars[i].value = r.next();
    } else if (!spec.optional) {
      throw ArgumentError(std::string(op.name) + ": expected a tensor for " + spec.name + ", got nothing");
    }
  }
  const DType checked = firstTensor >= 0 ? call.inputs[firstTensor].dtype : call.outputs[0].dtype;
  if ((op.dtypeMask & (1u << static_cast<int>(checked))) == 0)
    throw ArgumentError(std::string(op.name) + ": dtype " + dtypeName(checked) + " is not supported (expected " +
                        op.dtypes + ")");
  readAttrs(env, r, op, attrs, call);
  call.device = call.outputs[0].device;
  call.stream = device->backend->stream();
  LaunchQueue* queue = device->queue.get();
  const uint64_t signature = queue != nullptr && op.queued ? queueSignature(call) : kNotQueueable;
  if (signature != kNotQueueable && tlQueueable.count(signature) != 0) {
    queue->submit(call);
    return;
  }
  if (queue != nullptr) queue->drain();  // everything queued before this call runs first
  device->backend->activate();
  runKernel(call);
  // The same op with the same dtypes has run inline without an error: later calls may be queued.
  if (signature != kNotQueueable) tlQueueable.insert(signature);
}

// op(attrs?, owner?) -> handle of the new output, or undefined when there is none.
napi_value Op(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 2;
  napi_value argv[2] = {nullptr, nullptr};
  napi_get_cb_info(env, cbinfo, &argc, argv, nullptr, nullptr);
  StorageTable::Handle allocated = -1;
  try {
    drainFrees(env);
    runEncoded(env, argc > 0 ? argv[0] : nullptr, argc > 1 ? argv[1] : nullptr, &allocated);
    napi_value out = nullptr;
    if (allocated >= 0) napi_create_int32(env, allocated, &out);
    return out;
  } catch (...) {
    if (allocated >= 0) releaseOwned(env, allocated);
    throwPendingJs(env);
  }
  return nullptr;
}

// setOpBuffer(Float64Array): the buffer op() reads its arguments from.
Napi::Value SetOpBuffer(const Napi::CallbackInfo& info) {
  return guarded(info, [&]() -> Napi::Value {
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float64_array)
      throwJs(info.Env(), "TSGPU_ARG", "expected a Float64Array for buffer");
    Napi::Float64Array a = info[0].As<Napi::Float64Array>();
    OpBuffer& buffer = tlOpBuffer;
    if (buffer.ref != nullptr) napi_delete_reference(info.Env(), buffer.ref);
    napi_create_reference(info.Env(), a, 1, &buffer.ref);  // keeps the memory alive
    buffer.data = a.Data();
    buffer.length = a.ElementLength();
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

}  // namespace

void initOpBinding(Napi::Env env, Napi::Object exports) {
  napi_value opFn;
  napi_create_function(env, "op", NAPI_AUTO_LENGTH, Op, nullptr, &opFn);
  exports.Set("op", Napi::Value(env, opFn));
  exports.Set("setOpBuffer", Napi::Function::New(env, SetOpBuffer, "setOpBuffer"));
  exports.Set("setInterruptFlag", Napi::Function::New(env, SetInterruptFlag, "setInterruptFlag"));
}

}  // namespace binding
}  // namespace tsgpu
