// Dtype dispatch: turns a runtime DType into a C++ element type for a
// generic lambda, instantiating only the dtypes of a compile-time set so a
// kernel body is compiled for the types it supports and nothing else.
//
//   dispatchDtype<kFloatDtypes>(t, "exp", [&](auto tag) {
//     using T = typename decltype(tag)::type;   // float, double, Half, BFloat16
//     ...
//   });
#pragma once

#include <cstdint>
#include <string>

#include "base/dtype.h"
#include "base/errors.h"

namespace tsgpu {
namespace ops {

/** Carries an element type to a generic lambda. */
template <typename T>
struct TypeTag {
  using type = T;
};

/** A set of dtypes as a bit mask over the table's codes. */
using DtypeSet = uint32_t;

constexpr DtypeSet dtypeBit(DType t) { return DtypeSet(1) << static_cast<int>(t); }

constexpr DtypeSet kFloatDtypes = dtypeBit(DType::kFloat32) | dtypeBit(DType::kFloat64) |
                                  dtypeBit(DType::kFloat16) | dtypeBit(DType::kBFloat16);
constexpr DtypeSet kIntDtypes = dtypeBit(DType::kInt8) | dtypeBit(DType::kUInt8) | dtypeBit(DType::kInt16) |
                                dtypeBit(DType::kInt32) | dtypeBit(DType::kInt64);
constexpr DtypeSet kBoolDtypes = dtypeBit(DType::kBool);
constexpr DtypeSet kNumericDtypes = kFloatDtypes | kIntDtypes;
constexpr DtypeSet kAllDtypes = kNumericDtypes | kBoolDtypes;

/** "add: dtype bool is not supported" (the binding checks the op list first; this guards kernels). */
[[noreturn]] inline void throwUnsupportedDtype(const char* op, DType t) {
  throw ArgumentError(std::string(op) + ": dtype " + dtypeName(t) + " is not supported by this kernel");
}

/** Calls f(TypeTag<CppType>) for `t` when it is in `Set`; throws ArgumentError naming `op` otherwise. */
template <DtypeSet Set, typename F>
void dispatchDtype(DType t, const char* op, F&& f) {
  switch (t) {
#define TSGPU_DISPATCH_CASE(Name, name, code, CppT, bytes, kind, sgn) \
  case DType::k##Name:                                               \
    if constexpr (((Set >> code) & 1u) != 0) {                       \
      f(TypeTag<CppT>{});                                            \
      return;                                                        \
    }                                                                \
    break;
    TSGPU_FOR_EACH_DTYPE(TSGPU_DISPATCH_CASE)
#undef TSGPU_DISPATCH_CASE
  }
  throwUnsupportedDtype(op, t);
}

}  // namespace ops
}  // namespace tsgpu
