/**
 * Autocast's op lists (PyTorch's, per device type): ops that run in the
 * region's lower precision (float16 or bfloat16), ops that run in float32,
 * and ops whose floating inputs are promoted to the widest among them. Other
 * ops run in the dtype of their inputs. Names are tsgpu's (camelCase).
 */

/** What autocast does to an op's floating tensor arguments. */
export type CastPolicy = 'lower' | 'float32' | 'promote';

/** CUDA: PyTorch's lists for CUDA autocast. */
const CUDA: Record<string, CastPolicy> = {
  matmul: 'lower', mm: 'lower', bmm: 'lower', addmm: 'lower', baddbmm: 'lower', addbmm: 'lower', addmv: 'lower', mv: 'lower',
  linear: 'lower', scaledDotProductAttention: 'lower', conv2d: 'lower', convTranspose2d: 'lower',
  exp: 'float32', expm1: 'float32', log: 'float32', log1p: 'float32', log2: 'float32', log10: 'float32', pow: 'float32',
  reciprocal: 'float32', rsqrt: 'float32', softplus: 'float32', sum: 'float32', prod: 'float32', cumsum: 'float32',
  norm: 'float32', logsumexp: 'float32', softmax: 'float32', logSoftmax: 'float32', layerNorm: 'float32', nativeLayerNorm: 'float32',
  rmsNorm: 'float32', crossEntropy: 'float32', nllLoss: 'float32', mseLoss: 'float32', l1Loss: 'float32', smoothL1Loss: 'float32', huberLoss: 'float32',
  klDiv: 'float32', binaryCrossEntropyWithLogits: 'float32', cosineSimilarity: 'float32', normalize: 'float32',
  addcmul: 'promote', addcdiv: 'promote', scatterAdd: 'promote', dot: 'promote', atan2: 'promote',
};

/** CPU: PyTorch's lists for CPU autocast (fewer float32 ops than CUDA's: softmax, layerNorm and exp run in the input's dtype). */
const CPU: Record<string, CastPolicy> = {
  matmul: 'lower', mm: 'lower', bmm: 'lower', addmm: 'lower', baddbmm: 'lower', addbmm: 'lower', linear: 'lower',
  scaledDotProductAttention: 'lower', conv2d: 'lower', convTranspose2d: 'lower',
  prod: 'float32', mseLoss: 'float32', crossEntropy: 'float32', nllLoss: 'float32', l1Loss: 'float32', smoothL1Loss: 'float32',
  huberLoss: 'float32', klDiv: 'float32', binaryCrossEntropyWithLogits: 'float32', binaryCrossEntropy: 'float32',
  addcmul: 'promote', addcdiv: 'promote', scatterAdd: 'promote', dot: 'promote', atan2: 'promote',
};

/** The policy of `op` under autocast on `deviceType`, or undefined (runs as it is). */
export function castPolicy(deviceType: 'cuda' | 'cpu', op: string): CastPolicy | undefined {
  return (deviceType === 'cuda' ? CUDA : CPU)[op];
}

/** Every op name either list mentions (the ops autocast wraps). */
export const AUTOCAST_OPS: readonly string[] = [...new Set([...Object.keys(CUDA), ...Object.keys(CPU)])];
