/**
 * Indexing with tensors, PyTorch's "advanced indexing": `x.index(idx)` with an
 * integer tensor gathers (`x[idx]`), with a bool mask selects (`x[mask]`),
 * mixed with numbers, slices, null and '...' (`x[0, :, idx]`); indexPut_ is
 * the assignment `x[indices] = values`.
 *
 * PyTorch's rules: numbers, slices and null are applied first (as views);
 * the index tensors are then broadcast together to a shape B; a bool mask
 * stands for the coordinates of its true elements (one index tensor per dim
 * it covers). When the indexed dims are next to each other, B takes their
 * place in the result; otherwise B comes first, then the other dims.
 *
 * Both directions work on element offsets into the indexed view's storage
 * (one int64 tensor of the result's shape), so no copy of the indexed tensor
 * is made: reading gathers those offsets, writing scatters to them.
 */
import { DType } from '../dtype';
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor, viewOf } from '../tensor';
import { arange, zeros } from './creation';
import { argError, broadcastShapesFor, castTo, checkTensor, emptyTensor, runInto, runOp } from './helpers';
import { unsqueeze } from './views';
import { tidy } from '../scope';
import { select, slice } from './slices';
import { advancedIndexing, IndexItem, parseSlice } from './basic_index';

/** Dtypes of tensors that index by position (bool and uint8 are masks, as PyTorch's). */
const INTEGER_INDEX: ReadonlySet<DType> = new Set<DType>(['int64', 'int32', 'int16', 'int8']);

/** What index items leave to do after the basic ones: the view, and the tensors indexing its dims. */
interface Plan {
  /** The tensor after numbers, slices and null (a view of the indexed tensor). */
  view: Tensor;
  /** Dims of `view` indexed by a tensor (increasing) and the int64 index along each. */
  dims: number[];
  indices: Tensor[];
  /** Everything made on the way (views and index tensors), disposed by release(). */
  owned: Tensor[];
}

function release(plan: Plan): void {
  for (const t of plan.owned) t.dispose();
}

/** Whether `x` is an item that needs advanced indexing (a tensor or a boolean). */
export function isAdvancedItem(x: unknown): boolean {
  return x instanceof Tensor || typeof x === 'boolean';
}

/** How many dims of the indexed tensor an item consumes. */
function consumes(x: IndexItem): number {
  if (x === null || x === '...' || typeof x === 'boolean') return 0;
  if (x instanceof Tensor) return x.dtype === 'bool' || x.dtype === 'uint8' ? x.ndim : 1;
  return 1;
}

/** `t` on `device` as int64 (a new tensor; the caller owns it). */
function asIndex(op: string, t: Tensor, device: string): Tensor {
  if (!INTEGER_INDEX.has(t.dtype)) {
    throw codedError('TSGPU_ARG', `${op}: tensors used as indices must be long, int, byte or bool tensors, got ${t.dtype}`);
  }
  const moved = t.device === device ? t : t.to(device);
  const wide = castTo(moved, 'int64');
  if (wide === t) return t.clone();
  if (moved !== t && moved !== wide) moved.dispose();
  return wide;
}

