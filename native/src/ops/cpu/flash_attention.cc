// The ops `flashAttention` and `flashAttentionBackward` on the CPU: the same
// results as the CUDA kernels (out, the float32 log-sum-exp of each row, and
// the gradients recomputed from it), computed row by row in the dtype's math
// type with one row of S scores at a time — memory linear in the sequence.
// The TypeScript scaledDotProductAttention keeps the `attention` op on the
// CPU; these kernels are the reference the CUDA ones are tested against and
// what gradcheck runs on (float64).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "base/dtype.h"
#include "ops/common/flash_shape.h"
#include "runtime/op_registry.h"

namespace tsgpu {
namespace {

using attention::FlashShape;

template <typename T>
void forwardRows(OpCall& call, const FlashShape& s, double scale, bool causal) {
  using M = OpMathType<T>;
  const T* q = call.in(0).data<T>();
  const T* k = call.in(1).data<T>();
  const T* v = call.in(2).data<T>();
  T* out = call.out(0).data<T>();
  float* lse = call.out(1).data<float>();
  std::vector<M> p(static_cast<size_t>(s.S)), o(static_cast<size_t>(s.D));
  for (int64_t b = 0; b < s.batch; ++b) {
    const T* qb = q + s.offset(s.qB, b);
    const T* kb = k + s.offset(s.kB, b);
    const T* vb = v + s.offset(s.vB, b);
    for (int i = 0; i < s.L; ++i) {
      const T* qi = qb + i * s.qRow;
      const int last = causal ? std::min(s.S, i + 1) : s.S;
      M mx = -std::numeric_limits<M>::infinity();
      for (int j = 0; j < last; ++j) {
        const T* kj = kb + j * s.kRow;
        M dot = 0;
        for (int d = 0; d < s.D; ++d) dot += static_cast<M>(qi[d]) * static_cast<M>(kj[d]);
        p[j] = dot * static_cast<M>(scale);
        mx = std::max(mx, p[j]);
      }
      M sum = 0;
      std::fill(o.begin(), o.end(), M(0));
      for (int j = 0; j < last; ++j) {
        p[j] = std::exp(p[j] - mx);
        sum += p[j];
        const T* vj = vb + j * s.vRow;
        for (int d = 0; d < s.D; ++d) o[d] += p[j] * static_cast<M>(vj[d]);
      }
      T* oi = out + (b * s.L + i) * s.D;
      for (int d = 0; d < s.D; ++d) oi[d] = static_cast<T>(sum > 0 ? o[d] / sum : M(0));
      lse[b * s.L + i] = sum > 0 ? static_cast<float>(mx + std::log(sum)) : -std::numeric_limits<float>::infinity();
    }
    call.checkInterrupt();
  }
}

void flashAttentionCpu(OpCall& call) {
  const TensorView &q = call.in(0), &k = call.in(1), &v = call.in(2);
  const FlashShape s = attention::flashShape(call, q, k, v);
  attention::checkFlashOutputs(call, s, q, call.out(0), call.out(1));
  const double scale = call.attrDouble("scale");
  const bool causal = call.attrBool("causal");
  switch (q.dtype) {
    case DType::kFloat32: forwardRows<float>(call, s, scale, causal); break;
    case DType::kFloat64: forwardRows<double>(call, s, scale, causal); break;
    case DType::kFloat16: forwardRows<Half>(call, s, scale, causal); break;
    case DType::kBFloat16: forwardRows<BFloat16>(call, s, scale, causal); break;
    default: attention::flashFail(call, std::string("dtype ") + dtypeName(q.dtype) + " is not supported");
  }
}

/**
 * dS_ij = P_ij (dO_i·v_j − Δ_i) with P_ij = exp(scale q_i·k_j − lse_i) and Δ_i = dO_i·O_i;
 * dq_i = scale Σ_j dS_ij k_j, dk_j = scale Σ_i dS_ij q_i, dv_j = Σ_i P_ij dO_i.
 */
template <typename T>
void backwardRows(OpCall& call, const FlashShape& s, double scale, bool causal) {
  using M = OpMathType<T>;
  const T* gout = call.in(0).data<T>();
  const T* q = call.in(1).data<T>();
  const T* k = call.in(2).data<T>();
  const T* v = call.in(3).data<T>();
  const T* out = call.in(4).data<T>();
  const float* lse = call.in(5).data<float>();
  T* dq = call.out(0).data<T>();
  T* dk = call.out(1).data<T>();
  T* dv = call.out(2).data<T>();
  const size_t kv = static_cast<size_t>(s.S) * s.D;
  std::vector<M> dkAcc(kv), dvAcc(kv), dqRow(static_cast<size_t>(s.D));
  const M sc = static_cast<M>(scale);
  for (int64_t b = 0; b < s.batch; ++b) {
    const T* qb = q + s.offset(s.qB, b);
    const T* kb = k + s.offset(s.kB, b);
    const T* vb = v + s.offset(s.vB, b);
    std::fill(dkAcc.begin(), dkAcc.end(), M(0));
    std::fill(dvAcc.begin(), dvAcc.end(), M(0));
    for (int i = 0; i < s.L; ++i) {
      const int64_t row = b * s.L + i;
      const T* qi = qb + i * s.qRow;
      const T* gi = gout + row * s.D;
      const T* oi = out + row * s.D;
      M delta = 0;
      for (int d = 0; d < s.D; ++d) delta += static_cast<M>(gi[d]) * static_cast<M>(oi[d]);
      std::fill(dqRow.begin(), dqRow.end(), M(0));
      const int last = causal ? std::min(s.S, i + 1) : s.S;
      for (int j = 0; j < last; ++j) {
        const T* kj = kb + j * s.kRow;
        const T* vj = vb + j * s.vRow;
        M dot = 0, dp = 0;
        for (int d = 0; d < s.D; ++d) {
          dot += static_cast<M>(qi[d]) * static_cast<M>(kj[d]);
          dp += static_cast<M>(gi[d]) * static_cast<M>(vj[d]);
        }
        const M pij = std::exp(dot * sc - static_cast<M>(lse[row]));
        const M ds = pij * (dp - delta);
        M* dkj = dkAcc.data() + static_cast<size_t>(j) * s.D;
        M* dvj = dvAcc.data() + static_cast<size_t>(j) * s.D;
        for (int d = 0; d < s.D; ++d) {
          dqRow[d] += ds * static_cast<M>(kj[d]);
          dkj[d] += ds * static_cast<M>(qi[d]);
          dvj[d] += pij * static_cast<M>(gi[d]);
        }
      }
      for (int d = 0; d < s.D; ++d) dq[row * s.D + d] = static_cast<T>(dqRow[d] * sc);
    }
    for (size_t e = 0; e < kv; ++e) {
      dk[b * static_cast<int64_t>(kv) + e] = static_cast<T>(dkAcc[e] * sc);
      dv[b * static_cast<int64_t>(kv) + e] = static_cast<T>(dvAcc[e]);
    }
    call.checkInterrupt();
  }
}

void flashAttentionBackwardCpu(OpCall& call) {
  const TensorView &q = call.in(1), &k = call.in(2), &v = call.in(3);
  const FlashShape s = attention::flashShape(call, q, k, v);
  attention::checkFlashBackward(call, s, q);
  const double scale = call.attrDouble("scale");
  const bool causal = call.attrBool("causal");
  switch (q.dtype) {
    case DType::kFloat32: backwardRows<float>(call, s, scale, causal); break;
    case DType::kFloat64: backwardRows<double>(call, s, scale, causal); break;
    case DType::kFloat16: backwardRows<Half>(call, s, scale, causal); break;
    case DType::kBFloat16: backwardRows<BFloat16>(call, s, scale, causal); break;
    default: attention::flashFail(call, std::string("dtype ") + dtypeName(q.dtype) + " is not supported");
  }
}

}  // namespace

TSGPU_REGISTER_KERNEL(flashAttention, kCpu, flashAttentionCpu);
TSGPU_REGISTER_KERNEL(flashAttentionBackward, kCpu, flashAttentionBackwardCpu);

}  // namespace tsgpu
