/**
 * tsgpu: tensors on CPU and CUDA with PyTorch's memory tools, in TypeScript.
 * This module is the `torch` namespace that notebook cells see.
 *
 * @example
 * const x = torch.randn([1000, 1000]);
 * torch.memory.allocated('cpu'); // 4000256
 * x.dispose();
 */
import { native } from './addon';
import { OutOfMemoryError } from './errors';
// Modules that install Tensor methods (each declares them on the class).
import './ops/copy';
import './ops/views';
import './ops/creation';
import './ops/elementwise';
import './ops/math';
import './ops/reduce';
import './ops/indexing';
import './ops/scatter';
import './ops/linalg';
import './ops/format';

native.setErrorClasses({ OutOfMemoryError });

export { Tensor } from './tensor';
export { Storage } from './storage';
export {
  empty,
  zeros,
  ones,
  full,
  arange,
  linspace,
  eye,
  rand,
  randn,
  randint,
  randperm,
  emptyLike,
  zerosLike,
  onesLike,
  fullLike,
  randLike,
  randnLike,
  randintLike,
  tensor,
  fromBuffer,
  manualSeed,
  initialSeed,
  TensorOptions,
  TensorData,
} from './ops/creation';
export { add, sub, AlphaOptions } from './ops/elementwise';
export {
  exp, expm1, log, log1p, log2, sqrt, rsqrt, reciprocal, sin, cos, tanh, sigmoid, silu, neg, abs, sign, relu,
  floor, ceil, round, trunc, gelu, softplus, logicalNot, mul, div, pow, remainder, maximum, minimum,
  eq, ne, lt, le, gt, ge, logicalAnd, logicalOr, logicalXor, where, clamp, lerp, addcmul, addcdiv,
  GeluOptions, SoftplusOptions, DivOptions, AddcOptions, RoundOptions,
} from './ops/math';
export {
  sum, prod, mean, amax, amin, all, any, argmax, argmin, var, std, norm, logsumexp, max, min,
  softmax, logSoftmax, cumsum, sort, argsort, topk, Dims, ReduceOptions, VarOptions, ValuesIndices,
} from './ops/reduce';
export {
  cat, stack, repeat, tile, gather, indexSelect, maskedFill, tril, triu, nonzero, NonzeroOptions,
} from './ops/indexing';
export {
  scatter, scatterAdd, scatterReduce, ScatterOptions, ScatterReduceOptions, ScatterReduction,
} from './ops/scatter';
export {
  embedding, layerNorm, rmsNorm, dropout, crossEntropy, nllLoss, mseLoss, LossOptions, CrossEntropyOptions, Reduction,
  EmbeddingOptions,
} from './ops/nn_functional';
import * as functional from './ops/nn_functional';
/** torch.nn.functional: the functions of ops/nn_functional.ts under PyTorch's module path. */
export const nn = { functional };
export {
  matmul,
  mm,
  bmm,
  addmm,
  linear,
  outer,
  scaledDotProductAttention,
  setNumThreads,
  getNumThreads,
  matmulBackends,
  backends,
  setFloat32MatmulPrecision,
  getFloat32MatmulPrecision,
  AddmmOptions,
  AttentionOptions,
} from './ops/linalg';
export {
  view,
  reshape,
  transpose,
  permute,
  movedim,
  squeeze,
  unsqueeze,
  expand,
  broadcastTo,
  flatten,
  unflatten,
  narrow,
  select,
  slice,
  split,
  chunk,
  unbind,
  index,
  IndexItem,
} from './ops/views';
export { clone, ToOptions } from './ops/copy';
export { setPrintOptions, getPrintOptions, PrintOptions, PrintOptionsUpdate } from './ops/format';
export {
  DType,
  getDefaultDtype,
  setDefaultDtype,
  promoteTypes,
  resultType,
  canCast,
  isFloatingPoint,
} from './dtype';
export { broadcastShapes } from './ops/helpers';
export { tidy, noGrad } from './scope';
export { setInterruptFlag } from './interrupt';
export { OutOfMemoryError } from './errors';
export { DeviceLike } from './device';
export * as memory from './memory';
export * as cuda from './cuda';
