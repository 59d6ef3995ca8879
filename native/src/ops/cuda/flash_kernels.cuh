// The flash-attention kernels (FlashAttention-2's algorithm, written for this
// runtime): softmax(scale·q·kᵀ)·v computed tile by tile with an online
// softmax, so that no L×S matrix is ever written to memory. The forward keeps
// the log-sum-exp of every row (float32); the backward recomputes P tile by
// tile from q, k and it.
//
//   float16 / bfloat16: tensor cores (flash_mma.cuh), 4 warps a block, each
//     warp 16 query rows (forward) or 16 key rows (backward), head dims padded
//     to 32, 64 or 128 in shared memory (zero-filled).
//   float32 (and float64): one warp per row, keys one at a time (simple,
//     exact, not fast).
//
// Layouts: q [batch, L, D], k and v [batch, S, D] with any batch strides and
// row strides (last dim contiguous); out, logsumexp, grad_out and the
// gradients contiguous. The tensor-core path needs 16-byte aligned rows
// (flash_attention.cu checks and falls back to the simple kernels).
// Causal masking is PyTorch's is_causal: key j is hidden from query i when j > i.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "ops/cuda/flash_mma.cuh"

namespace tsgpu {
namespace ops {
namespace cuda {
namespace flash {

constexpr int kMaxBatchDims = 6;  // attention::kFlashMaxBatchDims

/** Everything a flash kernel reads. */
struct Params {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  const void* out = nullptr;   // forward's out (read by the backward)
  void* outW = nullptr;        // forward: written
  float* lse = nullptr;        // [batch, L], natural log
  const void* dout = nullptr;  // backward: contiguous [batch, L, D]
  void* dq = nullptr;
  void* dk = nullptr;
  void* dv = nullptr;
  float* dqAcc = nullptr;  // [batch, L, D] float32, zeroed by the caller
  float* delta = nullptr;  // [batch, L]: rowsum(dout ∘ out)
  int batch = 0, L = 0, S = 0, D = 0;
  int nbd = 0;                        // batch dims (outermost first)
  int64_t bsizes[kMaxBatchDims] = {};
  int64_t qB[kMaxBatchDims] = {}, kB[kMaxBatchDims] = {}, vB[kMaxBatchDims] = {};
  int64_t qRow = 0, kRow = 0, vRow = 0;
  float scale = 1.f;
  float scaleLog2 = 1.f;  // scale · log2(e)
  double scaleExact = 1.0;  // the scale as given (the simple kernels multiply by it in their own precision)
  bool causal = false;
};

/** Element offset of flattened batch index b in a tensor with batch strides st. */
__device__ __forceinline__ int64_t batchOffset(const Params& p, const int64_t* st, int64_t b) {
  int64_t off = 0;
  for (int d = p.nbd - 1; d >= 0; --d) {
    const int64_t sz = p.bsizes[d];
    off += (b % sz) * st[d];
    b /= sz;
  }
  return off;
}

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr int kWarps = 4;
constexpr int kBN = 64;  // keys a tile

/**
 * Loads rows [r0, r0+rows) of a [*, D] 16-bit tensor (row stride `stride`, rows below `limit` valid,
 * dims below `dreal` valid) into shared memory tile [rows][DP+8], zero-filling the rest.
 */
template <int DP, int ROWS>
__device__ __forceinline__ void loadTile(uint16_t* tile, const uint16_t* base, int64_t stride, int r0, int limit,
                                         int dreal) {
  constexpr int kChunks = DP / 8;
  for (int c = threadIdx.x; c < ROWS * kChunks; c += kWarps * 32) {
    const int r = c / kChunks, d = (c % kChunks) * 8;
    const bool valid = r0 + r < limit && d < dreal;
    const uint16_t* src = valid ? base + static_cast<int64_t>(r0 + r) * stride + d : base;
    cpAsync16(tile + r * (DP + 8) + d, src, valid);
  }
}

// ---------------------------------------------------------------- forward, tensor cores

template <typename T, int DP>
__global__ void __launch_bounds__(kWarps * 32) flashForwardMma(Params p) {
  constexpr int BM = 16 * kWarps, LD = DP + 8;
  extern __shared__ __align__(16) uint16_t smem[];
  uint16_t* sQ = smem;
  uint16_t* sK = sQ + BM * LD;  // [2][kBN][LD]
  uint16_t* sV = sK + 2 * kBN * LD;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t b = blockIdx.y;
  const int m0 = blockIdx.x * BM;
  const uint16_t* q = static_cast<const uint16_t*>(p.q) + batchOffset(p, p.qB, b);
  const uint16_t* k = static_cast<const uint16_t*>(p.k) + batchOffset(p, p.kB, b);
  const uint16_t* v = static_cast<const uint16_t*>(p.v) + batchOffset(p, p.vB, b);
  int nTiles = (p.S + kBN - 1) / kBN;
  if (p.causal) {
    const int last = min(p.S, m0 + BM);  // keys beyond the block's last query are hidden
    nTiles = min(nTiles, (last + kBN - 1) / kBN);
  }
  loadTile<DP, BM>(sQ, q, p.qRow, m0, p.L, p.D);
  if (nTiles > 0) {
    loadTile<DP, kBN>(sK, k, p.kRow, 0, p.S, p.D);
    loadTile<DP, kBN>(sV, v, p.vRow, 0, p.S, p.D);
  }
  cpAsyncCommit();
  cpAsyncWait<0>();
  __syncthreads();

  uint32_t qf[DP / 16][4];
#pragma unroll
  for (int kc = 0; kc < DP / 16; ++kc) ldsm4(qf[kc], sQ + (warp * 16 + lane % 16) * LD + kc * 16 + (lane / 16) * 8);

  float o[DP / 8][4];
#pragma unroll
  for (int dc = 0; dc < DP / 8; ++dc) o[dc][0] = o[dc][1] = o[dc][2] = o[dc][3] = 0.f;
  float mRow[2] = {-INFINITY, -INFINITY}, lRow[2] = {0.f, 0.f};
  const int qi0 = m0 + warp * 16 + g;

  for (int j = 0; j < nTiles; ++j) {
    const int buf = j & 1;
    if (j + 1 < nTiles) {
      loadTile<DP, kBN>(sK + (buf ^ 1) * kBN * LD, k, p.kRow, (j + 1) * kBN, p.S, p.D);
      loadTile<DP, kBN>(sV + (buf ^ 1) * kBN * LD, v, p.vRow, (j + 1) * kBN, p.S, p.D);
    }
    cpAsyncCommit();
    const uint16_t* tK = sK + buf * kBN * LD;
    const uint16_t* tV = sV + buf * kBN * LD;
    float s[kBN / 8][4];
#pragma unroll
    for (int nc = 0; nc < kBN / 8; ++nc) s[nc][0] = s[nc][1] = s[nc][2] = s[nc][3] = 0.f;
#pragma unroll
    for (int kc = 0; kc < DP / 16; ++kc) {
#pragma unroll
      for (int np = 0; np < kBN / 16; ++np) {
        uint32_t r[4];
        ldsm4(r, tK + (np * 16 + lane % 8 + (lane / 16) * 8) * LD + kc * 16 + ((lane / 8) % 2) * 8);
        Mma<T>::run(s[2 * np], qf[kc], r[0], r[1]);
        Mma<T>::run(s[2 * np + 1], qf[kc], r[2], r[3]);
      }
    }
    const int n0 = j * kBN;
    const bool edge = n0 + kBN > p.S || (p.causal && n0 + kBN - 1 > m0 + warp * 16);
#pragma unroll
    for (int nc = 0; nc < kBN / 8; ++nc) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = s[nc][e] * p.scaleLog2;
        if (edge) {
          const int col = n0 + nc * 8 + t * 2 + (e & 1), row = qi0 + (e >= 2 ? 8 : 0);
          if (col >= p.S || (p.causal && col > row)) x = -INFINITY;
        }
        s[nc][e] = x;
      }
    }
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float mx = mRow[h];
#pragma unroll
      for (int nc = 0; nc < kBN / 8; ++nc) mx = fmaxf(mx, fmaxf(s[nc][2 * h], s[nc][2 * h + 1]));
      mx = quadMax(mx);
      const float ref = mx == -INFINITY ? 0.f : mx;
      const float alpha = exp2f(mRow[h] - ref);
      float sum = 0.f;
#pragma unroll
      for (int nc = 0; nc < kBN / 8; ++nc) {
        s[nc][2 * h] = exp2f(s[nc][2 * h] - ref);
        s[nc][2 * h + 1] = exp2f(s[nc][2 * h + 1] - ref);
        sum += s[nc][2 * h] + s[nc][2 * h + 1];
      }
      lRow[h] = lRow[h] * alpha + sum;
      mRow[h] = mx;
#pragma unroll
      for (int dc = 0; dc < DP / 8; ++dc) {
        o[dc][2 * h] *= alpha;
        o[dc][2 * h + 1] *= alpha;
      }
    }
#pragma unroll
    for (int kk = 0; kk < kBN / 16; ++kk) {
      const uint32_t a[4] = {Mma<T>::pack(s[2 * kk][0], s[2 * kk][1]), Mma<T>::pack(s[2 * kk][2], s[2 * kk][3]),
                             Mma<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                             Mma<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int dp = 0; dp < DP / 16; ++dp) {
        uint32_t r[4];
        ldsm4t(r, tV + (kk * 16 + lane % 16) * LD + dp * 16 + (lane / 16) * 8);
        Mma<T>::run(o[2 * dp], a, r[0], r[1]);
        Mma<T>::run(o[2 * dp + 1], a, r[2], r[3]);
      }
    }
    cpAsyncWait<0>();
    __syncthreads();
  }

