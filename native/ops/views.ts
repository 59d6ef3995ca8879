/**
 * Views: tensors that share their base's storage with other sizes, strides
 * or offset (no copy). In-place ops on a view write through to its base.
 * view/reshape, transpose/t/mT/permute/movedim, squeeze/unsqueeze,
 * expand/expandAs/broadcastTo, flatten/unflatten, narrow/select/slice,
 * split/chunk/unbind, and index() for the common `t[i, :, 1:3]` cases.
 */
import { codedError } from '../errors';
import { formatShape, Tensor, viewOf } from '../tensor';
import { argError, broadcastShapes } from './helpers';

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
      throw codedError('TSGPU_ARG', `${op}: shape ${formatShape(shape)} is invalid for input of size ${t.numel}`);
    }
    out[infer] = t.numel / known;
  } else if (known !== t.numel) {
    throw codedError('TSGPU_ARG', `${op}: shape ${formatShape(shape)} is invalid for input of size ${t.numel}`);
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
  const b = broadcastShapes('broadcastTo', [t.shape, shape]);
  if (b.length !== shape.length || b.some((x, i) => x !== shape[i])) {
    throw codedError('TSGPU_ARG', `broadcastTo: shape ${formatShape(t.shape)} cannot be broadcast to ${formatShape(shape)}`);
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
    throw codedError('TSGPU_ARG', `unflatten: sizes ${formatShape(sizes)} do not multiply to the size ${t.shape[d]} of dimension ${dim}`);
  }
  return view(t, [...t.shape.slice(0, d), ...filled, ...t.shape.slice(d + 1)]);
}

function checkIndex(op: string, name: string, v: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v)) argError(op, 'an integer', name, v);
}

/** Elements start..start+length-1 of dimension `dim`. */
export function narrow(t: Tensor, dim: number, start: number, length: number): Tensor {
  const d = t.normDim(dim, 'narrow');
  checkIndex('narrow', 'start', start);
  checkIndex('narrow', 'length', length);
  const size = t.shape[d];
  const s = start < 0 ? start + size : start;
  if (s < 0 || length < 0 || s + length > size) {
    throw codedError('TSGPU_ARG', `narrow: start ${start} and length ${length} are out of range for dimension ${dim} of size ${size}`);
  }
  const shape = t.shape.slice();
  shape[d] = length;
  return viewOf(t, shape, t.stride(), t.storageOffset() + s * t.rawStrides[d]);
}

/** Index `index` of dimension `dim`, which is removed. */
export function select(t: Tensor, dim: number, index: number): Tensor {
  if (t.ndim === 0) throw codedError('TSGPU_ARG', 'select: cannot select from a 0-dimensional tensor');
  const d = t.normDim(dim, 'select');
  checkIndex('select', 'index', index);
  const size = t.shape[d];
  const i = index < 0 ? index + size : index;
  if (i < 0 || i >= size) {
    throw codedError('TSGPU_ARG', `select: index ${index} is out of range for dimension ${dim} of size ${size}`);
  }
  const shape = t.shape.slice();
  const strides = t.stride();
  const offset = t.storageOffset() + i * strides[d];
  shape.splice(d, 1);
  strides.splice(d, 1);
  return viewOf(t, shape, strides, offset);
}

/**
 * Elements start, start+step, ... below end of dimension `dim`, as Python's
 * `t[start:end:step]` (negative start/end count from the end, out-of-range
 * bounds are clamped; step >= 1).
 */
export function slice(t: Tensor, dim = 0, start?: number | null, end?: number | null, step = 1): Tensor {
  const d = t.normDim(dim, 'slice');
  if (!Number.isInteger(step) || step < 1) argError('slice', 'a positive integer', 'step', step);
  const size = t.shape[d];
  const clamp = (v: number | null | undefined, dflt: number): number => {
    if (v === undefined || v === null) return dflt;
    checkIndex('slice', 'start/end', v);
    const x = v < 0 ? v + size : v;
    return Math.min(Math.max(x, 0), size);
  };
  const s = clamp(start, 0);
  const e = Math.max(clamp(end, size), s);
  const shape = t.shape.slice();
  const strides = t.stride();
  shape[d] = Math.ceil((e - s) / step);
  const offset = t.storageOffset() + (shape[d] > 0 ? s * strides[d] : 0);
  strides[d] *= step;
  return viewOf(t, shape, strides, offset);
}

/** Pieces of `splitSize` along `dim` (the last may be smaller), or pieces of the given sizes. */
export function split(t: Tensor, splitSize: number | readonly number[], dim = 0): Tensor[] {
  const d = t.normDim(dim, 'split');
  const size = t.shape[d];
  let sizes: number[];
  if (typeof splitSize === 'number') {
    if (!Number.isInteger(splitSize) || splitSize < 1) argError('split', 'a positive integer', 'splitSize', splitSize);
    sizes = [];
    for (let s = 0; s < size; s += splitSize) sizes.push(Math.min(splitSize, size - s));
    if (size === 0) sizes.push(0);
  } else {
    sizes = splitSize.slice();
    if (sizes.reduce((a, b) => a + b, 0) !== size) {
      throw codedError('TSGPU_ARG', `split: sizes ${formatShape(sizes)} do not add up to the size ${size} of dimension ${dim}`);
    }
  }
  const out: Tensor[] = [];
  let start = 0;
  for (const n of sizes) {
    out.push(narrow(t, d, start, n));
    start += n;
  }
  return out;
}

