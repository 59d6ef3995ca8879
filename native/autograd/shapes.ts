/** Shape helpers of the backward formulas. */
import { Tensor } from '../tensor';

/** Whether two shapes are equal. */
export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `g` summed down to `shape` (undoes broadcasting: leading dims, and dims of
 * size 1 in `shape` that `g` has wider); `g` itself when it has that shape.
 */
export function sumToShape(g: Tensor, shape: readonly number[]): Tensor {
  if (sameShape(g.shape, shape)) return g;
  const lead = g.ndim - shape.length;
  const dims: number[] = [];
  for (let i = 0; i < lead; i++) dims.push(i);
  for (let i = 0; i < shape.length; i++) if (shape[i] === 1 && g.shape[lead + i] !== 1) dims.push(lead + i);
  const r = dims.length > 0 ? g.sum(dims, { keepdim: true }) : g;
  if (shape.length === 0) return r.sum();
  return r.reshape(shape.slice());
}
