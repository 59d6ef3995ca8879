/**
 * Argument checks shared by the convolution and pooling functions
 * (conv.ts, pool.ts): integer pairs for kernel, stride, padding and dilation,
 * the input rank, and the sliding-window output size — with PyTorch's
 * wording where PyTorch has one.
 */
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { unsupportedError } from './supports';
import { argError } from './helpers';

/** A size given for both spatial dims, or once for both (PyTorch's `_pair`). */
export type Pair = number | readonly [number, number] | readonly number[];

/**
 * `v` as [h, w]: a number repeats, a list of two is taken as it is. Each
 * entry must be an integer >= `min`; `what` names the argument in errors.
 */
export function pair(op: string, name: string, v: Pair, min: number): [number, number] {
  const xs = typeof v === 'number' ? [v, v] : Array.isArray(v) ? v.slice() : null;
  if (xs === null || xs.length !== 2 || xs.some((x) => typeof x !== 'number' || !Number.isInteger(x))) {
    argError(op, 'an integer or a list of two integers', name, v);
  }
  if (xs.some((x) => x < min)) {
    if (name === 'padding') throw codedError('TSGPU_ARG', `${op}: negative padding is not supported, got [${xs.join(', ')}]`);
    throw codedError('TSGPU_ARG', `${op}: non-positive ${name} is not supported, got [${xs.join(', ')}]`);
  }
  return [xs[0], xs[1]];
}

/** Checks that `input` is 3-D (unbatched) or 4-D (batched); returns it as 4-D and whether it was unbatched. */
export function batched4d(op: string, input: Tensor): { x: Tensor; unbatched: boolean } {
  if (input.ndim !== 3 && input.ndim !== 4) {
    throw codedError('TSGPU_ARG', `${op}: Expected 3D (unbatched) or 4D (batched) input to ${op}, but got input of size: ${formatShape(input.shape)} (${input.ndim}-D)`);
  }
  return input.ndim === 3 ? { x: input.unsqueeze(0), unbatched: true } : { x: input, unbatched: false };
}

/**
 * Positions of a sliding window along one dim (PyTorch's pooling output shape):
 * floor((size + 2 pad - dilation (kernel - 1) - 1 [+ stride - 1 in ceil mode]) / stride) + 1,
 * less one in ceil mode when the last window would start in the right padding.
 */
export function windowCount(size: number, kernel: number, stride: number, pad: number, dilation: number, ceilMode: boolean): number {
  const span = size + 2 * pad - dilation * (kernel - 1) - 1 + (ceilMode ? stride - 1 : 0);
  let out = Math.floor(span / stride) + 1;
  if (ceilMode && (out - 1) * stride >= size + pad) out -= 1;
  return out;
}

/**
 * A floating dtype is required (the window kernels are written for float16,
 * bfloat16, float32 and float64). With `kernel`, the op-list op whose kernel
 * lacks the dtype, the refusal is written from the op list (supports.ts
 * unsupportedError); without, it is an argument error (a composition that
 * follows PyTorch's dtype rule).
 */
export function checkFloating(op: string, name: string, t: Tensor, kernel?: 'im2col' | 'gemm'): void {
  if (!['float32', 'float64', 'float16', 'bfloat16'].includes(t.dtype)) {
    if (kernel !== undefined) throw unsupportedError(op, kernel, t.device, t.dtype, { reason: `dtype ${t.dtype} of ${name} is not supported`, hint: 'cast to a floating dtype first' });
    argError(op, 'a floating tensor (float16, bfloat16, float32 or float64)', name, t.dtype);
  }
}
