/**
 * Views: tensors that share their base's storage with other sizes, strides
 * or offset (no copy). In-place ops on a view write through to its base.
 * This file holds the views of the whole tensor in another shape:
 * view/reshape, transpose/t/mT/permute/movedim, squeeze/unsqueeze,
 * expand/expandAs/broadcastTo, flatten/unflatten. Views of a part of it are
 * in slices.ts (narrow/select/slice, split/chunk/unbind), index() in
 * basic_index.ts.
 */
import { shapeError, codedError } from '../errors';
import { contiguousStrides, formatShape, Tensor, viewOf } from '../tensor';
import { argError, broadcastShapesFor } from './helpers';

/** Sizes given as a list (`view([2, 3])`) or as arguments (`view(2, 3)`). */
export type SizeArgs = (number | readonly number[])[];

function sizesOf(op: string, args: SizeArgs): number[] {
  const list = args.length === 1 && Array.isArray(args[0]) ? (args[0] as readonly number[]) : (args as number[]);
  for (let i = 0; i < list.length; i++) {
    if (typeof list[i] !== 'number' || !Number.isInteger(list[i])) argError(op, 'integer sizes', 'shape', list as unknown);
  }
  return list.slice();
}

/** Resolves one -1 in `shape` against numel; checks that the sizes fit. */
function inferShape(op: string, t: Tensor, shape: number[]): number[] {
  let infer = -1;
  let known = 1;
  for (let i = 0; i < shape.length; i++) {
    if (shape[i] === -1) {
      if (infer >= 0) throw codedError('TSGPU_ARG', `${op}: only one dimension can be inferred (-1), got ${formatShape(shape)}`);
      infer = i;
    } else if (shape[i] < 0) {
      throw codedError('TSGPU_ARG', `${op}: invalid size ${shape[i]} in ${formatShape(shape)}`);
    } else {
      known *= shape[i];
    }
  }
  const out = shape.slice();
  if (infer >= 0) {
    if (known === 0 || t.numel % known !== 0) {
      throw shapeError(`${op}: shape ${formatShape(shape)} is invalid for input of size ${t.numel}`);
    }
    out[infer] = t.numel / known;
  } else if (known !== t.numel) {
    throw shapeError(`${op}: shape ${formatShape(shape)} is invalid for input of size ${t.numel}`);
  }
  return out;
}

/**
 * Strides for viewing (oldShape, oldStrides) as newShape without a copy, or
 * null when impossible (PyTorch's computeStride: chunks of dims that are
 * contiguous among themselves may be split or merged).
 */
