// The op registry: kernels registered per (op, device kind), and OpCall, the
// one argument every kernel receives.
//
// A kernel file needs nothing but this header (and the op's line in
// runtime/op_list.h):
//
//   #include "runtime/op_registry.h"
//   namespace tsgpu {
//   namespace {
//   void addCpu(OpCall& call) {
//     const TensorView& a = call.in(0);
//     TensorView& out = call.out(0);
//     double alpha = call.attrDouble("alpha");
//     ...
//   }
//   }  // namespace
//   TSGPU_REGISTER_KERNEL(add, kCpu, addCpu);
//   }  // namespace tsgpu
//
// Kernels may throw tsgpu::Error / ArgumentError (base/errors.h) with a
// message that starts with the op's name (call.name()); the binding turns it
// into a JavaScript error with its code. On CUDA a kernel only queues work on
// call.stream and checks the launch (cudaGetLastError); it never
// synchronizes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/device.h"
#include "base/dtype.h"
#include "runtime/op_list.h"
#include "runtime/tensor_view.h"

namespace tsgpu {

/** One constant per line of the op list: OpId::add. */
enum class OpId : uint16_t {
#define TSGPU_OP_ID(name, inputs, outputs, attrs, dtypes, flags) name,
  TSGPU_FOR_EACH_OP(TSGPU_OP_ID)
#undef TSGPU_OP_ID
};

/** Number of ops in the op list. */
constexpr int kNumOps = 0
#define TSGPU_OP_COUNT(name, inputs, outputs, attrs, dtypes, flags) +1
    TSGPU_FOR_EACH_OP(TSGPU_OP_COUNT)
#undef TSGPU_OP_COUNT
    ;

/** Types of attributes (the `type` of `name:type` in the op list). */
enum class AttrType : uint8_t { kDouble, kInt, kBool, kString, kInts };

/** One declared attribute of an op, parsed from the op list. */
struct AttrSpec {
  std::string name;
  AttrType type = AttrType::kDouble;
  bool required = true;    // neither a default nor `?`
  bool hasDefault = false; // `=default` given
  std::string defaultText; // the default as written
};

/** One declared input or output of an op, parsed from the op list. */
struct ParamSpec {
  std::string name;
  bool optional = false;  // `name?`
  bool scalarOk = false;  // `name#`
  bool variadic = false;  // `name*`
};

/** An op's line of the op list, parsed once. */
struct OpInfo {
  OpId id;
  const char* name;
  std::vector<ParamSpec> inputs;
  std::vector<ParamSpec> outputs;
  std::vector<AttrSpec> attrs;
  std::string dtypes;      // as written
  uint32_t dtypeMask = 0;  // bit (1 << code) per accepted dtype of the first tensor input
  bool inplace = false;    // flags contain "inplace"
  bool queued = false;     // flags contain "queued": CUDA calls may go through the device's LaunchQueue
};

/** The parsed line of `op`. */
const OpInfo& opInfo(OpId op);
/** The op named `name`, or nullptr. */
const OpInfo* findOp(const std::string& name);

/** An attribute's value in a call (the given value, or the default). */
struct AttrValue {
  bool present = false;  // false only for an optional (`?`) attribute that was not given
  double d = 0;          // kDouble (kInt and kBool are also readable as double)
  int64_t i = 0;         // kInt, kBool (0 or 1)
  std::string s;         // kString
  std::vector<int64_t> ints;  // kInts
};

/** A JavaScript number given for an input marked `#`. */
struct ScalarArg {
  bool present = false;  // true when this input is a number, not a tensor
  double value = 0;      // the number (integers up to 2^53 exactly)
};

/** Generator state an op consumes: element i uses counters offset + i of seed. */
struct RandomCounters {
  uint64_t seed = 0;
  uint64_t offset = 0;
};

/**
 * Everything one kernel call gets. The binding fills it; kernels read it and
 * write the outputs' elements.
 */
class OpCall {
 public:
  OpId op = OpId(0);
  /** Device of every tensor operand; the kernel runs here. */
  DeviceId device;
  /** The device's stream (cudaStream_t) on CUDA, nullptr on cpu. Queue all work on it. */
  void* stream = nullptr;
  /** Output views, in op-list order (preallocated by the caller). */
  std::vector<TensorView> outputs;
  /** Input views, in op-list order; a variadic input contributes one view per tensor. */
  std::vector<TensorView> inputs;
  /** Parallel to `inputs`: which are numbers rather than tensors. */
  std::vector<ScalarArg> scalars;
  /** Attribute values, in op-list order (defaults filled in). */
  std::vector<AttrValue> attrs;

