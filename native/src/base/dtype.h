// The one table of element types (dtypes). Everything else is generated from
// it: the DType enum, names and sizes here, the addon's `dtypes()` export, and
// the TypeScript table native/generated/dtypes.ts (scripts/gen_native_tables.js;
// a test checks the two agree).
//
// Also the 16-bit float storage types Half and BFloat16: plain 16-bit
// values with round-to-nearest-even conversion from float and exact
// conversion to float, usable in host code and in CUDA device code. Kernels
// compute in float on them (see OpMath).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "base/host_device.h"

namespace tsgpu {

// ---------------------------------------------------------------- 16-bit floats

namespace detail {
TSGPU_HD uint32_t floatBits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
TSGPU_HD float bitsFloat(uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}
}  // namespace detail

/** IEEE 754 binary16 bits of `f`, rounded to nearest even (overflow → ±inf, NaN stays NaN). */
TSGPU_HD uint16_t floatToHalfBits(float f) {
  uint32_t x = detail::floatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return static_cast<uint16_t>(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 rounds to inf
  if (x < 0x38800000u) {                                                // below 2^-14: subnormal half
    if (x < 0x33000000u) return static_cast<uint16_t>(sign);            // <= 2^-25 rounds to zero
    const uint32_t e = x >> 23;
    const uint32_t m = (x & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;  // value = m * 2^(e-150) = (m >> shift) * 2^-24
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  x -= 0x38000000u;  // rebias exponent 127 -> 15
  x += 0xfffu + ((x >> 13) & 1u);
  return static_cast<uint16_t>(sign | (x >> 13));
}

/** The float value of binary16 bits (exact). */
TSGPU_HD float halfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    const float v = static_cast<float>(m) * 5.9604644775390625e-8f;  // m * 2^-24, exact
    return detail::bitsFloat(detail::floatBits(v) | sign);
  }
  if (e == 31) return detail::bitsFloat(sign | 0x7f800000u | (m << 13));
  return detail::bitsFloat(sign | ((e + 112u) << 23) | (m << 13));
}

/** bfloat16 bits of `f`, rounded to nearest even (NaN stays a quiet NaN). */
TSGPU_HD uint16_t floatToBFloat16Bits(float f) {
  const uint32_t x = detail::floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

/** The float value of bfloat16 bits (exact). */
TSGPU_HD float bfloat16BitsToFloat(uint16_t b) { return detail::bitsFloat(static_cast<uint32_t>(b) << 16); }

/** A float16 element as stored in memory. Convert to float to compute: `float(h)`. */
struct Half {
  uint16_t bits;
  Half() = default;
  TSGPU_HD explicit Half(float f) : bits(floatToHalfBits(f)) {}
  TSGPU_HD explicit Half(double d) : bits(floatToHalfBits(static_cast<float>(d))) {}
  TSGPU_HD operator float() const { return halfBitsToFloat(bits); }
  static TSGPU_HD Half fromBits(uint16_t b) {
    Half h;
    h.bits = b;
    return h;
  }
};

/** A bfloat16 element as stored in memory. Convert to float to compute: `float(b)`. */
struct BFloat16 {
  uint16_t bits;
  BFloat16() = default;
  TSGPU_HD explicit BFloat16(float f) : bits(floatToBFloat16Bits(f)) {}
  TSGPU_HD explicit BFloat16(double d) : bits(floatToBFloat16Bits(static_cast<float>(d))) {}
  TSGPU_HD operator float() const { return bfloat16BitsToFloat(bits); }
  static TSGPU_HD BFloat16 fromBits(uint16_t b) {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

// ---------------------------------------------------------------- the table

/** Broad class of a dtype, as PyTorch's type promotion sees it. */
enum class DTypeKind : uint8_t { kBool = 0, kInt = 1, kFloat = 2 };

/**
 * X(Name, name, code, CppType, bytes, kind, signed)
 *   Name     suffix of the enum constant: DType::kFloat32
 *   name     what users write and what TypeScript uses: "float32"
 *   code     the number the binding and TypeScript exchange (stable, dense from 0)
 *   CppType  the C++ type of one element in memory
 *   bytes    sizeof(CppType)
 *   kind     DTypeKind (Bool, Int or Float)
 *   signed   1 when negative values are representable
 * Order inside a kind is by width, which type promotion relies on.
 */
#define TSGPU_FOR_EACH_DTYPE(X)                    \
  X(Float32, float32, 0, float, 4, Float, 1)       \
  X(Float64, float64, 1, double, 8, Float, 1)      \
  X(Float16, float16, 2, ::tsgpu::Half, 2, Float, 1) \
  X(BFloat16, bfloat16, 3, ::tsgpu::BFloat16, 2, Float, 1) \
  X(Int8, int8, 4, int8_t, 1, Int, 1)              \
  X(UInt8, uint8, 5, uint8_t, 1, Int, 0)           \
  X(Int16, int16, 6, int16_t, 2, Int, 1)           \
  X(Int32, int32, 7, int32_t, 4, Int, 1)           \
  X(Int64, int64, 8, int64_t, 8, Int, 1)           \
  X(Bool, bool, 9, bool, 1, Bool, 0)

/** An element type; the value is the table's code. */
enum class DType : uint8_t {
#define TSGPU_DTYPE_ENUM(Name, name, code, CppType, bytes, kind, sgn) k##Name = code,
  TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_ENUM)
#undef TSGPU_DTYPE_ENUM
};

/** Number of dtypes; codes are 0 .. kNumDTypes-1. */
constexpr int kNumDTypes = 0
#define TSGPU_DTYPE_COUNT(Name, name, code, CppType, bytes, kind, sgn) +1
    TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_COUNT)
#undef TSGPU_DTYPE_COUNT
    ;

/** Bytes of one element (0 for a code outside the table). */
TSGPU_HD size_t dtypeSize(DType t) {
  switch (t) {
#define TSGPU_DTYPE_SIZE(Name, name, code, CppType, bytes, kind, sgn) \
  case DType::k##Name:                                                \
    return bytes;
    TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_SIZE)
#undef TSGPU_DTYPE_SIZE
  }
  return 0;
}

/** Bool, Int or Float. */
TSGPU_HD DTypeKind dtypeKind(DType t) {
  switch (t) {
#define TSGPU_DTYPE_KIND(Name, name, code, CppType, bytes, kind, sgn) \
  case DType::k##Name:                                                \
    return DTypeKind::k##kind;
    TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_KIND)
#undef TSGPU_DTYPE_KIND
  }
  return DTypeKind::kFloat;
}

/** True for float32, float64, float16, bfloat16. */
TSGPU_HD bool isFloating(DType t) { return dtypeKind(t) == DTypeKind::kFloat; }

/** "float32", ... ("unknown" for a code outside the table). Host only. */
inline const char* dtypeName(DType t) {
  switch (t) {
#define TSGPU_DTYPE_NAME(Name, name, code, CppType, bytes, kind, sgn) \
  case DType::k##Name:                                                \
    return #name;
    TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_NAME)
#undef TSGPU_DTYPE_NAME
  }
  return "unknown";
}

