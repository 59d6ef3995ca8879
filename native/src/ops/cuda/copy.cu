// copy on CUDA: out <- src with dtype conversion and any strides, queued on
// the call's stream:
//  - both contiguous, one dtype: a device-to-device memcpy;
//  - both contiguous (a cast): a flat kernel, several elements a thread;
//  - one dtype where one operand runs contiguously along a dim and the other
//    along another (a transpose, batched or not, as t().contiguous() makes):
//    32x32 tiles through shared memory, so that reads and writes are both
//    coalesced;
//  - otherwise each element's two offsets come from one OffsetCalc over the
//    merged dims (a multiply-high per dim instead of a division);
//  - a copy between different shapes of one element count (row-major pairing)
//    or of 2^31 elements or more, strided: 64-bit index math per element.
#include "ops/common/offset_calc.h"
#include "ops/common/operands.h"
#include "ops/copy_args.h"
#include "ops/cuda/launch.cuh"
#include "ops/view_index.h"

namespace tsgpu {
namespace {

using ops::IterPlan;
using ops::OffsetCalc;
using ops::cuda::checkLaunch;
using ops::cuda::gridFor;
using ops::cuda::kBlockThreads;

/** The unsigned integer type of `Bytes` bytes: same-dtype copies move bits. */
template <int Bytes>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = uint8_t;
};
template <>
struct BitsOf<2> {
  using type = uint16_t;
};
template <>
struct BitsOf<4> {
  using type = uint32_t;
};
template <>
struct BitsOf<8> {
  using type = uint64_t;
};

/** Calls f(U{}) with U the unsigned type of `bytes` bytes (1, 2, 4 or 8). */
template <typename F>
void visitBits(size_t bytes, F&& f) {
  switch (bytes) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

template <typename To, typename From>
__global__ void viewCopyKernel(TensorView out, TensorView src, int64_t n, bool outDense, bool srcDense) {
  To* o = out.data<To>();
  const From* s = src.data<From>();
  TSGPU_GRID_STRIDE(i, n) {
    const int64_t so = srcDense ? i : viewindex::offsetOf(src, i);
    const int64_t oo = outDense ? i : viewindex::offsetOf(out, i);
    o[oo] = castValue<To>(s[so]);
  }
}

template <typename To, typename From>
__global__ void stridedCopyKernel(To* o, const From* s, uint32_t n, OffsetCalc<2, uint32_t> calc) {
  TSGPU_GRID_STRIDE(i, n) {
    int64_t off[2];
    calc.get(static_cast<uint32_t>(i), off);
    o[off[0]] = castValue<To>(s[off[1]]);
  }
}

constexpr int kDenseUnroll = 4;  // elements a thread converts per pass, all loaded before any is stored

/** Both contiguous (a cast): kDenseUnroll elements a thread, a block width apart, loads before stores. */
template <typename To, typename From>
__global__ void denseCopyKernel(To* o, const From* s, int64_t n) {
  const int64_t width = blockDim.x;
  const int64_t step = static_cast<int64_t>(gridDim.x) * width * kDenseUnroll;
  for (int64_t base = blockIdx.x * width * kDenseUnroll + threadIdx.x; base < n; base += step) {
    To r[kDenseUnroll];
#pragma unroll
    for (int j = 0; j < kDenseUnroll; ++j)
      if (base + j * width < n) r[j] = castValue<To>(s[base + j * width]);
#pragma unroll
    for (int j = 0; j < kDenseUnroll; ++j)
      if (base + j * width < n) o[base + j * width] = r[j];
  }
}

constexpr int kTile = 32;     // a tile is kTile x kTile elements
constexpr int kTileRows = 8;  // a block is kTile x kTileRows threads; each moves kTile / kTileRows elements

/**
 * A transpose: src is contiguous along `rows`, out along `cols`. The element
 * (r, c) of batch b is src[srcBatch + r + c * srcColStride] and
 * out[outBatch + r * outRowStride + c].
 */
struct TileIo {
  int64_t rows, cols, srcColStride, outRowStride;
  uint32_t tilesC, batch;
};

template <typename U>
__global__ void transposeTilesKernel(U* o, const U* s, TileIo io, OffsetCalc<2, uint32_t> batch) {
  __shared__ U tile[kTile][kTile + 1];  // +1: the column reads of the store hit distinct banks
  const int64_t c0 = static_cast<int64_t>(blockIdx.x % io.tilesC) * kTile;
  const int64_t r0 = static_cast<int64_t>(blockIdx.x / io.tilesC) * kTile;
  for (uint32_t b = blockIdx.y; b < io.batch; b += gridDim.y) {
    int64_t off[2];
    batch.get(b, off);
    const U* sb = s + off[1];
    U* ob = o + off[0];
    const int64_t r = r0 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < kTile; k += kTileRows) {  // threads along the rows: src reads are coalesced
      const int64_t c = c0 + threadIdx.y + k;
      if (r < io.rows && c < io.cols) tile[threadIdx.y + k][threadIdx.x] = sb[r + c * io.srcColStride];
    }
    __syncthreads();
    const int64_t c = c0 + threadIdx.x;
#pragma unroll
    for (int k = 0; k < kTile; k += kTileRows) {  // threads along the columns: out writes are coalesced
      const int64_t rr = r0 + threadIdx.y + k;
      if (rr < io.rows && c < io.cols) ob[rr * io.outRowStride + c] = tile[threadIdx.x][threadIdx.y + k];
    }
    __syncthreads();
  }
}

/** The plan of dims [2, ndim) of `p` (the batch of a transpose of dims 0 and 1). */
IterPlan batchPlan(const IterPlan& p) {
  IterPlan b;
  b.numOperands = p.numOperands;
  b.ndim = p.ndim - 2;
  for (int d = 2; d < p.ndim; ++d) {
    b.sizes[d - 2] = p.sizes[d];
    b.numel *= p.sizes[d];
    for (int k = 0; k < p.numOperands; ++k) b.strides[k][d - 2] = p.strides[k][d];
  }
  return b;
}

/**
 * Queues the tiled transpose when plan dims 0 and 1 are the contiguous dims of
 * the two operands (one each); returns false when the plan is not one.
 */
bool launchTransposeTiles(const OpCall& call, const IterPlan& p, void* out, const void* src, size_t bytes) {
  if (p.ndim < 2 || !ops::fitsIndex32(p)) return false;
  int colDim, rowDim;  // out is contiguous along colDim, src along rowDim
  if (p.strides[0][0] == 1 && p.strides[1][1] == 1) colDim = 0, rowDim = 1;
  else if (p.strides[0][1] == 1 && p.strides[1][0] == 1) colDim = 1, rowDim = 0;
  else return false;
  if (p.sizes[0] < kTile / 2 || p.sizes[1] < kTile / 2) return false;  // thin: the plain path does as well
  TileIo io;
  io.rows = p.sizes[rowDim];
  io.cols = p.sizes[colDim];
  io.srcColStride = p.strides[1][colDim];
  io.outRowStride = p.strides[0][rowDim];
  const IterPlan b = batchPlan(p);
  io.batch = static_cast<uint32_t>(b.numel);
  io.tilesC = static_cast<uint32_t>((io.cols + kTile - 1) / kTile);
  const int64_t tiles = io.tilesC * ((io.rows + kTile - 1) / kTile);
  const dim3 grid(static_cast<unsigned>(tiles), io.batch < 65535 ? io.batch : 65535);
  const dim3 block(kTile, kTileRows);
  visitBits(bytes, [&](auto tag) {
    using U = decltype(tag);
    transposeTilesKernel<U><<<grid, block, 0, ops::cuda::streamOf(call)>>>(
        static_cast<U*>(out), static_cast<const U*>(src), io, OffsetCalc<2, uint32_t>(b));
  });
  return true;
}

void copyCuda(OpCall& call) {
  checkCopyArgs(call);
  TensorView& out = call.out(0);
  const TensorView& src = call.in(0);
  const int64_t n = out.numel();
  if (n == 0) return;
  cudaStream_t stream = ops::cuda::streamOf(call);
  const bool sameDtype = out.dtype == src.dtype;
  if (sameDtype && out.isContiguous() && src.isContiguous()) {
    TSGPU_CUDA_CHECK(cudaMemcpyAsync(out.data(), src.data(), static_cast<size_t>(n) * out.elementSize(),
                                     cudaMemcpyDeviceToDevice, stream));
    return;
  }
  const bool dense = out.isContiguous() && src.isContiguous();
  const bool sameShape = ops::sizesOf(out) == ops::sizesOf(src);
  IterPlan plan;
  if (!dense && sameShape) plan = ops::makeIterPlan(ops::sizesOf(out), {ops::stridesOf(out), ops::stridesOf(src)});
  const bool planned = !dense && sameShape && ops::fitsIndex32(plan);
  if (planned && sameDtype) {
    if (!launchTransposeTiles(call, plan, out.data(), src.data(), out.elementSize())) {
      visitBits(out.elementSize(), [&](auto tag) {
        using U = decltype(tag);
        stridedCopyKernel<U, U><<<gridFor(n), kBlockThreads, 0, stream>>>(
            static_cast<U*>(out.data()), static_cast<const U*>(src.data()), static_cast<uint32_t>(n),
            OffsetCalc<2, uint32_t>(plan));
      });
    }
    checkLaunch(call);
    return;
  }
  visitDType(out.dtype, [&](auto to) {
    visitDType(src.dtype, [&](auto from) {
      using To = decltype(to);
      using From = decltype(from);
      if (dense) {
        denseCopyKernel<To, From><<<gridFor(n, kDenseUnroll, 65536), kBlockThreads, 0, stream>>>(out.data<To>(),
                                                                                           src.data<From>(), n);
      } else if (planned) {
        stridedCopyKernel<To, From><<<gridFor(n), kBlockThreads, 0, stream>>>(
            out.data<To>(), src.data<From>(), static_cast<uint32_t>(n), OffsetCalc<2, uint32_t>(plan));
      } else {
        viewCopyKernel<To, From><<<gridFor(n), kBlockThreads, 0, stream>>>(out, src, n, out.isContiguous(),
                                                                          src.isContiguous());
      }
    });
  });
  checkLaunch(call);
}

}  // namespace

TSGPU_REGISTER_KERNEL(copy, kCuda, copyCuda);

}  // namespace tsgpu