/** `chunks` pieces (or fewer) of equal size along `dim`, the last may be smaller. */
export function chunk(t: Tensor, chunks: number, dim = 0): Tensor[] {
  if (!Number.isInteger(chunks) || chunks < 1) argError('chunk', 'a positive integer', 'chunks', chunks);
  const size = t.shape[t.normDim(dim, 'chunk')];
  return split(t, Math.max(1, Math.ceil(size / chunks)), dim);
}

/** The slices along `dim`, that dim removed. */
export function unbind(t: Tensor, dim = 0): Tensor[] {
  const d = t.normDim(dim, 'unbind');
  return [...Array(t.shape[d]).keys()].map((i) => select(t, d, i));
}

/**
 * One item of index(): a number selects (removes the dim), ':' or 'a:b' or
 * 'a:b:c' (or {start, end, step}) slices, null inserts a size-1 dim, '...'
 * stands for the dims not named.
 */
export type IndexItem = number | string | null | { start?: number | null; end?: number | null; step?: number };

function parseSlice(spec: string): { start: number | null; end: number | null; step: number } {
  const parts = spec.split(':');
  if (parts.length < 2 || parts.length > 3) argError('index', "a slice such as ':', '1:3' or '::2'", 'index', spec);
  const num = (s: string | undefined): number | null => {
    if (s === undefined || s.trim() === '') return null;
    const v = Number(s);
    if (!Number.isInteger(v)) argError('index', 'integer slice bounds', 'index', spec);
    return v;
  };
  return { start: num(parts[0]), end: num(parts[1]), step: num(parts[2]) ?? 1 };
}

/**
 * The view `t[i, :, 1:3]` writes as `t.index(i, ':', '1:3')`; `null` is
 * None (a new dim), '...' an Ellipsis.
 * @example x.index(0, '...', '::2')  // x[0, ..., ::2]
 */
export function index(t: Tensor, ...items: IndexItem[]): Tensor {
  const ellipses = items.filter((x) => x === '...').length;
  if (ellipses > 1) throw codedError('TSGPU_ARG', 'index: at most one ... (ellipsis) is allowed');
  const consumed = items.filter((x) => x !== null && x !== '...').length;
  if (consumed > t.ndim) {
    throw codedError('TSGPU_ARG', `index: too many indices (${consumed}) for a tensor of ${t.ndim} dimensions`);
  }
  const expanded: IndexItem[] = [];
  for (const x of items) {
    if (x === '...') for (let k = 0; k < t.ndim - consumed; k++) expanded.push(':');
    else expanded.push(x);
  }
  let cur = t;
  let d = 0;
  const owned: Tensor[] = [];
  try {
    for (const x of expanded) {
      let next: Tensor;
      if (x === null) {
        next = unsqueeze(cur, d);
        d++;
      } else if (typeof x === 'number') {
        next = select(cur, d, x);
      } else if (typeof x === 'string') {
        const s = parseSlice(x);
        next = slice(cur, d, s.start, s.end, s.step);
        d++;
      } else if (typeof x === 'object') {
        next = slice(cur, d, x.start ?? null, x.end ?? null, x.step ?? 1);
        d++;
      } else {
        return argError('index', "a number, a slice string, null or '...'", 'index', x);
      }
      if (cur !== t) owned.push(cur);
      cur = next;
    }
    return cur === t ? viewOf(t, t.shape.slice(), t.stride(), t.storageOffset()) : cur;
  } finally {
    for (const o of owned) o.dispose();
  }
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
    /** length elements from start along dim (a view). */
    narrow(dim: number, start: number, length: number): Tensor;
    /** Index along dim, that dim removed (a view). */
    select(dim: number, index: number): Tensor;
    /** t[start:end:step] along dim (a view). */
    slice(dim?: number, start?: number | null, end?: number | null, step?: number): Tensor;
    /** Pieces along dim (views). */
    split(splitSize: number | readonly number[], dim?: number): Tensor[];
    /** `chunks` pieces along dim (views). */
    chunk(chunks: number, dim?: number): Tensor[];
    /** Slices along dim (views). */
    unbind(dim?: number): Tensor[];
    /** `t[i, :, 1:3]` as `t.index(i, ':', '1:3')` (a view). */
    index(...items: IndexItem[]): Tensor;
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
P.narrow = function (this: Tensor, dim: number, start: number, length: number) {
  return narrow(this, dim, start, length);
};
P.select = function (this: Tensor, dim: number, i: number) {
  return select(this, dim, i);
};
P.slice = function (this: Tensor, dim?: number, start?: number | null, end?: number | null, step?: number) {
  return slice(this, dim, start, end, step);
};
P.split = function (this: Tensor, splitSize: number | readonly number[], dim?: number) {
  return split(this, splitSize, dim);
};
P.chunk = function (this: Tensor, chunks: number, dim?: number) {
  return chunk(this, chunks, dim);
};
P.unbind = function (this: Tensor, dim?: number) {
  return unbind(this, dim);
};
P.index = function (this: Tensor, ...items: IndexItem[]) {
  return index(this, ...items);
};
