// Read-modify-write of one element, for kernels whose targets may repeat
// (scatterAdd, scatterReduce): atomic on the device, plain on the host (where
// those kernels run on one thread). Every dtype is covered on the device:
// hardware atomics where CUDA has them (add of 32/64-bit types, float16 and
// bfloat16; max/min of int32 and int64), otherwise a compare-and-swap loop on
// the element (4 and 8 bytes) or on the aligned 32-bit word that holds it
// (1 and 2 bytes: bool, int8, uint8, int16, and float16/bfloat16 products).
//
//   addAt(p, v)                 *p += v
//   combineAt<Op>(p, v)         *p = Op::apply(*p, v), Op one of the combiners below
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

#include "base/dtype.h"
#include "base/host_device.h"

namespace tsgpu {
namespace ops {

/**
 * The combiners of scatterReduce, on element values (computed in OpMathType,
 * float for float16/bfloat16). Max and Min propagate NaN from either side as
 * PyTorch's cpu kernels do (a NaN in self stays; a NaN from src replaces).
 */
struct CombineSum {
  template <typename T>
  static TSGPU_HD T apply(T a, T b) {
    using M = OpMathType<T>;
    return static_cast<T>(static_cast<M>(a) + static_cast<M>(b));
  }
};

struct CombineProd {
  template <typename T>
  static TSGPU_HD T apply(T a, T b) {
    if constexpr (std::is_same<T, bool>::value) {
      return a && b;
    } else if constexpr (std::is_integral<T>::value) {
      // Wrapping, as the integer type does, without signed overflow.
      using U = typename std::make_unsigned<T>::type;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
    } else {
      using M = OpMathType<T>;
      return static_cast<T>(static_cast<M>(a) * static_cast<M>(b));
    }
  }
};

struct CombineMax {
  template <typename T>
  static TSGPU_HD T apply(T a, T b) {
    using M = OpMathType<T>;
    const M x = static_cast<M>(a), y = static_cast<M>(b);
    if (y != y) return b;  // NaN from src
    return x < y ? b : a;  // a NaN self compares false and stays
  }
};

struct CombineMin {
  template <typename T>
  static TSGPU_HD T apply(T a, T b) {
    using M = OpMathType<T>;
    const M x = static_cast<M>(a), y = static_cast<M>(b);
    if (y != y) return b;
    return y < x ? b : a;
  }
};

#ifdef __CUDA_ARCH__
namespace detail {

template <typename To, typename From>
__device__ __forceinline__ To bitCast(From v) {
  static_assert(sizeof(To) == sizeof(From), "same size only");
  To out;
  memcpy(&out, &v, sizeof(To));
  return out;
}

/** The unsigned integer of a size: the word a compare-and-swap works on. */
template <int Bytes>
struct WordOf;
template <>
struct WordOf<1> { using type = uint8_t; };
template <>
struct WordOf<2> { using type = uint16_t; };
template <>
struct WordOf<4> { using type = unsigned int; };
template <>
struct WordOf<8> { using type = unsigned long long; };

}  // namespace detail

/**
 * Atomically replaces the element at p with f(current): a compare-and-swap
 * loop on the element itself (4 or 8 bytes) or on the aligned 32-bit word
 * that holds it (1 or 2 bytes; its neighbours in the word are kept).
 */
template <typename T, typename F>
__device__ void atomicUpdate(T* p, F f) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using W = typename detail::WordOf<sizeof(T)>::type;
    W* word = reinterpret_cast<W*>(p);
    W old = *word, assumed;
    do {
      assumed = old;
      const W next = detail::bitCast<W>(f(detail::bitCast<T>(assumed)));
      if (next == assumed) return;
      old = atomicCAS(word, assumed, next);
    } while (old != assumed);
  } else {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2, "elements of 1, 2, 4 or 8 bytes");
    using N = typename detail::WordOf<sizeof(T)>::type;
    const uintptr_t addr = reinterpret_cast<uintptr_t>(p);
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~uintptr_t(3));
    const unsigned int shift = static_cast<unsigned int>(addr & 3) * 8;
    const unsigned int mask = static_cast<unsigned int>(static_cast<N>(~N(0))) << shift;
    unsigned int old = *word, assumed;
    do {
      assumed = old;
      const T cur = detail::bitCast<T>(static_cast<N>((assumed & mask) >> shift));
      const unsigned int next = static_cast<unsigned int>(detail::bitCast<N>(f(cur))) << shift;
      const unsigned int merged = (assumed & ~mask) | (next & mask);
      if (merged == assumed) return;
      old = atomicCAS(word, assumed, merged);
    } while (old != assumed);
  }
}

/** f(current) = Op::apply(current, v), for atomicUpdate. */
template <typename Op, typename T>
struct CombineWith {
  T v;
  __device__ T operator()(T cur) const { return Op::template apply<T>(cur, v); }
};
#endif

/** *p += v: an atomic add on the device (hardware where CUDA has one), a plain one on the host. */
template <typename T>
TSGPU_HD void addAt(T* p, T v) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same<T, int64_t>::value) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else if constexpr (std::is_same<T, float>::value || std::is_same<T, double>::value ||
                       std::is_same<T, int32_t>::value) {
    atomicAdd(p, v);
  } else if constexpr (std::is_same<T, Half>::value) {
    atomicAdd(reinterpret_cast<__half*>(p), __ushort_as_half(v.bits));  // sm_70 and later
  } else if constexpr (std::is_same<T, BFloat16>::value) {
    atomicAdd(reinterpret_cast<__nv_bfloat16*>(p), __ushort_as_bfloat16(v.bits));  // sm_80 and later
  } else {
    atomicUpdate(p, CombineWith<CombineSum, T>{v});  // bool, int8, uint8, int16
  }
#else
  *p = CombineSum::apply(*p, v);
#endif
}

/** *p = Op::apply(*p, v): atomic on the device, plain on the host. */
template <typename Op, typename T>
TSGPU_HD void combineAt(T* p, T v) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same<Op, CombineSum>::value) {
    addAt(p, v);
  } else if constexpr (std::is_same<Op, CombineMax>::value && std::is_same<T, int32_t>::value) {
    atomicMax(p, v);
  } else if constexpr (std::is_same<Op, CombineMin>::value && std::is_same<T, int32_t>::value) {
    atomicMin(p, v);
  } else if constexpr (std::is_same<Op, CombineMax>::value && std::is_same<T, int64_t>::value) {
    atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v));
  } else if constexpr (std::is_same<Op, CombineMin>::value && std::is_same<T, int64_t>::value) {
    atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v));
  } else {
    atomicUpdate(p, CombineWith<Op, T>{v});
  }
#else
  *p = Op::template apply<T>(*p, v);
#endif
}

}  // namespace ops
}  // namespace tsgpu