/** True when `code` is a dtype code of the table. */
inline bool isDTypeCode(int code) { return code >= 0 && code < kNumDTypes; }

/** The C++ element type of a dtype: CppType<DType::kFloat16> is Half. */
template <DType T>
struct CppTypeOf;
#define TSGPU_DTYPE_CPP(Name, name, code, CppT, bytes, kind, sgn) \
  template <>                                                      \
  struct CppTypeOf<DType::k##Name> {                               \
    using type = CppT;                                             \
  };
TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_CPP)
#undef TSGPU_DTYPE_CPP
template <DType T>
using CppType = typename CppTypeOf<T>::type;

/** The dtype of a C++ element type: dtypeOf<float>() is DType::kFloat32. */
template <typename T>
constexpr DType dtypeOf();
#define TSGPU_DTYPE_OF(Name, name, code, CppT, bytes, kind, sgn) \
  template <>                                                     \
  constexpr DType dtypeOf<CppT>() {                               \
    return DType::k##Name;                                        \
  }
TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_OF)
#undef TSGPU_DTYPE_OF

/**
 * The type kernels compute in for an element type (PyTorch's opmath type):
 * float for Half and BFloat16, the type itself otherwise.
 */
template <typename T>
struct OpMath {
  using type = T;
};
template <>
struct OpMath<Half> {
  using type = float;
};
template <>
struct OpMath<BFloat16> {
  using type = float;
};
template <typename T>
using OpMathType = typename OpMath<T>::type;

/**
 * Calls f(T{}) with T the CppType of `t`, e.g.
 *   visitDType(v.dtype, [&](auto tag) { using T = decltype(tag); fillTyped<T>(v); });
 * Host code only (a dispatch from a dtype known at run time to a template).
 */
template <typename F>
void visitDType(DType t, F&& f) {
  switch (t) {
#define TSGPU_DTYPE_VISIT(Name, name, code, CppT, bytes, kind, sgn) \
  case DType::k##Name:                                              \
    f(CppT{});                                                      \
    return;
    TSGPU_FOR_EACH_DTYPE(TSGPU_DTYPE_VISIT)
#undef TSGPU_DTYPE_VISIT
  }
}

/**
 * Converts one element to another element type as PyTorch's casts do:
 * through the compute types (float for Half/BFloat16), so Half -> int8 is
 * int8(float(h)); to bool is `value != 0`.
 */
template <typename To, typename From>
TSGPU_HD To castValue(From x) {
  return static_cast<To>(static_cast<OpMathType<To>>(static_cast<OpMathType<From>>(x)));
}

}  // namespace tsgpu
