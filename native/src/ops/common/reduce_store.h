// What a reduction writes per output element: the reducer's result, its
// index (argmax / argmin), or both (max / min along a dim: values and indices).
#pragma once

namespace tsgpu {
namespace ops {

enum class ReduceStore { kValue, kIndex, kValueAndIndex };

}  // namespace ops
}  // namespace tsgpu
