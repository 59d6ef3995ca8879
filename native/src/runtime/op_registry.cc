#include "runtime/op_registry.h"

#include <cstring>
#include <mutex>
#include <sstream>

#include "base/errors.h"
#include "runtime/generator.h"
#include "runtime/interrupt.h"

namespace tsgpu {

namespace {

struct RawOp {
  const char* name;
  const char* inputs;
  const char* outputs;
  const char* attrs;
  const char* dtypes;
  const char* flags;
};

const RawOp kRawOps[] = {
#define TSGPU_OP_RAW(name, inputs, outputs, attrs, dtypes, flags) {#name, inputs, outputs, attrs, dtypes, flags},
    TSGPU_FOR_EACH_OP(TSGPU_OP_RAW)
#undef TSGPU_OP_RAW
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ',')) {
    size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    if (b != std::string::npos) out.push_back(item.substr(b, e - b + 1));
  }
  return out;
}

[[noreturn]] void badLine(const char* op, const std::string& what) {
  throw Error("TSGPU_INTERNAL", std::string("op list, line of ") + op + ": " + what);
}

std::vector<ParamSpec> parseParams(const char* op, const char* text) {
  std::vector<ParamSpec> out;
  for (std::string item : splitList(text)) {
    ParamSpec p;
    while (!item.empty() && std::strchr("?#*", item.back())) {
      char c = item.back();
      item.pop_back();
      if (c == '?') p.optional = true;
      if (c == '#') p.scalarOk = true;
      if (c == '*') p.variadic = true;
    }
    if (item.empty()) badLine(op, "an input or output without a name");
    p.name = item;
    out.push_back(p);
  }
  for (size_t i = 0; i + 1 < out.size(); ++i)
    if (out[i].variadic) badLine(op, "only the last input may be variadic");
  return out;
}

std::vector<AttrSpec> parseAttrs(const char* op, const char* text) {
  std::vector<AttrSpec> out;
  for (const std::string& item : splitList(text)) {
    AttrSpec a;
    size_t colon = item.find(':');
    if (colon == std::string::npos) badLine(op, "attribute '" + item + "' has no type");
    a.name = item.substr(0, colon);
    std::string type = item.substr(colon + 1);
    size_t eq = type.find('=');
    if (eq != std::string::npos) {
      a.hasDefault = true;
      a.required = false;
      a.defaultText = type.substr(eq + 1);
      type = type.substr(0, eq);
    } else if (!type.empty() && type.back() == '?') {
      a.required = false;
      type.pop_back();
    }
    if (type == "double") a.type = AttrType::kDouble;
    else if (type == "int") a.type = AttrType::kInt;
    else if (type == "bool") a.type = AttrType::kBool;
    else if (type == "string") a.type = AttrType::kString;
    else if (type == "ints") a.type = AttrType::kInts;
    else badLine(op, "attribute '" + a.name + "' has unknown type '" + type + "'");
    out.push_back(a);
  }
  return out;
}

uint32_t parseDtypes(const char* op, const std::string& text) {
  uint32_t mask = 0;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, '|')) {
    if (item == "all") {
      mask |= (1u << kNumDTypes) - 1u;
      continue;
    }
    bool known = false;
    for (int c = 0; c < kNumDTypes; ++c) {
      DType t = static_cast<DType>(c);
      DTypeKind k = dtypeKind(t);
      bool in = item == dtypeName(t) || (item == "numeric" && k != DTypeKind::kBool) ||
                (item == "float" && k == DTypeKind::kFloat) || (item == "int" && k == DTypeKind::kInt) ||
                (item == "bool" && k == DTypeKind::kBool);
      if (in) mask |= 1u << c;
      known = known || in || item == "numeric" || item == "float" || item == "int" || item == "bool";
    }
    if (!known) badLine(op, "unknown dtype set '" + item + "'");
  }
  return mask;
}

std::vector<OpInfo> parseAll() {
  std::vector<OpInfo> ops;
  for (int i = 0; i < kNumOps; ++i) {
    const RawOp& r = kRawOps[i];
    OpInfo info;
    info.id = static_cast<OpId>(i);
    info.name = r.name;
    info.inputs = parseParams(r.name, r.inputs);
    info.outputs = parseParams(r.name, r.outputs);
    info.attrs = parseAttrs(r.name, r.attrs);
    info.dtypes = r.dtypes;
    info.dtypeMask = parseDtypes(r.name, info.dtypes);
    info.inplace = std::strstr(r.flags, "inplace") != nullptr;
    info.queued = std::strstr(r.flags, "queued") != nullptr;
    ops.push_back(std::move(info));
  }
  return ops;
}

