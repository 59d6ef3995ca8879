// The example kernel of the contract on CUDA: `add`, any numeric dtype, any
// strides, broadcasting; a number for `other` arrives as a kernel argument
// (it lives on the host). Queued on call.stream, never synchronized.
#include <cuda_runtime.h>

#include "backends/cuda/cuda_check.h"
#include "ops/example_add.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

template <typename T>
__global__ void addKernel(TensorView out, TensorView a, TensorView b, example::Strides sa, example::Strides sb,
                          bool bScalar, OpMathType<T> bValue, OpMathType<T> alpha, int64_t n) {
  using M = OpMathType<T>;
  T* o = out.data<T>();
  const T* pa = a.data<T>();
  const T* pb = bScalar ? nullptr : b.data<T>();
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int64_t oo = 0, oa = 0, ob = 0;
    example::offsets(out, i, sa, sb, &oo, &oa, &ob);
    const M x = static_cast<M>(pa[oa]);
    const M y = bScalar ? bValue : static_cast<M>(pb[ob]);
    o[oo] = static_cast<T>(x + alpha * y);
  }
}

template <typename T>
void addTyped(OpCall& call) {
  using M = OpMathType<T>;
  TensorView& out = call.out(0);
  const bool bScalar = call.isScalar(1);
  TensorView b = bScalar ? out : call.in(1);
  example::Strides sa = example::broadcastStrides(call.in(0), out);
  example::Strides sb = bScalar ? example::Strides() : example::broadcastStrides(b, out);
  const int64_t n = out.numel();
  if (n == 0) return;
  const int threads = 256;
  const int64_t blocks64 = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(blocks64 < 65536 ? blocks64 : 65536);
  addKernel<T><<<blocks, threads, 0, static_cast<cudaStream_t>(call.stream)>>>(
      out, call.in(0), b, sa, sb, bScalar, static_cast<M>(call.scalar(1)), static_cast<M>(call.attrDouble("alpha")), n);
  TSGPU_CUDA_CHECK(cudaGetLastError());
}

void addCuda(OpCall& call) {
  switch (call.out(0).dtype) {
#define TSGPU_ADD_CASE(Name, name, code, CppT, bytes, kind, sgn) \
  case DType::k##Name:                                             \
    return addTyped<CppT>(call);
    TSGPU_FOR_EACH_DTYPE(TSGPU_ADD_CASE)
#undef TSGPU_ADD_CASE
  }
}

}  // namespace

TSGPU_REGISTER_KERNEL(add, kCuda, addCuda);

}  // namespace tsgpu