  uint16_t* out = static_cast<uint16_t*>(p.outW) + b * p.L * p.D;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float l = quadSum(lRow[h]);
    const int row = qi0 + 8 * h;
    if (row >= p.L) continue;
    const float inv = l > 0.f ? 1.f / l : 0.f;
#pragma unroll
    for (int dc = 0; dc < DP / 8; ++dc) {
      const int col = dc * 8 + t * 2;
      if (col < p.D)
        *reinterpret_cast<uint32_t*>(out + static_cast<int64_t>(row) * p.D + col) =
            Mma<T>::pack(o[dc][2 * h] * inv, o[dc][2 * h + 1] * inv);
    }
    if (t == 0) p.lse[b * p.L + row] = l > 0.f ? (mRow[h] + log2f(l)) * kLn2 : -INFINITY;
  }
}

// ---------------------------------------------------------------- backward, tensor cores

/** delta[b, i] = Σ_d dout[b, i, d] · out[b, i, d] (float32), one warp per row. */
template <typename T>
__global__ void flashDelta(Params p) {
  const int64_t rows = static_cast<int64_t>(p.batch) * p.L;
  const int lane = threadIdx.x % 32;
  for (int64_t r = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x / 32) {
    const T* o = static_cast<const T*>(p.out) + r * p.D;
    const T* d = static_cast<const T*>(p.dout) + r * p.D;
    float acc = 0.f;
    for (int c = lane; c < p.D; c += 32) acc += static_cast<float>(o[c]) * static_cast<float>(d[c]);
    for (int s = 16; s > 0; s >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, s);
    if (lane == 0) p.delta[r] = acc;
  }
}

