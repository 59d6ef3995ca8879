/**
 * The ops autocast casts for (policy.ts), as the torch namespace exports them:
 * each function of the op layer with autocast's casting in front, and the
 * Tensor methods of the same names patched the same way. With no autocast
 * region open, the cost is one check.
 */
import * as linalg from '../ops/linalg';
import * as reduce from '../ops/reduce';
import * as losses from '../ops/losses';
import * as nnf from '../ops/nn_functional';
import * as conv from '../ops/conv';
import * as bn from '../ops/batch_norm';
import * as math from '../ops/math';
import * as unary from '../generated/unary_ops';
import { Tensor } from '../tensor';
import { autocastFunction, autocastMethod } from './autocast';
import { AUTOCAST_OPS } from './policy';

/** Matrix product with PyTorch's matmul rules: 1-D operands gain and lose a dim; batch dims broadcast. */
export const matmul = autocastFunction('matmul', linalg.matmul);
/** self [n, m] @ mat2 [m, p] → [n, p]. */
export const mm = autocastFunction('mm', linalg.mm);
/** self [b, n, m] @ mat2 [b, m, p] → [b, n, p] (no broadcasting, as PyTorch's bmm). */
export const bmm = autocastFunction('bmm', linalg.bmm);
/** beta · input + alpha · (mat1 @ mat2), input broadcast to [n, p]. */
export const addmm = autocastFunction('addmm', linalg.addmm);
/** x [..., in] @ weight [out, in]^T + bias [out] → [..., out], as torch.nn.functional.linear. */
export const linear = autocastFunction('linear', linalg.linear);
/** softmax(q kᵀ · scale + mask) v for q [..., L, E], k [..., S, E], v [..., S, Ev] → [..., L, Ev]. */
export const scaledDotProductAttention = autocastFunction('scaledDotProductAttention', linalg.scaledDotProductAttention);
/** Sum over dims (all by default). */
export const sum = autocastFunction('sum', reduce.sum);
/** Product over dims. */
export const prod = autocastFunction('prod', reduce.prod);
/** p-norm over dims (p = 2 or 'fro' by default; Infinity, -Infinity, 0, 1 or any number). */
export const norm = autocastFunction('norm', reduce.norm);
/** log(sum(exp(t))) over dims, computed stably. */
export const logsumexp = autocastFunction('logsumexp', reduce.logsumexp);
/** exp(t) / sum(exp(t)) along dim (floating dtypes; { dtype } casts first). */
export const softmax = autocastFunction('softmax', reduce.softmax);
/** t - logsumexp(t) along dim. */
export const logSoftmax = autocastFunction('logSoftmax', reduce.logSoftmax);
/** Running sum along dim (integers and bool give int64). */
export const cumsum = autocastFunction('cumsum', reduce.cumsum);
/**
 * Negative log likelihood of log-probabilities `input` ([C], [N, C] or
 * [N, C, d1, ...]) at int64 class indices `target` ([], [N] or [N, d1, ...]):
 * -weight[y]·input[n, y, ...], reduced as LossOptions says.
 */
export const nllLoss = autocastFunction('nllLoss', losses.nllLoss);
/**
 * logSoftmax over the classes + nllLoss, for logits `input` ([C], [N, C] or
 * [N, C, d1, ...]) and either int64 class indices `target` ([], [N] or
 * [N, d1, ...]) or class probabilities (a floating target of the input's
 * shape; ignoreIndex must then be negative, as PyTorch's).
 */
export const crossEntropy = autocastFunction('crossEntropy', losses.crossEntropy);
/** Mean (or sum / none) of the squared differences (shapes broadcast). */
export const mseLoss = autocastFunction('mseLoss', losses.mseLoss);
/** (x - mean) / sqrt(var + eps) * weight + bias over the trailing `normalizedShape` dims. */
export const layerNorm = autocastFunction('layerNorm', nnf.layerNorm);
/** PyTorch's native_layer_norm: [out, mean, rstd] (mean and rstd of each row, no gradient). */
export const nativeLayerNorm = autocastFunction('nativeLayerNorm', nnf.nativeLayerNorm);
/** x / sqrt(mean(x^2) + eps) * weight over the trailing dims (eps defaults to the dtype's epsilon). */
export const rmsNorm = autocastFunction('rmsNorm', nnf.rmsNorm);
export const exp = autocastFunction('exp', unary.exp);
export const expm1 = autocastFunction('expm1', unary.expm1);
export const log = autocastFunction('log', unary.log);
export const log1p = autocastFunction('log1p', unary.log1p);
export const log2 = autocastFunction('log2', unary.log2);
export const rsqrt = autocastFunction('rsqrt', unary.rsqrt);
export const reciprocal = autocastFunction('reciprocal', unary.reciprocal);
/** log(1 + exp(beta x)) / beta. */
export const softplus = autocastFunction('softplus', math.softplus);
/** self ** exponent, broadcast (integer tensors to negative integer powers are refused, as PyTorch). */
export const pow = autocastFunction('pow', math.pow);
/** self + value * tensor1 * tensor2. */
export const addcmul = autocastFunction('addcmul', math.addcmul);
/** self + value * tensor1 / tensor2 (integer inputs compute in the default dtype). */
export const addcdiv = autocastFunction('addcdiv', math.addcdiv);

/** 2-D convolution of [N, C, H, W] (or [C, H, W]) with weight [O, C/groups, KH, KW] (ops/conv.ts). */
export const conv2d = autocastFunction('conv2d', conv.conv2d);
/** The transpose of conv2d, weight [Cin, Cout/groups, KH, KW] (ops/conv.ts). */
export const convTranspose2d = autocastFunction('convTranspose2d', conv.convTranspose2d);
/**
 * Per-channel normalization over batch and spatial dims, running statistics updated in training (ops/batch_norm.ts).
 * Not cast by autocast (on neither list, as PyTorch's): a 16-bit input keeps its dtype, its float32 parameters and
 * statistics theirs, and the kernel computes in float32.
 */
export const batchNorm = bn.batchNorm;

/** torch.nn.functional with the autocast ops wrapped (the rest as ops/nn_functional.ts has them). */
// nativeLayerNorm is torch.nativeLayerNorm only (PyTorch's torch.native_layer_norm has no nn.functional name).
const { nativeLayerNorm: _torchOnly, ...nnfNames } = nnf;
export const functional = { ...nnfNames, conv2d, convTranspose2d, batchNorm, layerNorm, rmsNorm, linear, scaledDotProductAttention, crossEntropy, nllLoss, mseLoss, softmax, logSoftmax };

// The Tensor methods of the same names (out-of-place forms only; in-place ops are not eligible).
const P = Tensor.prototype as unknown as Record<string, unknown>;
for (const op of AUTOCAST_OPS) {
  const m = P[op];
  if (typeof m === 'function') P[op] = autocastMethod(op, m as (this: Tensor, ...args: unknown[]) => unknown);
}