/** Applies numbers, slices, null and '...' of `items` to t; collects the tensor indices. */
function plan(op: string, t: Tensor, items: readonly IndexItem[]): Plan {
  const ellipses = items.filter((x) => x === '...').length;
  if (ellipses > 1) throw codedError('TSGPU_ARG', `${op}: at most one ... (ellipsis) is allowed`);
  const consumed = items.reduce<number>((n, x) => n + consumes(x), 0);
  if (consumed > t.ndim) {
    throw codedError('TSGPU_ARG', `${op}: too many indices for tensor of dimension ${t.ndim} (got ${consumed})`);
  }
  const expanded: IndexItem[] = [];
  for (const x of items) {
    if (x === '...') for (let k = 0; k < t.ndim - consumed; k++) expanded.push(':');
    else expanded.push(x);
  }
  const p: Plan = { view: t, dims: [], indices: [], owned: [] };
  let d = 0;
  const step = (next: Tensor): void => {
    p.owned.push(next);
    p.view = next;
  };
  for (const x of expanded) {
    const cur = p.view;
    if (x === null) {
      step(unsqueeze(cur, d++));
    } else if (typeof x === 'boolean' || (x instanceof Tensor && x.dtype === 'bool' && x.ndim === 0)) {
      // x[True] is a new dim of size 1, x[False] one of size 0 (as PyTorch).
      const on = typeof x === 'boolean' ? x : Boolean(x.item());
      step(unsqueeze(cur, d));
      const idx = zeros([on ? 1 : 0], { dtype: 'int64', device: cur.device });
      p.owned.push(idx);
      p.dims.push(d++);
      p.indices.push(idx);
    } else if (x instanceof Tensor) {
      x.liveStorage();
      if (x.dtype === 'bool' || x.dtype === 'uint8') {
        for (let k = 0; k < x.ndim; k++) {
          if (x.shape[k] !== cur.shape[d + k]) {
            throw shapeError(`${op}: the shape of the mask ${formatShape(x.shape)} at index ${k} does not match ` +
              `the shape of the indexed tensor ${formatShape(cur.shape)} at index ${d + k}`);
          }
        }
        const mask = x.dtype === 'bool' ? x : castTo(x, 'bool');
        // nonzero reads the mask on the host, as PyTorch's x[mask] synchronizes.
        const cols = mask.nonzero({ asTuple: true });
        if (mask !== x) mask.dispose();
        for (const c of cols) {
          const idx = c.device === cur.device ? c : c.to(cur.device);
          if (idx !== c) c.dispose();
          p.owned.push(idx);
          p.dims.push(d++);
          p.indices.push(idx);
        }
      } else {
        const idx = asIndex(op, x, cur.device);
        p.owned.push(idx);
        p.dims.push(d++);
        p.indices.push(idx);
      }
    } else if (typeof x === 'number') {
      step(select(cur, d, x));
    } else if (typeof x === 'string') {
      const s = parseSlice(x);
      step(slice(cur, d++, s.start, s.end, s.step));
    } else if (typeof x === 'object') {
      step(slice(cur, d++, x.start ?? null, x.end ?? null, x.step ?? 1));
    } else {
      argError(op, "a number, a slice string, null, '...', a boolean or a Tensor", 'index', x);
    }
  }
  return p;
}

/** The result shape and the int64 offsets (relative to view's storage offset) of every element it takes. */
function offsets(op: string, p: Plan): { shape: number[]; offsets: Tensor } {
  const v = p.view;
  const made: Tensor[] = [];
  try {
    let b: number[];
    try {
      b = broadcastShapesFor(op, p.indices.map((i) => i.shape));
    } catch {
      throw shapeError(`${op}: shape mismatch: indexing tensors could not be broadcast together with shapes ` +
        p.indices.map((i) => formatShape(i.shape)).join(', '));
    }
    const adjacent = p.dims.every((dim, k) => dim === p.dims[0] + k);
    const rest = [...v.shape.keys()].filter((dim) => !p.dims.includes(dim));
    const before = adjacent ? rest.filter((dim) => dim < p.dims[0]) : [];
    const after = rest.filter((dim) => !before.includes(dim));
    const shape = [...before.map((dim) => v.shape[dim]), ...b, ...after.map((dim) => v.shape[dim])];
    // The indexed dims: the sum of index * stride (negative indices wrapped), of shape b.
    let sum: Tensor | null = null;
    for (let k = 0; k < p.indices.length; k++) {
      const idx = p.indices[k];
      const size = v.shape[p.dims[k]];
      const least = checkBounds(op, idx, size, p.dims[k]);
      // Negative indices wrap (known on cpu, assumed on cuda); a unit stride needs no product.
      const wrapped = size > 0 && least < 0 ? idx.remainder(size) : idx;
      const stride = v.rawStrides[p.dims[k]];
      const scaled = stride === 1 ? wrapped : wrapped.mul(stride);
      for (const x of [wrapped, scaled]) if (x !== idx && !made.includes(x)) made.push(x);
      const next: Tensor = sum === null ? scaled : sum.add(scaled);
      if (sum !== null) made.push(next);
      sum = next;
    }
    const lead = before.length;
    let total = (sum as Tensor).reshape([...new Array(lead).fill(1), ...b, ...new Array(after.length).fill(1)]);
    made.push(total);
    // The other dims: arange(size) * stride along each one's place in the result.
    const placeOf = (dim: number): number => (before.includes(dim) ? before.indexOf(dim) : lead + b.length + after.indexOf(dim));
    for (const dim of rest) {
      const r = arange(v.shape[dim], { dtype: 'int64', device: v.device });
      const s = r.mul(v.rawStrides[dim]);
      const place = placeOf(dim);
      const along = s.reshape(shape.map((n, i) => (i === place ? n : 1)));
      const next = total.add(along);
      made.push(r, s, along, next);
      total = next;
    }
    const wide = total.expand(shape);
    const full = wide.contiguous();
    if (full !== wide) wide.dispose();
    return { shape, offsets: full };
  } finally {
    for (const t of made) t.dispose();
  }
}