template <typename T, int DP, int BM>
__global__ void __launch_bounds__(kWarps * 32) flashBackwardMma(Params p) {
  constexpr int LD = DP + 8, LDS = BM + 8;
  constexpr int kMT = BM / 16, kDS = kWarps / kMT, DW = DP / kDS;  // dQ: m-tiles × column splits over the warps
  extern __shared__ __align__(16) uint16_t smem[];
  uint16_t* sK = smem;
  uint16_t* sV = sK + kBN * LD;
  uint16_t* sQ = sV + kBN * LD;
  uint16_t* sO = sQ + BM * LD;  // grad_out
  uint16_t* sS = sO + BM * LD;  // dSᵀ [kBN][LDS]
  float* sLse = reinterpret_cast<float*>(sS + kBN * LDS);
  float* sDelta = sLse + BM;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int64_t b = blockIdx.y;
  const int n0 = blockIdx.x * kBN;
  const uint16_t* q = static_cast<const uint16_t*>(p.q) + batchOffset(p, p.qB, b);
  const uint16_t* k = static_cast<const uint16_t*>(p.k) + batchOffset(p, p.kB, b);
  const uint16_t* v = static_cast<const uint16_t*>(p.v) + batchOffset(p, p.vB, b);
  const uint16_t* dout = static_cast<const uint16_t*>(p.dout) + b * p.L * p.D;
  const float* lse = p.lse + b * p.L;
  const float* delta = p.delta + b * p.L;
  float* dqAcc = p.dqAcc + b * p.L * p.D;

  loadTile<DP, kBN>(sK, k, p.kRow, n0, p.S, p.D);
  loadTile<DP, kBN>(sV, v, p.vRow, n0, p.S, p.D);
  cpAsyncCommit();

  float dk[DP / 8][4], dv[DP / 8][4];
#pragma unroll
  for (int dc = 0; dc < DP / 8; ++dc)
#pragma unroll
    for (int e = 0; e < 4; ++e) dk[dc][e] = dv[dc][e] = 0.f;
  const int key0 = n0 + warp * 16 + g;  // this lane's key rows: key0, key0 + 8
  const int iStart = p.causal ? n0 / BM : 0;
  const int iEnd = (p.L + BM - 1) / BM;

  for (int i = iStart; i < iEnd; ++i) {
    const int m0 = i * BM;
    loadTile<DP, BM>(sQ, q, p.qRow, m0, p.L, p.D);
    loadTile<DP, BM>(sO, dout, p.D, m0, p.L, p.D);
    for (int r = threadIdx.x; r < BM; r += kWarps * 32) {
      const bool valid = m0 + r < p.L;
      sLse[r] = valid ? lse[m0 + r] * kLog2e : INFINITY;
      sDelta[r] = valid ? delta[m0 + r] : 0.f;
    }
    cpAsyncCommit();
    cpAsyncWait<0>();
    __syncthreads();

    // Sᵀ = K Qᵀ and dPᵀ = V dOᵀ for this warp's 16 keys × BM queries.
    float s[BM / 8][4], dpt[BM / 8][4];
#pragma unroll
    for (int c = 0; c < BM / 8; ++c)
#pragma unroll
      for (int e = 0; e < 4; ++e) s[c][e] = dpt[c][e] = 0.f;
#pragma unroll
    for (int kc = 0; kc < DP / 16; ++kc) {
      uint32_t ka[4], va[4];
      ldsm4(ka, sK + (warp * 16 + lane % 16) * LD + kc * 16 + (lane / 16) * 8);
      ldsm4(va, sV + (warp * 16 + lane % 16) * LD + kc * 16 + (lane / 16) * 8);
#pragma unroll
      for (int qp = 0; qp < BM / 16; ++qp) {
        uint32_t r[4];
        const int off = (qp * 16 + lane % 8 + (lane / 16) * 8) * LD + kc * 16 + ((lane / 8) % 2) * 8;
        ldsm4(r, sQ + off);
        Mma<T>::run(s[2 * qp], ka, r[0], r[1]);
        Mma<T>::run(s[2 * qp + 1], ka, r[2], r[3]);
        ldsm4(r, sO + off);
        Mma<T>::run(dpt[2 * qp], va, r[0], r[1]);
        Mma<T>::run(dpt[2 * qp + 1], va, r[2], r[3]);
      }
    }
    // Pᵀ (in s) and dSᵀ = Pᵀ ∘ (dPᵀ − delta) (in dpt).
#pragma unroll
    for (int c = 0; c < BM / 8; ++c) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int qc = c * 8 + t * 2 + (e & 1), key = key0 + (e >= 2 ? 8 : 0), query = m0 + qc;
        float pv = exp2f(s[c][e] * p.scaleLog2 - sLse[qc]);
        if (key >= p.S || query >= p.L || (p.causal && key > query)) pv = 0.f;
        s[c][e] = pv;
        dpt[c][e] = pv * (dpt[c][e] - sDelta[qc]);
      }
    }
    // dV += Pᵀ dO, dK += dSᵀ Q (scaled at the end); dSᵀ to shared memory for dQ.
