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
import './ops/legacy';
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
export { mul, div, sum } from './ops/legacy';
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
export { setPrintOptions, getPrintOptions, PrintOptions } from './ops/format';
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
export { OutOfMemoryError, codedError } from './errors';
export { DeviceLike } from './device';
export * as memory from './memory';
export * as cuda from './cuda';
