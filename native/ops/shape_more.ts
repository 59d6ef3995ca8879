/**
 * Shape helpers that compose from views, cat and creation, as PyTorch's:
 * hstack, vstack (rowStack), dstack, swapaxes/swapdims, moveaxis, the `T`
 * property (all dims reversed), newZeros/newOnes/newFull/newEmpty (the
 * tensor's dtype and device unless given), typeAs, and torch.numel.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { empty, full, ones, SizeAndOptions, sizeAndOptions, TensorOptions, zeros } from './creation';
import { argError, checkTensor } from './helpers';
import { cat } from './indexing';
import { movedim, permute, transpose } from './views';

function tensors(op: string, list: readonly Tensor[]): void {
  if (!Array.isArray(list as unknown) || list.length === 0) argError(op, 'a non-empty list of tensors', 'tensors', list as unknown);
  list.forEach((t, i) => checkTensor(op, `tensors[${i}]`, t));
}

/** t with at least `n` dims: 1-D as [1, n] for 2, [1, n, 1] for 3 (PyTorch's atleast_2d/3d). */
function atLeast(t: Tensor, n: 2 | 3): Tensor {
  if (t.ndim >= n) return t;
  if (n === 2) return t.ndim === 0 ? t.reshape(1, 1) : t.unsqueeze(0);
  if (t.ndim === 0) return t.reshape(1, 1, 1);
  if (t.ndim === 1) return t.reshape(1, t.shape[0], 1);
  return t.unsqueeze(-1);
}

/** Concatenated along dim 1 (dim 0 for 1-D tensors). */
export function hstack(list: readonly Tensor[]): Tensor {
  tensors('hstack', list);
  return tidy(() => {
    const parts = list.map((t) => (t.ndim === 0 ? t.reshape(1) : t));
    return cat(parts, parts[0].ndim === 1 ? 0 : 1);
  });
}

/** Concatenated along dim 0 after making 1-D tensors rows ([n] as [1, n]). */
export function vstack(list: readonly Tensor[]): Tensor {
  tensors('vstack', list);
  return tidy(() => cat(list.map((t) => atLeast(t, 2)), 0));
}
export { vstack as rowStack };

/** Concatenated along dim 2 after making tensors at least 3-D ([n] as [1, n, 1], [m, n] as [m, n, 1]). */
export function dstack(list: readonly Tensor[]): Tensor {
  tensors('dstack', list);
  return tidy(() => cat(list.map((t) => atLeast(t, 3)), 2));
}

/** transpose under NumPy's name. */
export function swapaxes(t: Tensor, axis0: number, axis1: number): Tensor {
  checkTensor('swapaxes', 'self', t);
  return transpose(t, axis0, axis1);
}
export { swapaxes as swapdims };

/** movedim under NumPy's name: dims `source` moved to `destination` (numbers or lists). */
export function moveaxis(t: Tensor, source: number | readonly number[], destination: number | readonly number[]): Tensor {
  checkTensor('moveaxis', 'self', t);
  const src = typeof source === 'number' ? [source] : source;
  const dst = typeof destination === 'number' ? [destination] : destination;
  if (src.length !== dst.length) {
    throw codedError('TSGPU_ARG', `moveaxis: Invalid source or destination dims: source (${src.length} dims) should contain the same number of dims as destination (${dst.length} dims)`);
  }
  if (src.length === 1) return movedim(t, src[0], dst[0]);
  const s = src.map((d) => t.normDim(d, 'moveaxis'));
  const d = dst.map((x) => t.normDim(x, 'moveaxis'));
  if (new Set(s).size !== s.length || new Set(d).size !== d.length) argError('moveaxis', 'distinct dims', 'source/destination', [...src, ...dst]);
  const order = new Array<number>(t.ndim).fill(-1);
  s.forEach((from, k) => { order[d[k]] = from; });
  const rest = [...Array(t.ndim).keys()].filter((x) => !s.includes(x));
  for (let i = 0, r = 0; i < t.ndim; i++) if (order[i] === -1) order[i] = rest[r++];
  return permute(t, order);
}

/** The number of elements, as torch.numel(t). */
export function numel(t: Tensor): number {
  checkTensor('numel', 'input', t);
  return t.numel;
}

function like(t: Tensor, opts: TensorOptions | undefined): TensorOptions {
  return { dtype: opts?.dtype ?? t.dtype, device: opts?.device ?? t.device };
}

declare module '../tensor' {
  interface Tensor {
    /** All dims reversed (a view); PyTorch's `t.T`. */
    readonly T: Tensor;
    swapaxes(axis0: number, axis1: number): Tensor;
    swapdims(dim0: number, dim1: number): Tensor;
    moveaxis(source: number | readonly number[], destination: number | readonly number[]): Tensor;
    /** zeros of `size` with this tensor's dtype and device (unless given): `newZeros(2, 3)` or `newZeros([2, 3], { dtype })`. */
    newZeros(...size: SizeAndOptions): Tensor;
    newOnes(...size: SizeAndOptions): Tensor;
    newEmpty(...size: SizeAndOptions): Tensor;
    /** full(size, value) with this tensor's dtype and device (unless given). */
    newFull(size: readonly number[], value: number | boolean, opts?: TensorOptions): Tensor;
    /** This tensor converted to other's dtype. */
    typeAs(other: Tensor): Tensor;
  }
}

const P = Tensor.prototype;
Object.defineProperty(P, 'T', {
  get(this: Tensor) {
    return permute(this, [...Array(this.ndim).keys()].reverse());
  },
});
P.swapaxes = function (this: Tensor, a: number, b: number) { return swapaxes(this, a, b); };
P.swapdims = function (this: Tensor, a: number, b: number) { return swapaxes(this, a, b); };
P.moveaxis = function (this: Tensor, s: number | readonly number[], d: number | readonly number[]) { return moveaxis(this, s, d); };
P.newZeros = function (this: Tensor, ...size: SizeAndOptions) {
  const { shape, opts } = sizeAndOptions('newZeros', size);
  return zeros(shape, like(this, opts));
};
P.newOnes = function (this: Tensor, ...size: SizeAndOptions) {
  const { shape, opts } = sizeAndOptions('newOnes', size);
  return ones(shape, like(this, opts));
};
P.newEmpty = function (this: Tensor, ...size: SizeAndOptions) {
  const { shape, opts } = sizeAndOptions('newEmpty', size);
  return empty(shape, like(this, opts));
};
P.newFull = function (this: Tensor, size: readonly number[], value: number | boolean, opts?: TensorOptions) {
  return full(size, value, like(this, opts));
};
P.typeAs = function (this: Tensor, other: Tensor) {
  checkTensor('typeAs', 'other', other);
  return this.to(other.dtype);
};