#pragma unroll
    for (int kk = 0; kk < BM / 16; ++kk) {
      const uint32_t pa[4] = {Mma<T>::pack(s[2 * kk][0], s[2 * kk][1]), Mma<T>::pack(s[2 * kk][2], s[2 * kk][3]),
                              Mma<T>::pack(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                              Mma<T>::pack(s[2 * kk + 1][2], s[2 * kk + 1][3])};
      const uint32_t da[4] = {Mma<T>::pack(dpt[2 * kk][0], dpt[2 * kk][1]),
                              Mma<T>::pack(dpt[2 * kk][2], dpt[2 * kk][3]),
                              Mma<T>::pack(dpt[2 * kk + 1][0], dpt[2 * kk + 1][1]),
                              Mma<T>::pack(dpt[2 * kk + 1][2], dpt[2 * kk + 1][3])};
      uint16_t* srow = sS + (warp * 16 + g) * LDS + kk * 16 + t * 2;
      *reinterpret_cast<uint32_t*>(srow) = da[0];
      *reinterpret_cast<uint32_t*>(srow + 8 * LDS) = da[1];
      *reinterpret_cast<uint32_t*>(srow + 8) = da[2];
      *reinterpret_cast<uint32_t*>(srow + 8 * LDS + 8) = da[3];
#pragma unroll
      for (int dp = 0; dp < DP / 16; ++dp) {
        uint32_t r[4];
        const int off = (kk * 16 + lane % 16) * LD + dp * 16 + (lane / 16) * 8;
        ldsm4t(r, sO + off);
        Mma<T>::run(dv[2 * dp], pa, r[0], r[1]);
        Mma<T>::run(dv[2 * dp + 1], pa, r[2], r[3]);
        ldsm4t(r, sQ + off);
        Mma<T>::run(dk[2 * dp], da, r[0], r[1]);
        Mma<T>::run(dk[2 * dp + 1], da, r[2], r[3]);
      }
    }
    __syncthreads();
    // dQ (BM × DP) += dS K: warp (mt, ds) takes rows mt·16.. and columns ds·DW..; summed over key blocks atomically.
    {
      const int mt = warp % kMT, d0 = (warp / kMT) * DW;
      float dq[DW / 8][4];
#pragma unroll
      for (int dc = 0; dc < DW / 8; ++dc) dq[dc][0] = dq[dc][1] = dq[dc][2] = dq[dc][3] = 0.f;
#pragma unroll
      for (int kk = 0; kk < kBN / 16; ++kk) {
        uint32_t a[4];
        ldsm4t(a, sS + (kk * 16 + lane % 8 + (lane / 16) * 8) * LDS + mt * 16 + ((lane / 8) % 2) * 8);
#pragma unroll
        for (int dp = 0; dp < DW / 16; ++dp) {
          uint32_t r[4];
          ldsm4t(r, sK + (kk * 16 + lane % 16) * LD + d0 + dp * 16 + (lane / 16) * 8);
          Mma<T>::run(dq[2 * dp], a, r[0], r[1]);
          Mma<T>::run(dq[2 * dp + 1], a, r[2], r[3]);
        }
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0 + mt * 16 + g + 8 * h;
        if (row >= p.L) continue;
#pragma unroll
        for (int dc = 0; dc < DW / 8; ++dc) {
          const int col = d0 + dc * 8 + t * 2;
          if (col < p.D) {
            float* dst = dqAcc + static_cast<int64_t>(row) * p.D + col;
            atomicAdd(dst, dq[dc][2 * h]);
            atomicAdd(dst + 1, dq[dc][2 * h + 1]);
          }
        }
      }
    }
    __syncthreads();
  }
  cpAsyncWait<0>();  // K and V were never waited for when no query block sees this key block (causal, S > L)

  uint16_t* dkOut = static_cast<uint16_t*>(p.dk) + b * p.S * p.D;
  uint16_t* dvOut = static_cast<uint16_t*>(p.dv) + b * p.S * p.D;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = key0 + 8 * h;
    if (row >= p.S) continue;