/**
 * On cpu, every index in [-size, size) (PyTorch's IndexError, naming the first one outside, otherwise), and
 * returns the least index (by two reductions; the values are read only to name the bad one). On cuda the
 * values are not read back (that would wait for the device): returns -1, as if some index were negative.
 */
function checkBounds(op: string, idx: Tensor, size: number, dim: number): number {
  if (idx.device !== 'cpu') return -1;
  if (idx.numel === 0) return 0;
  const least = Number(tidy(() => idx.amin().item()));
  const most = Number(tidy(() => idx.amax().item()));
  if (least >= -size && most < size) return least;
  const values = idx.contiguous().toArray() as BigInt64Array;
  for (let i = 0; i < values.length; i++) {
    const x = Number(values[i]);
    if (x < -size || x >= size) throw codedError('TSGPU_ARG', `index ${x} is out of bounds for dimension ${dim} with size ${size}`);
  }
  return least;
}

/** A 1-D view of the storage that `v` spans, from v's first element (every offset of v is inside it). */
function spanOf(v: Tensor): Tensor {
  let span = 1;
  for (let d = 0; d < v.ndim; d++) span += (v.shape[d] - 1) * v.rawStrides[d];
  return viewOf(v, [span], [1], v.storageOffset());
}

/**
 * `t[items]` when an item is a tensor or a boolean: a new tensor (PyTorch's
 * advanced indexing copies); see this module's comment for the rules.
 */
export function advancedIndex(t: Tensor, items: readonly IndexItem[]): Tensor {
  const p = plan('index', t, items);
  try {
    if (p.indices.length === 0) return p.view.clone();
    const { shape, offsets: off } = offsets('index', p);
    try {
      if (shape.some((n) => n === 0) || p.view.numel === 0) {
        if (off.numel !== 0) throw codedError('TSGPU_ARG', `index: index is out of bounds for an empty dimension`);
        return emptyTensor(shape, t.dtype, t.device);
      }
      const base = spanOf(p.view);
      const flat = off.view(-1);
      try {
        const out = runInto(emptyTensor([flat.numel], t.dtype, t.device), (o) => runOp('gather', [o], [base, flat], { dim: 0 }));
        const r = out.view(shape);
        out.dispose();
        return r;
      } finally {
        flat.dispose();
        base.dispose();
      }
    } finally {
      off.dispose();
    }
  } finally {
    release(p);
  }
}

/** Options of indexPut_ and indexPut. */
export interface IndexPutOptions {
  /** Add the values to what is there (repeated indices add up) instead of writing them (default false). */
  accumulate?: boolean;
}

function checkIndices(op: string, indices: readonly Tensor[]): void {
  if (!Array.isArray(indices as unknown)) argError(op, 'a list of tensors', 'indices', indices as unknown);
  indices.forEach((x, i) => {
    if (!(x instanceof Tensor)) argError(op, 'a Tensor', `indices[${i}]`, x === null ? 'null' : typeof x);
  });
}