function viewStrides(oldShape: readonly number[], oldStrides: readonly number[], newShape: readonly number[]): number[] | null {
  const numel = oldShape.reduce((a, b) => a * b, 1);
  // A 0-dim tensor is one element: any shape of one element views it.
  if (oldShape.length === 0) return contiguousStrides(newShape);
  const newStrides = new Array<number>(newShape.length).fill(0);
  if (numel === 0) {
    // Any view of no elements works (PyTorch: the old strides for the same shape, else as if resized).
    if (oldShape.length === newShape.length && oldShape.every((n, d) => n === newShape[d])) return oldStrides.slice();
    let s = 1;
    for (let d = newShape.length - 1; d >= 0; d--) {
      newStrides[d] = s;
      s *= Math.max(newShape[d], 1);
    }
    return newStrides;
  }
  let viewD = newShape.length - 1;
  let chunkBase = oldStrides[oldStrides.length - 1] ?? 1;
  let tensorNumel = 1;
  let viewNumel = 1;
  for (let d = oldShape.length - 1; d >= 0; d--) {
    tensorNumel *= oldShape[d];
    if (d === 0 || (oldShape[d - 1] !== 1 && oldStrides[d - 1] !== tensorNumel * chunkBase)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] === 1)) {
        newStrides[viewD] = viewNumel * chunkBase;
        viewNumel *= newShape[viewD];
        viewD--;
      }
      if (viewNumel !== tensorNumel) return null;
      if (d > 0) {
        chunkBase = oldStrides[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  if (viewD !== -1) return null;
  return newStrides;
}

/** A view with another shape; throws when the strides do not allow it (use reshape). */
export function view(t: Tensor, ...args: SizeArgs): Tensor {
  const shape = inferShape('view', t, sizesOf('view', args));
  const strides = viewStrides(t.shape, t.rawStrides, shape);
  if (strides === null) {
    throw codedError(
      'TSGPU_ARG',
      `view: size ${formatShape(shape)} is not compatible with the input's size ${formatShape(t.shape)} and stride ${formatShape(t.rawStrides)} (at least one dimension spans two contiguous subspaces); use reshape()`,
    );
  }
  return viewOf(t, shape, strides, t.storageOffset());
}

/** A view with another shape when the strides allow it, else a contiguous copy. */
export function reshape(t: Tensor, ...args: SizeArgs): Tensor {
  const shape = inferShape('reshape', t, sizesOf('reshape', args));
  const strides = viewStrides(t.shape, t.rawStrides, shape);
  if (strides !== null) return viewOf(t, shape, strides, t.storageOffset());
  const c = t.clone();
  try {
    return view(c, shape);
  } finally {
    c.dispose();
  }
}

/** Dims d0 and d1 swapped. */
export function transpose(t: Tensor, d0: number, d1: number): Tensor {
  const a = t.normDim(d0, 'transpose');
  const b = t.normDim(d1, 'transpose');
  const shape = t.shape.slice();
  const strides = t.stride();
  [shape[a], shape[b]] = [shape[b], shape[a]];
  [strides[a], strides[b]] = [strides[b], strides[a]];
  return viewOf(t, shape, strides, t.storageOffset());
}

/** Dims in the order `dims` (a permutation of 0..ndim-1; negatives count from the end). */
export function permute(t: Tensor, ...args: SizeArgs): Tensor {
  const dims = sizesOf('permute', args).map((d) => t.normDim(d, 'permute'));
  if (dims.length !== t.ndim || new Set(dims).size !== dims.length) {
    throw codedError('TSGPU_ARG', `permute: expected a permutation of ${t.ndim} dimensions, got ${formatShape(dims)}`);
  }
  const s = t.rawStrides;
  return viewOf(t, dims.map((d) => t.shape[d]), dims.map((d) => s[d]), t.storageOffset());
}

/** Dimension `source` moved to position `destination`. */
export function movedim(t: Tensor, source: number, destination: number): Tensor {
  const src = t.normDim(source, 'movedim');
  const dst = t.normDim(destination, 'movedim');
  const order = [...Array(t.ndim).keys()].filter((d) => d !== src);
  order.splice(dst, 0, src);
  return permute(t, order);
}

/** Without the size-1 dims (all, or those in `dim`). */
export function squeeze(t: Tensor, dim?: number | readonly number[]): Tensor {
  const drop = new Set<number>();
  if (dim === undefined) {
    t.shape.forEach((s, d) => s === 1 && drop.add(d));
  } else {
    for (const d of typeof dim === 'number' ? [dim] : dim) {
      const k = t.normDim(d, 'squeeze');
      if (t.shape[k] === 1) drop.add(k);
    }
  }
  const s = t.rawStrides;
  const keep = [...t.shape.keys()].filter((d) => !drop.has(d));
  return viewOf(t, keep.map((d) => t.shape[d]), keep.map((d) => s[d]), t.storageOffset());
}

/** A size-1 dim inserted at `dim` (in [-ndim-1, ndim]). */
export function unsqueeze(t: Tensor, dim: number): Tensor {
  const d = t.normDim(dim, 'unsqueeze', t.ndim + 1);
  const shape = t.shape.slice();
  const strides = t.stride();
  const stride = d < t.ndim ? t.rawStrides[d] * t.shape[d] : 1;
  shape.splice(d, 0, 1);
  strides.splice(d, 0, stride);
  return viewOf(t, shape, strides, t.storageOffset());
}

/** @internal `t` viewed with the broadcast `shape` (t itself when equal). */
export function expandTo(t: Tensor, shape: readonly number[]): Tensor {
  if (shape.length === t.ndim && shape.every((s, i) => s === t.shape[i])) return t;
  return expand(t, shape as number[]);
}

/** A view with size-1 dims repeated (stride 0) to `sizes`; -1 keeps a size. New dims may be added in front. */
export function expand(t: Tensor, ...args: SizeArgs): Tensor {
  const sizes = sizesOf('expand', args);
  if (sizes.length < t.ndim) {
    throw codedError('TSGPU_ARG', `expand: the number of sizes (${sizes.length}) must be at least the number of dimensions (${t.ndim})`);
  }
  const lead = sizes.length - t.ndim;
  const s = t.rawStrides;
  const shape: number[] = [];
  const strides: number[] = [];
  for (let i = 0; i < sizes.length; i++) {
    const k = i - lead;
    const cur = k >= 0 ? t.shape[k] : 1;
    let want = sizes[i];
    if (want === -1) {
      if (k < 0) throw codedError('TSGPU_ARG', `expand: -1 is not allowed for the new leading dimension ${i}`);
      want = cur;
    }
    if (cur !== want && cur !== 1) {
      throw codedError(
        'TSGPU_ARG',
        `expand: the expanded size ${want} must match the existing size ${cur} at dimension ${i} (shape ${formatShape(t.shape)} to ${formatShape(sizes)})`,
      );
    }
    shape.push(want);
    strides.push(k < 0 || (cur === 1 && want !== 1) ? 0 : s[k]);
  }
  return viewOf(t, shape, strides, t.storageOffset());
}

/** expand to the broadcast of t's shape with `shape` (must equal `shape`). */
export function broadcastTo(t: Tensor, ...args: SizeArgs): Tensor {
  const shape = sizesOf('broadcastTo', args);
  const b = broadcastShapesFor('broadcastTo', [t.shape, shape]);
  if (b.length !== shape.length || b.some((x, i) => x !== shape[i])) {
    throw shapeError(`broadcastTo: shape ${formatShape(t.shape)} cannot be broadcast to ${formatShape(shape)}`);
  }
  return expand(t, shape);
}

/** Dims startDim..endDim merged into one (a view when the strides allow, else a copy). */
export function flatten(t: Tensor, startDim = 0, endDim = -1): Tensor {
  if (t.ndim === 0) return reshape(t, [1]);
  const a = t.normDim(startDim, 'flatten');
  const b = t.normDim(endDim, 'flatten');
  if (a > b) throw codedError('TSGPU_ARG', `flatten: startDim ${startDim} comes after endDim ${endDim}`);
  const shape = [...t.shape.slice(0, a), t.shape.slice(a, b + 1).reduce((x, y) => x * y, 1), ...t.shape.slice(b + 1)];
  return reshape(t, shape);
}

/** Dimension `dim` split into `sizes` (one may be -1). */
export function unflatten(t: Tensor, dim: number, sizes: readonly number[]): Tensor {
  const d = t.normDim(dim, 'unflatten');
  const known = sizes.filter((s) => s !== -1).reduce((x, y) => x * y, 1);
  const filled = sizes.map((s) => (s === -1 ? t.shape[d] / known : s));
  if (filled.reduce((x, y) => x * y, 1) !== t.shape[d] || filled.some((s) => !Number.isInteger(s))) {
    throw shapeError(`unflatten: sizes ${formatShape(sizes)} do not multiply to the size ${t.shape[d]} of dimension ${dim}`);
  }
  return view(t, [...t.shape.slice(0, d), ...filled, ...t.shape.slice(d + 1)]);
}

declare module '../tensor' {
  interface Tensor {
    /** A view with another shape (one size may be -1); see reshape() when the strides do not allow it. */
    view(...shape: SizeArgs): Tensor;
    /** A view with another shape when possible, else a contiguous copy. */
    reshape(...shape: SizeArgs): Tensor;
    /** Dims d0 and d1 swapped (a view). */
    transpose(d0: number, d1: number): Tensor;
    /** transpose(0, 1) of a 2-D tensor; 0-D and 1-D tensors unchanged. */
    t(): Tensor;
    /** The last two dims swapped (matrix transpose of a batch). */
    readonly mT: Tensor;
    /** Dims reordered (a view). */
    permute(...dims: SizeArgs): Tensor;
    /** Dimension source moved to destination (a view). */
    movedim(source: number, destination: number): Tensor;
    /** Size-1 dims removed (all, or those given). */
    squeeze(dim?: number | readonly number[]): Tensor;
    /** A size-1 dim inserted at dim. */
    unsqueeze(dim: number): Tensor;
    /** Size-1 dims repeated without copying (-1 keeps a size). */
    expand(...sizes: SizeArgs): Tensor;
    /** expand(other.shape) */
    expandAs(other: Tensor): Tensor;
    /** Broadcast to `shape` (a view). */
    broadcastTo(...shape: SizeArgs): Tensor;
    /** Dims startDim..endDim merged. */
    flatten(startDim?: number, endDim?: number): Tensor;
    /** Dim split into sizes. */
    unflatten(dim: number, sizes: readonly number[]): Tensor;
  }
}

const P = Tensor.prototype;
P.view = function (this: Tensor, ...shape: SizeArgs) {
  return view(this, ...shape);
};
P.reshape = function (this: Tensor, ...shape: SizeArgs) {
  return reshape(this, ...shape);
};
P.transpose = function (this: Tensor, d0: number, d1: number) {
  return transpose(this, d0, d1);
};
P.t = function (this: Tensor) {
  if (this.ndim > 2) throw codedError('TSGPU_ARG', `t: expects a tensor with at most 2 dimensions, got ${this.ndim}`);
  return this.ndim < 2 ? viewOf(this, this.shape.slice(), this.stride(), this.storageOffset()) : transpose(this, 0, 1);
};
Object.defineProperty(P, 'mT', {
  get(this: Tensor) {
    if (this.ndim < 2) throw codedError('TSGPU_ARG', `mT: expects a tensor with at least 2 dimensions, got ${this.ndim}`);
    return transpose(this, -2, -1);
  },
});
P.permute = function (this: Tensor, ...dims: SizeArgs) {
  return permute(this, ...dims);
};
P.movedim = function (this: Tensor, source: number, destination: number) {
  return movedim(this, source, destination);
};
P.squeeze = function (this: Tensor, dim?: number | readonly number[]) {
  return squeeze(this, dim);
};
P.unsqueeze = function (this: Tensor, dim: number) {
  return unsqueeze(this, dim);
};
P.expand = function (this: Tensor, ...sizes: SizeArgs) {
  return expand(this, ...sizes);
};
P.expandAs = function (this: Tensor, other: Tensor) {
  return expand(this, other.shape);
};
P.broadcastTo = function (this: Tensor, ...shape: SizeArgs) {
  return broadcastTo(this, ...shape);
};
P.flatten = function (this: Tensor, startDim?: number, endDim?: number) {
  return flatten(this, startDim, endDim);
};
P.unflatten = function (this: Tensor, dim: number, sizes: readonly number[]) {
  return unflatten(this, dim, sizes);
};