#pragma unroll
    for (int dc = 0; dc < DP / 8; ++dc) {
      const int col = dc * 8 + t * 2;
      if (col >= p.D) continue;
      const int64_t off = static_cast<int64_t>(row) * p.D + col;
      *reinterpret_cast<uint32_t*>(dkOut + off) = Mma<T>::pack(dk[dc][2 * h] * p.scale, dk[dc][2 * h + 1] * p.scale);
      *reinterpret_cast<uint32_t*>(dvOut + off) = Mma<T>::pack(dv[dc][2 * h], dv[dc][2 * h + 1]);
    }
  }
}

/** dq = scale · dqAcc, cast to T. */
template <typename T>
__global__ void flashDqCast(Params p) {
  const int64_t n = static_cast<int64_t>(p.batch) * p.L * p.D;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    static_cast<T*>(p.dq)[i] = static_cast<T>(p.dqAcc[i] * p.scale);
}

// ---------------------------------------------------------------- simple kernels (float32, float64, unaligned)

/** One warp per query row: out and lse, keys one at a time (lanes split the head dim). */
template <typename T, typename A>
__global__ void flashForwardSimple(Params p) {
  constexpr int kPer = 4;  // head dims ≤ 128
  const int lane = threadIdx.x % 32;
  const int64_t rows = static_cast<int64_t>(p.batch) * p.L;
  for (int64_t r = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x / 32) {
    const int64_t b = r / p.L;
    const int i = static_cast<int>(r % p.L);
    const T* q = static_cast<const T*>(p.q) + batchOffset(p, p.qB, b) + static_cast<int64_t>(i) * p.qRow;
    const T* k = static_cast<const T*>(p.k) + batchOffset(p, p.kB, b);
    const T* v = static_cast<const T*>(p.v) + batchOffset(p, p.vB, b);
    A qr[kPer], o[kPer];
    for (int c = 0; c < kPer; ++c) {
      const int d = lane + 32 * c;
      qr[c] = d < p.D ? static_cast<A>(q[d]) : A(0);
      o[c] = 0;
    }
    A m = -INFINITY, l = 0;
    const int last = p.causal ? min(p.S, i + 1) : p.S;
    for (int j = 0; j < last; ++j) {
      const T* kr = k + static_cast<int64_t>(j) * p.kRow;
      A dot = 0;
      for (int c = 0; c < kPer; ++c) {
        const int d = lane + 32 * c;
        if (d < p.D) dot += qr[c] * static_cast<A>(kr[d]);
      }
      for (int s = 16; s > 0; s >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, s);
      const A x = dot * static_cast<A>(p.scaleExact);
      const A mNew = x > m ? x : m;
      const A alpha = exp(m - mNew), pj = exp(x - mNew);
      l = l * alpha + pj;
      const T* vr = v + static_cast<int64_t>(j) * p.vRow;
      for (int c = 0; c < kPer; ++c) {
        const int d = lane + 32 * c;
        o[c] = o[c] * alpha + (d < p.D ? pj * static_cast<A>(vr[d]) : A(0));
      }
      m = mNew;
    }
    T* out = static_cast<T*>(p.outW) + r * p.D;
    for (int c = 0; c < kPer; ++c) {
      const int d = lane + 32 * c;
      if (d < p.D) out[d] = static_cast<T>(l > 0 ? o[c] / l : A(0));
    }
    if (lane == 0) p.lse[r] = l > 0 ? static_cast<float>(m + log(l)) : -INFINITY;
  }
}