/**
 * In place, PyTorch's `t[indices] = values`: writes `values` (a tensor, or a
 * number, broadcast to the indexed shape and cast to t's dtype) at the
 * elements that `t.index(...indices)` would read; with `accumulate`, adds
 * them (repeated indices add up). indices are integer or bool tensors, one
 * per leading dim. Where indices repeat without accumulate, which value lands
 * is unspecified (as PyTorch's). An expanded t is written as PyTorch writes it
 * (each memory location once per element that refers to it). Returns t.
 */
export function indexPut_(t: Tensor, indices: readonly Tensor[], values: Tensor | number | boolean, opts?: IndexPutOptions): Tensor {
  checkTensor('indexPut_', 'self', t);
  checkIndices('indexPut_', indices);
  const accumulate = opts?.accumulate ?? false;
  if (typeof accumulate !== 'boolean') argError('indexPut_', 'a boolean', 'accumulate', accumulate);
  if (!(values instanceof Tensor) && typeof values !== 'number' && typeof values !== 'boolean') {
    argError('indexPut_', 'a Tensor or a number', 'values', values === null ? 'null' : typeof values);
  }
  // PyTorch writes expanded tensors here (with a deprecation warning) rather than refusing them.
  const p = plan('indexPut_', t, indices);
  const made: Tensor[] = [];
  try {
    const { shape, offsets: off } = offsets('indexPut_', p);
    made.push(off);
    const vt = values instanceof Tensor ? values : zeros([], { dtype: t.dtype, device: t.device }).fill_(Number(values));
    if (vt !== values) made.push(vt);
    let b: number[];
    try {
      b = broadcastShapesFor('indexPut_', [vt.shape, shape]);
    } catch {
      b = [];
    }
    if (b.length !== shape.length || b.some((n, i) => n !== shape[i])) {
      throw shapeError(`indexPut_: shape mismatch: value tensor of shape ${formatShape(vt.shape)} cannot be broadcast ` +
        `to indexing result of shape ${formatShape(shape)}`);
    }
    if (off.numel === 0) return t;
    const local = vt.device === t.device ? vt : vt.to(t.device);
    if (local !== vt) made.push(local);
    const cast = castTo(local, t.dtype);
    if (cast !== local) made.push(cast);
    const wide = cast.expand(shape);
    made.push(wide);
    const src = runInto(emptyTensor(shape, t.dtype, t.device), (o) => runOp('copy', [o], [wide]));
    made.push(src);
    const flatSrc = src.view(-1);
    const flatOff = off.view(-1);
    const base = spanOf(p.view);
    made.push(flatSrc, flatOff, base);
    runOp(accumulate ? 'scatterAdd' : 'scatter', [base], [base, flatOff, flatSrc], { dim: 0 });
    return t;
  } finally {
    for (const x of made) x.dispose();
    release(p);
  }
}

/** Out of place: a copy of t with indexPut_ applied. */
export function indexPut(t: Tensor, indices: readonly Tensor[], values: Tensor | number | boolean, opts?: IndexPutOptions): Tensor {
  checkTensor('indexPut', 'self', t);
  const c = t.clone();
  try {
    return indexPut_(c, indices, values, opts);
  } catch (e) {
    c.dispose();
    throw e;
  }
}

declare module '../tensor' {
  interface Tensor {
    /** In place `this[indices] = values` (see indexPut_); returns this. */
    indexPut_(indices: readonly Tensor[], values: Tensor | number | boolean, opts?: IndexPutOptions): Tensor;
    /** A copy with `[indices] = values` applied. */
    indexPut(indices: readonly Tensor[], values: Tensor | number | boolean, opts?: IndexPutOptions): Tensor;
  }
}

const P = Tensor.prototype;
P.indexPut_ = function (this: Tensor, indices: readonly Tensor[], values: Tensor | number | boolean, opts?: IndexPutOptions) {
  return indexPut_(this, indices, values, opts);
};
P.indexPut = function (this: Tensor, indices: readonly Tensor[], values: Tensor | number | boolean, opts?: IndexPutOptions) {
  return indexPut(this, indices, values, opts);
};

advancedIndexing.isAdvanced = isAdvancedItem;
advancedIndexing.index = advancedIndex;