const std::vector<OpInfo>& allOps() {
  static const std::vector<OpInfo> ops = parseAll();
  return ops;
}

struct Registry {
  std::mutex mutex;
  Kernel kernels[kNumOps > 0 ? kNumOps : 1][kNumDeviceKinds] = {};
  const char* files[kNumOps > 0 ? kNumOps : 1][kNumDeviceKinds] = {};
  std::vector<std::string> problems;
};

Registry& registry() {
  static Registry* r = new Registry();  // used from static initializers of other files; never destroyed
  return *r;
}

}  // namespace

const OpInfo& opInfo(OpId op) { return allOps()[static_cast<size_t>(op)]; }

const OpInfo* findOp(const std::string& name) {
  for (const OpInfo& info : allOps())
    if (name == info.name) return &info;
  return nullptr;
}

void registerKernel(OpId op, DeviceKind kind, Kernel kernel, const char* file) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const size_t o = static_cast<size_t>(op), k = static_cast<size_t>(kind);
  if (r.kernels[o][k] != nullptr) {
    r.problems.push_back(std::string("two kernels for ") + kRawOps[o].name + " on " + deviceKindName(kind) + ": " +
                         r.files[o][k] + " and " + file);
    return;
  }
  r.kernels[o][k] = kernel;
  r.files[o][k] = file;
}

Kernel findKernel(OpId op, DeviceKind kind) {
  return registry().kernels[static_cast<size_t>(op)][static_cast<size_t>(kind)];
}

std::vector<std::string> registryProblems() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.problems;
}

void runKernel(OpCall& call) {
  Kernel k = findKernel(call.op, call.device.kind);
  if (k == nullptr)
    throw Error("TSGPU_UNSUPPORTED", std::string(call.name()) + ": no kernel for " + deviceKindName(call.device.kind));
  k(call);
}

const AttrValue& OpCall::attr(const char* name, AttrType expected) const {
  const OpInfo& info = opInfo(op);
  for (size_t i = 0; i < info.attrs.size(); ++i) {
    if (info.attrs[i].name != name) continue;
    const AttrSpec& spec = info.attrs[i];
    bool ok = spec.type == expected || (expected == AttrType::kDouble && (spec.type == AttrType::kInt || spec.type == AttrType::kBool)) ||
              (expected == AttrType::kInt && spec.type == AttrType::kBool);
    if (!ok) throw Error("TSGPU_INTERNAL", std::string(info.name) + ": attribute '" + name + "' read with the wrong type");
    if (i >= attrs.size() || !attrs[i].present)
      throw Error("TSGPU_INTERNAL", std::string(info.name) + ": attribute '" + name + "' was not given");
    return attrs[i];
  }
  throw Error("TSGPU_INTERNAL", std::string(info.name) + ": no attribute '" + name + "' in the op list");
}

bool OpCall::hasAttr(const char* name) const {
  const OpInfo& info = opInfo(op);
  for (size_t i = 0; i < info.attrs.size(); ++i)
    if (info.attrs[i].name == name) return i < attrs.size() && attrs[i].present;
  return false;
}

double OpCall::attrDouble(const char* name) const { return attr(name, AttrType::kDouble).d; }
int64_t OpCall::attrInt(const char* name) const { return attr(name, AttrType::kInt).i; }
bool OpCall::attrBool(const char* name) const { return attr(name, AttrType::kBool).i != 0; }
const std::string& OpCall::attrString(const char* name) const { return attr(name, AttrType::kString).s; }
const std::vector<int64_t>& OpCall::attrInts(const char* name) const { return attr(name, AttrType::kInts).ints; }

RandomCounters OpCall::randomCounters(uint64_t count) const {
  RandomCounters c;
  c.offset = takeCounters(count, &c.seed);
  return c;
}

void OpCall::checkInterrupt() const {
  if (interruptRequested()) throw InterruptedError(std::string(name()) + ": interrupted");
}

}  // namespace tsgpu