/**
 * The simple backward: with `keys`, one warp per key row j computes dk_j and dv_j over the queries; without,
 * one warp per query row i computes dq_i over the keys. P and dS are recomputed from q, k and lse, and
 * delta_i = dO_i·O_i with each pair (the work doubles; the simple path is for exactness, not speed).
 */
template <typename T, typename A, bool kKeys>
__global__ void flashBackwardSimple(Params p) {
  constexpr int kPer = 4;
  const int lane = threadIdx.x % 32;
  const int n = kKeys ? p.S : p.L;
  const int64_t rows = static_cast<int64_t>(p.batch) * n;
  for (int64_t r = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x / 32) {
    const int64_t b = r / n;
    const int x = static_cast<int>(r % n);
    const T* q = static_cast<const T*>(p.q) + batchOffset(p, p.qB, b);
    const T* k = static_cast<const T*>(p.k) + batchOffset(p, p.kB, b);
    const T* v = static_cast<const T*>(p.v) + batchOffset(p, p.vB, b);
    const T* dout = static_cast<const T*>(p.dout) + b * p.L * p.D;
    A own[kPer], ownV[kPer], acc[kPer], acc2[kPer];
    const T* ownRow = kKeys ? k + static_cast<int64_t>(x) * p.kRow : q + static_cast<int64_t>(x) * p.qRow;
    const T* ownVRow = kKeys ? v + static_cast<int64_t>(x) * p.vRow : dout + static_cast<int64_t>(x) * p.D;
    for (int c = 0; c < kPer; ++c) {
      const int d = lane + 32 * c;
      own[c] = d < p.D ? static_cast<A>(ownRow[d]) : A(0);
      ownV[c] = d < p.D ? static_cast<A>(ownVRow[d]) : A(0);
      acc[c] = acc2[c] = 0;
    }
    const int from = kKeys && p.causal ? x : 0;
    const int to = kKeys ? p.L : (p.causal ? min(p.S, x + 1) : p.S);
    for (int y = from; y < to; ++y) {
      // (i, j) = (y, x) with keys, (x, y) without.
      const int i = kKeys ? y : x;
      const T* other = kKeys ? q + static_cast<int64_t>(y) * p.qRow : k + static_cast<int64_t>(y) * p.kRow;
      const T* otherV = kKeys ? dout + static_cast<int64_t>(y) * p.D : v + static_cast<int64_t>(y) * p.vRow;
      // delta_i = dO_i·O_i, in A (the float64 gradients then equal the CPU's).
      const T* oi = static_cast<const T*>(p.out) + (b * p.L + i) * p.D;
      const T* gi = dout + static_cast<int64_t>(i) * p.D;  // dout already points at batch entry b
      A dot = 0, dpv = 0, delta = 0;
      for (int c = 0; c < kPer; ++c) {
        const int d = lane + 32 * c;
        if (d < p.D) {
          dot += own[c] * static_cast<A>(other[d]);
          dpv += ownV[c] * static_cast<A>(otherV[d]);
          delta += static_cast<A>(gi[d]) * static_cast<A>(oi[d]);
        }
      }
      for (int s = 16; s > 0; s >>= 1) {
        dot += __shfl_xor_sync(0xffffffffu, dot, s);
        dpv += __shfl_xor_sync(0xffffffffu, dpv, s);
        delta += __shfl_xor_sync(0xffffffffu, delta, s);
      }
      const A pij = exp(dot * static_cast<A>(p.scaleExact) - static_cast<A>(p.lse[b * p.L + i]));
      const A ds = pij * (dpv - delta);
      for (int c = 0; c < kPer; ++c) {
        const int d = lane + 32 * c;
        if (d >= p.D) continue;
        if (kKeys) {
          acc[c] += ds * static_cast<A>(other[d]);   // dk_j += dS_ij q_i
          acc2[c] += pij * static_cast<A>(otherV[d]);  // dv_j += P_ij dO_i
        } else {
          acc[c] += ds * static_cast<A>(other[d]);  // dq_i += dS_ij k_j
        }
      }
    }
    for (int c = 0; c < kPer; ++c) {
      const int d = lane + 32 * c;
      if (d >= p.D) continue;
      const A sc = static_cast<A>(p.scaleExact);
      if (kKeys) {
        static_cast<T*>(p.dk)[r * p.D + d] = static_cast<T>(acc[c] * sc);
        static_cast<T*>(p.dv)[r * p.D + d] = static_cast<T>(acc2[c]);
      } else {
        static_cast<T*>(p.dq)[r * p.D + d] = static_cast<T>(acc[c] * sc);
      }
    }
  }
}

}  // namespace flash
}  // namespace cuda
}  // namespace ops
}  // namespace tsgpu
