// The op list: one line per op. It drives everything written once for all
// ops: the OpId enum and kernel registry (runtime/op_registry.h), the checks
// of the generic binding (binding/op_binding.cc), and the TypeScript typings
// native/generated/op_list.ts (scripts/gen_native_tables.js; a test checks
// they agree with the addon's opList()).
//
//   X(name, inputs, outputs, attributes, dtypes, flags)
//
// name        C++ identifier, and the op's name in TypeScript (camelCase).
// inputs      comma-separated input names, in order. Suffixes:
//               name?  optional: may be absent (the kernel sees an undefined view, !defined())
//               name#  may be a JavaScript number instead of a tensor (OpCall::isScalar)
//               name*  variadic: any number >= 1 of tensors (last input only; cat, stack)
// outputs     comma-separated output names. The TypeScript function allocates
//             them (shape and dtype are its business) and passes them in.
// attributes  comma-separated `name:type` or `name:type=default` or `name:type?`
//             (optional, no default: OpCall::hasAttr is false when not given).
//             Types: double, int (int64), bool, string, ints (list of int64;
//             a default is `[]` or integers separated by spaces: `dims:ints=0 1`).
//             An attribute without default or `?` is required.
// dtypes      dtypes the first tensor input may have (the output's when there
//             are no inputs): all | numeric (all but bool) | float | int
//             (integer types, uint8 included) | bool | names joined by '|'
//             (float32|float16). The binding rejects others with
//             "<op>: dtype <d> is not supported (expected <dtypes>)".
// flags       "" or "inplace": the outputs may be any views (strided, or the
//             very view that is input 0, for `x.add_(y)` on a slice). Without
//             it every output is a fresh contiguous tensor that overlaps no
//             input.
//
// What the binding guarantees before a kernel runs: every tensor input and
// output is on the call's device (a number input is on the host, see
// OpCall::isScalar), lies inside its storage, has the declared count; the
// TypeScript function has cast tensor inputs to the dtypes the kernel
// expects (for arithmetic: one common dtype, PyTorch's promotion) and
// broadcast nothing — broadcasting is the kernel's, by strides (an input of
// fewer dims is aligned to the right of the output; a size-1 dim repeats).
//
// Adding an op: a line here, kernels registered with TSGPU_REGISTER_KERNEL in
// native/src/ops/cpu/*.cc and native/src/ops/cuda/*.cu (found by the build, no
// CMake edit), and a TypeScript function in native/ops/*.ts calling
// runOp('<name>', outputs, inputs, attrs) (native/ops/dispatch.ts).
#pragma once

// clang-format off
#define TSGPU_FOR_EACH_OP(X) \
  /* out <- src, converting dtype, any strides; the base of contiguous(), to(dtype), clone(), copy_() */ \
  X(copy,      "src",           "out", "",                                  "all",     "inplace") \
  /* out <- value (cast to out's dtype) */ \
  X(fill,      "",              "out", "value:double",                      "all",     "inplace") \
  /* out <- start + step * i (row-major element index i); arange, linspace */ \
  X(arange,    "",              "out", "start:double,step:double",          "numeric", "") \
  /* out <- uniform in [low, high) from the generator (Philox; same numbers on cpu and cuda) */ \
  X(uniform,   "",              "out", "low:double=0,high:double=1",        "float",   "inplace") \
  /* out <- normal(mean, std) from the generator */ \
  X(normal,    "",              "out", "mean:double=0,std:double=1",        "float",   "inplace") \
  /* out <- integers uniform in [low, high) from the generator */ \
  X(randint,   "",              "out", "low:int,high:int",                  "numeric", "inplace") \
  /* out <- self + alpha * other, broadcast */ \
  X(add,       "self,other#",   "out", "alpha:double=1",                    "numeric", "inplace") \
  /* out [..., m, n] <- alpha * self [..., m, k] @ mat2 [..., k, n] + beta * out (out read only when beta != 0); batch dims broadcast by strides */ \
  X(gemm,      "self,mat2",     "out", "alpha:double=1,beta:double=0,allowTf32:bool=false", "float", "") \
  /* weights <- softmax(scale * query @ key^T, masked by mask (bool: keep where true; float: added) and causal); out <- weights @ value */ \
  X(attention, "query,key,value,mask?", "out,weights", "scale:double,causal:bool=false,allowTf32:bool=false", "float", "")
// clang-format on