  /** The op's name, e.g. "add" (start error messages with it). */
  const char* name() const { return opInfo(op).name; }
  /** Output i. */
  TensorView& out(size_t i) { return outputs[i]; }
  /** Input i (undefined view for an absent optional input or a number). */
  const TensorView& in(size_t i) const { return inputs[i]; }
  /** Number of inputs given (variadic inputs expanded). */
  size_t numInputs() const { return inputs.size(); }
  /** True when input i is a JavaScript number (its view is undefined; read scalar(i)). */
  bool isScalar(size_t i) const { return i < scalars.size() && scalars[i].present; }
  /** The number given for input i (0 when it is a tensor). */
  double scalar(size_t i) const { return isScalar(i) ? scalars[i].value : 0.0; }
  /** The number given for input i, converted to the element type T (Half, int32_t, ...). */
  template <typename T>
  T scalarAs(size_t i) const {
    return static_cast<T>(static_cast<OpMathType<T>>(scalar(i)));
  }

  /** Whether attribute `name` has a value (false only for an optional attribute not given). */
  bool hasAttr(const char* name) const;
  /** Attribute `name` as a double (double, int and bool attributes). Throws for an undeclared name. */
  double attrDouble(const char* name) const;
  /** Attribute `name` as an int64 (int and bool attributes). */
  int64_t attrInt(const char* name) const;
  /** Attribute `name` (bool attributes). */
  bool attrBool(const char* name) const;
  /** Attribute `name` (string attributes). */
  const std::string& attrString(const char* name) const;
  /** Attribute `name` (ints attributes, e.g. dims). */
  const std::vector<int64_t>& attrInts(const char* name) const;

  /**
   * Reserves `count` counters of the global generator (torch.manualSeed) and
   * returns where they start; use ops/common/philox.h to turn counters into
   * numbers, so cpu and cuda give the same values.
   */
  RandomCounters randomCounters(uint64_t count) const;

  /**
   * For long CPU loops, between chunks: throws InterruptedError (code
   * TSGPU_INTERRUPTED) when the user interrupted the cell. Cheap (one atomic load).
   */
  void checkInterrupt() const;

 private:
  const AttrValue& attr(const char* name, AttrType expected) const;
};

/** The function type of every kernel. */
using Kernel = void (*)(OpCall&);

/**
 * Registers `kernel` for (op, kind). `file` is where (for the message when
 * two kernels claim the same pair; see registryProblems()).
 */
void registerKernel(OpId op, DeviceKind kind, Kernel kernel, const char* file);
/** The kernel for (op, kind), or nullptr. */
Kernel findKernel(OpId op, DeviceKind kind);
/** Problems found while registering (duplicates), one line each; empty when all is well. */
std::vector<std::string> registryProblems();

/**
 * Runs call.op on call.device: finds the kernel (throws
 * "<op>: no kernel for cuda" when there is none) and calls it.
 */
void runKernel(OpCall& call);

/** Static registration helper behind TSGPU_REGISTER_KERNEL. */
struct KernelRegistrar {
  KernelRegistrar(OpId op, DeviceKind kind, Kernel kernel, const char* file) { registerKernel(op, kind, kernel, file); }
};

}  // namespace tsgpu

/**
 * TSGPU_REGISTER_KERNEL(op, kind, fn): registers `fn` (void fn(OpCall&)) as
 * the kernel of op-list entry `op` on DeviceKind::kind (kCpu or kCuda).
 * Write it at namespace scope of the kernel's .cc/.cu file; an op name not in
 * the op list is a compile error.
 */
#define TSGPU_REGISTER_KERNEL(op, kind, fn)                                         \
  static ::tsgpu::KernelRegistrar tsgpu_kernel_registrar_##op##_##kind(             \
      ::tsgpu::OpId::op, ::tsgpu::DeviceKind::kind, fn, __FILE__)
