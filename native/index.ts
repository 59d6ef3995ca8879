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
import './ops/slices';
import './ops/basic_index';
import './ops/creation';
import './ops/elementwise';
import './ops/math';
import './generated/unary_ops';
import './generated/binary_ops';
import './ops/reduce';
import './ops/indexing';
import './ops/scatter';
import './ops/linalg';
import './ops/format';
import './ops/advanced_index';
import './ops/dtype_info';
import './ops/math_functions';
import './ops/nn_extras';
import './ops/linalg_more';
import './ops/statistics';
import './ops/shape_more';
import './ops/reorder';
import './ops/index_more';
import './ops/random';
import './ops/linalg_vectors';
import './ops/scans';
import './ops/order_stats';
import './ops/unique';
import './ops/shape_index';
// Autograd installs its hooks into the op layer and its methods on Tensor (after every op module's methods).
import './autograd';

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
  getRngState,
  setRngState,
  RngState,
  TensorOptions,
  RandomTensorOptions,
  TensorData,
} from './ops/creation';
export { add, sub, AlphaOptions } from './ops/elementwise';
export {
  sign, round, gelu, logicalNot, div, where, clamp, lerp, GeluOptions, SoftplusOptions, DivOptions, AddcOptions, RoundOptions,
} from './ops/math';
export {
  mean, amax, amin, all, any, argmax, argmin, var, std, max, min,
  sort, argsort, topk, Dims, ReduceOptions, VarOptions, ValuesIndices,
} from './ops/reduce';
export {
  cat, stack, repeat, tile, gather, indexSelect, maskedFill, tril, triu, nonzero, NonzeroOptions,
} from './ops/indexing';
export {
  scatter, scatterAdd, scatterReduce, ScatterOptions, ScatterReduceOptions, ScatterReduction,
} from './ops/scatter';
export {
  dropout, LossOptions, CrossEntropyOptions, Reduction,
  EmbeddingOptions,
} from './ops/nn_functional';
/** torch.embedding: the lookup with PyTorch's backward rules for paddingIdx and scaleGradByFreq. */
export { embedding } from './nn/functional';
/** torch.nn: Module, Parameter, the layers, nn.init, nn.utils and nn.functional (ops/nn_functional.ts, autocast's ops wrapped). */
export * as nn from './nn';
/** torch.optim: SGD, Adam, AdamW and optim.lrScheduler. */
export * as optim from './optim';
/** torch.vision: torchvision-style model builders (vision.models.resnet18/50/152 ...). */
export * as vision from './vision';
export {
  outer,
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
} from './ops/views';
export { narrow, select, slice, split, chunk, unbind } from './ops/slices';
export { index, IndexItem } from './ops/basic_index';
export { clone, ToOptions } from './ops/copy';
export { setPrintOptions, getPrintOptions, PrintOptions, PrintOptionsUpdate } from './ops/format';
export {
  DType,
  getDefaultDtype,
  setDefaultDtype,
  promoteTypes,
  resultType,
  canCast,
} from './dtype';
export { isFloatingPoint, finfo, iinfo, FInfo, IInfo } from './ops/dtype_info';
export { indexPut, IndexPutOptions } from './ops/advanced_index';
export {
  bitwiseNot, square, clip, isnan, isinf, isposinf, isneginf, isfinite, nanToNum, floorDivide, xlogy, heaviside, logit, NanToNumOptions,
} from './ops/math_functions';
export { dot, vdot, mv, addmv, baddbmm, addbmm, kron, trace } from './ops/linalg_more';
export {
  nansum, nanmean, countNonzero, stdMean, varMean, aminmax, isclose, allclose, equal, AminmaxOptions, CloseOptions,
} from './ops/statistics';
export { hstack, vstack, rowStack, dstack, swapaxes, swapdims, moveaxis, numel } from './ops/shape_more';
export { selu, celu, hardshrink, softshrink } from './ops/activations';
export { maxPool2d, avgPool2d, adaptiveAvgPool2d } from './ops/pool';
export { flip, fliplr, flipud, roll, diagonal, diag } from './ops/reorder';
export {
  maskedSelect, take, argwhere, indexAdd, indexCopy, indexFill, meshgrid, trilIndices, triuIndices, MeshgridOptions,
} from './ops/index_more';
export { Generator, defaultGenerator, seed, GeneratorOptions } from './ops/generator';
export { normal, bernoulli, multinomial } from './ops/random';
export { einsum } from './ops/einsum';
export { cross, cdist, CdistMode } from './ops/linalg_vectors';
/** torch.linalg: norm, vectorNorm, matrixNorm, cross, matmul, vecdot. */
export { linalg, NormOptions, MatrixOrd } from './ops/linalg_api';
export { cumprod, logcumsumexp, cummax, cummin } from './ops/scans';
export { median, nanmedian, kthvalue, mode, quantile, nanquantile, QuantileOptions, QuantileInterpolation } from './ops/order_stats';
export { unique, uniqueConsecutive, UniqueOptions, UniqueResult } from './ops/unique';
export {
  rot90, diagEmbed, tensorSplit, takeAlongDim, searchsorted, bucketize, maskedScatter, SearchsortedOptions, BucketizeOptions,
} from './ops/shape_index';
export { broadcastShapes } from './ops/helpers';
export { tidy } from './scope';
// The ops autocast casts for, wrapped (amp/install.ts); the Tensor methods of the same names are patched there.
export {
  matmul, mm, bmm, addmm, linear, scaledDotProductAttention, sum, prod, norm, logsumexp, softmax, logSoftmax, cumsum,
  nllLoss, crossEntropy, mseLoss, layerNorm, nativeLayerNorm, rmsNorm, exp, expm1, log, log1p, log2, rsqrt, reciprocal, softplus, pow,
  addcmul, addcdiv, conv2d, convTranspose2d, batchNorm,
} from './amp/install';
export { autocast, AutocastOptions, isAutocastEnabled, getAutocastDtype } from './amp/autocast';
import { autocast as autocastRegion } from './amp/autocast';
import { GradScaler } from './amp/grad_scaler';
export type { GradScalerOptions, GradScalerState, ScalableOptimizer } from './amp/grad_scaler';
/** torch.amp: autocast and GradScaler. */
export const amp = { autocast: autocastRegion, GradScaler };
import { checkpoint, checkpointSequential } from './utils/checkpoint';
/** torch.utils: checkpoint and checkpointSequential (torch.utils.checkpoint). */
export const utils = { checkpoint, checkpointSequential };
export {
  noGrad, enableGrad, inferenceMode, setGradEnabled, isGradEnabled, isInferenceModeEnabled, autograd, GradOptions,
} from './autograd';
export type { RemovableHandle } from './autograd/tensor_api';
export { setInterruptFlag } from './interrupt';
export { OutOfMemoryError, RuntimeError } from './errors';
export { DeviceLike } from './device';
export * as memory from './memory';
/** torch.supports(op, device, dtype): whether the op list has a kernel for it, asked before a call; opSupport, opList. */
export { supports, opSupport, opList, OpSupport } from './ops/supports';
export * as cuda from './cuda';
export { save, load } from './serialization/save_load';
export { LoadOptions } from './serialization/io';
export * as safetensors from './serialization/safetensors';
// The plain unary ops (exp, neg, tan, …), generated from the op list with their methods. A name
// exported by name above (exp, log, … wrapped for autocast by amp/install) wins over the star.
export * from './generated/unary_ops';
// The plain binary ops and comparisons (mul, maximum, eq, atan2, bitwiseAnd, …), generated from
// their rows (scripts/gen_binary_ops.js) with their methods and in-place forms.
export * from './generated/binary_ops';
