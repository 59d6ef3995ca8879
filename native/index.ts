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

native.setErrorClasses({ OutOfMemoryError });

export { Tensor } from './tensor';
export { empty, zeros, ones, full, randn, rand, tensor, manualSeed, matmul, TensorOptions } from './creation';
export { tidy, noGrad } from './scope';
export { OutOfMemoryError } from './errors';
export { DType, DeviceLike } from './device';
export * as memory from './memory';
export * as cuda from './cuda';
