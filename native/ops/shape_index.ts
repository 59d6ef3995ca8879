/**
 * Shape and indexing ops composed from views, flip, gather and comparisons,
 * as PyTorch's: rot90, diagEmbed, tensorSplit (views), takeAlongDim,
 * searchsorted, bucketize and maskedScatter (with maskedScatter_).
 */
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { tidy } from '../scope';
import { zeros } from './creation';
import { argError, broadcastShapesFor, checkTensor, sameDevice } from './helpers';
import { cat } from './indexing';
import { where } from './math';
import { flip, diagonal } from './reorder';

/**
 * t rotated by 90° k times (default 1) in the plane of dims (default [0, 1]), from the first
 * dim towards the second, as PyTorch's torch.rot90 (a copy).
 */
export function rot90(t: Tensor, k = 1, dims: readonly number[] = [0, 1]): Tensor {
  checkTensor('rot90', 'self', t);
  if (!Number.isInteger(k)) argError('rot90', 'an integer', 'k', k);
  if (!Array.isArray(dims) || dims.length !== 2) {
    throw codedError('TSGPU_ARG', `rot90: expected total rotation dims == 2, but got dims = ${Array.isArray(dims) ? dims.length : String(dims)}`);
  }
  if (t.ndim < 2) throw codedError('TSGPU_ARG', `rot90: expected total dims >= 2, but got total dims = ${t.ndim}`);
  const a = t.normDim(dims[0], 'rot90'), b = t.normDim(dims[1], 'rot90');
  if (a === b) throw codedError('TSGPU_ARG', `rot90: expected rotation dims to be different, but got dim0 = ${a} and dim1 = ${b}`);
  const turns = ((k % 4) + 4) % 4;
  return tidy(() => {
    if (turns === 1) return flip(t, b).transpose(a, b).contiguous();
    if (turns === 2) return flip(t, [a, b]);
    if (turns === 3) return flip(t, a).transpose(a, b).contiguous();
    return t.clone();
  });
}

/**
 * A tensor of one more dim whose planes (dim1, dim2) (defaults -2, -1 of the result) hold the last
 * dim of t on diagonal `offset` (default 0), zeros elsewhere, as PyTorch's torch.diag_embed.
 */
export function diagEmbed(t: Tensor, offset = 0, dim1 = -2, dim2 = -1): Tensor {
  checkTensor('diagEmbed', 'self', t);
  if (!Number.isInteger(offset)) argError('diagEmbed', 'an integer', 'offset', offset);
  const nd = t.ndim + 1;
  const norm = (d: number): number => {
    if (!Number.isInteger(d) || d < -nd || d >= nd) {
      throw codedError('TSGPU_ARG', `diagEmbed: Dimension out of range (expected to be in range of [${-nd}, ${nd - 1}], but got ${d})`);
    }
    return d < 0 ? d + nd : d;
  };
  const a = norm(dim1), b = norm(dim2);
  if (a === b) throw codedError('TSGPU_ARG', `diagEmbed: diagonal dimensions cannot be identical ${dim1}, ${dim2}`);
  const n = (t.ndim === 0 ? 1 : t.shape[t.ndim - 1]) + Math.abs(offset);
  const rest = t.ndim === 0 ? [] : t.shape.slice(0, -1);
  const shape: number[] = [];
  for (let d = 0, r = 0; d < nd; d++) shape.push(d === a || d === b ? n : rest[r++]);
  const out = zeros(shape, { dtype: t.dtype, device: t.device });
  // diagonal(out, offset, a, b) has the other dims in order, then the diagonal: t's own shape.
  const view = diagonal(out, offset, a, b);
  try {
    view.copy_(t.ndim === 0 ? t.reshape([1]) : t);
  } catch (e) {
    out.dispose();
    throw e;
  } finally {
    view.dispose();
  }
  return out;
}

/**
 * Views of t split along dim (default 0): into `sections` parts (the first size % sections one
 * longer), or at the given indices, as PyTorch's torch.tensor_split; indices may be a tensor
 * (0-dim: sections, 1-D: indices, integers on the cpu).
 */
export function tensorSplit(t: Tensor, indicesOrSections: number | readonly number[] | Tensor, dim = 0): Tensor[] {
  checkTensor('tensorSplit', 'self', t);
  if (t.ndim === 0) throw codedError('TSGPU_ARG', 'tensorSplit: expected at least a 1-dimensional tensor, but got a tensor with 0 dims');
  const d = t.normDim(dim, 'tensorSplit');
  let spec: number | readonly number[] = indicesOrSections as number | readonly number[];
  if (indicesOrSections instanceof Tensor) {
    const s = indicesOrSections;
    if (s.device !== 'cpu' || (s.dtype !== 'int64' && s.dtype !== 'int32' && s.dtype !== 'int16' && s.dtype !== 'int8' && s.dtype !== 'uint8')) {
      throw codedError('TSGPU_ARG', `tensorSplit: expected tensor_indices_or_sections to have an integer dtype on the cpu, but got ${s.dtype} on ${s.device}`);
    }
    if (s.ndim > 1) throw codedError('TSGPU_ARG', `tensorSplit: expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with ${s.ndim} dims`);
    spec = s.ndim === 0 ? Number(s.item()) : (s.tolist() as number[]).map(Number);
  }
  const n = t.shape[d];
  const bounds: number[] = [];
  if (typeof spec === 'number') {
    if (!Number.isInteger(spec) || spec <= 0) throw codedError('TSGPU_ARG', `tensorSplit: number of sections must be larger than 0, got ${spec}`);
    const base = Math.floor(n / spec), extra = n % spec;
    let at = 0;
    for (let i = 0; i < spec - 1; i++) bounds.push((at += base + (i < extra ? 1 : 0)));
  } else if (Array.isArray(spec)) {
    for (const x of spec) {
      if (!Number.isInteger(x)) argError('tensorSplit', 'a list of integers', 'indices', spec);
      bounds.push(x);
    }
  } else {
    argError('tensorSplit', 'an integer, a list of integers or a Tensor', 'indices_or_sections', spec as unknown);
  }
  // Each index is clamped into [0, n] (negative ones count from the end), as Python slices; a part
  // that would end before it starts is empty.
  const clamp = (x: number): number => Math.min(n, Math.max(0, x < 0 ? x + n : x));
  const edges = [0, ...bounds.map(clamp), n];
  const parts: Tensor[] = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const s = edges[i];
    parts.push(t.narrow(d, s, Math.max(s, edges[i + 1]) - s));
  }
  return parts;
}

/**
 * t gathered along dim at indices (int64), t and indices broadcast over the other dims, as
 * PyTorch's torch.take_along_dim; without dim, of the flattened tensor at the flattened indices.
 */
export function takeAlongDim(t: Tensor, indices: Tensor, dim?: number | null): Tensor {
  checkTensor('takeAlongDim', 'self', t);
  checkTensor('takeAlongDim', 'indices', indices);
  if (indices.dtype !== 'int64') {
    throw codedError('TSGPU_ARG', `takeAlongDim: dtype of indices should be int64 but got ${indices.dtype}`);
  }
  sameDevice('takeAlongDim', [t, indices]);
  if (dim === undefined || dim === null) return tidy(() => t.reshape([-1]).gather(0, indices.reshape([-1])));
  if (t.ndim !== indices.ndim) {
    throw codedError('TSGPU_ARG', `takeAlongDim: input and indices should have the same number of dimensions, but got ${t.ndim} dimensions for input, and ${indices.ndim} dimensions for indices`);
  }
  const d = t.ndim === 0 ? 0 : t.normDim(dim, 'takeAlongDim');
  return tidy(() => {
    if (t.ndim === 0) return t.reshape([1]).gather(0, indices.reshape([1])).reshape([]);
    const other = (s: readonly number[]): number[] => s.map((x, k) => (k === d ? 1 : x));
    const common = broadcastShapesFor('takeAlongDim', [other(t.shape), other(indices.shape)]);
    const tShape = common.map((x, k) => (k === d ? t.shape[d] : x));
    const iShape = common.map((x, k) => (k === d ? indices.shape[d] : x));
    return t.expand(tShape).gather(d, indices.expand(iShape));
  });
}

/** Options of searchsorted. */
export interface SearchsortedOptions {
  /** int32 indices instead of int64 (default false). */
  outInt32?: boolean;
  /** The last position that keeps the order instead of the first (default false). */
  right?: boolean;
  /** 'left' or 'right', PyTorch's other spelling of `right`. */
  side?: 'left' | 'right';
  /** Indices that sort sortedSequence along its last dim, when it is not sorted itself. */
  sorter?: Tensor;
}

/** Elements of values compared at once against the boundaries (the comparison holds this many booleans). */
const SEARCH_CHUNK = 1 << 22;

/**
 * Where each of values would be inserted into sortedSequence (sorted along its last dim) to keep
 * it sorted: the first such position, or with `right` the last, as PyTorch's torch.searchsorted.
 * A 1-D sequence serves every value; otherwise the leading dims of both must match. values may be
 * a number (a 0-dim result). Computed as the count of boundaries before each value, by chunks of
 * values (work grows with values × boundaries).
 */
export function searchsorted(sortedSequence: Tensor, values: Tensor | number, opts?: SearchsortedOptions): Tensor {
  checkTensor('searchsorted', 'sortedSequence', sortedSequence);
  const seq0 = sortedSequence;
  if (opts?.side !== undefined && opts.side !== 'left' && opts.side !== 'right') {
    throw codedError('TSGPU_ARG', `searchsorted: side can only be 'left' or 'right' but got '${String(opts.side)}'`);
  }
  if (opts?.side === 'left' && opts.right === true) {
    throw codedError('TSGPU_ARG', "searchsorted: side and right can't be set to opposites, got side of left while right was True");
  }
  const right = opts?.right === true || opts?.side === 'right';
  if (seq0.ndim === 0) throw codedError('TSGPU_ARG', 'searchsorted: boundaries tensor should have positive dimension, but got 0 dimension');
  const scalar = !(values instanceof Tensor);
  if (scalar && typeof values !== 'number') argError('searchsorted', 'a Tensor or a number', 'values', values);
  if (scalar && seq0.ndim !== 1) {
    throw codedError('TSGPU_ARG', `searchsorted: input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor dim(${seq0.ndim}) and input value's dim(0) numel(1)`);
  }
  if (!scalar) {
    sameDevice('searchsorted', [seq0, values as Tensor]);
    const v = values as Tensor;
    if (seq0.ndim !== 1 && (v.ndim !== seq0.ndim || v.shape.slice(0, -1).some((s, i) => s !== seq0.shape[i]))) {
      throw codedError('TSGPU_ARG', 'searchsorted: boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input value tensor must match, ' +
        `but we got boundaries tensor ${formatShape(seq0.shape)} and input value tensor ${formatShape(v.shape)}`);
    }
  }
  if (opts?.sorter !== undefined) {
    const s = checkTensor('searchsorted', 'sorter', opts.sorter);
    if (s.dtype !== 'int64') throw codedError('TSGPU_ARG', `searchsorted: sorter must be a tensor of long dtype but got ${s.dtype}`);
    if (s.ndim !== seq0.ndim || s.shape.some((x, i) => x !== seq0.shape[i])) {
      throw codedError('TSGPU_ARG', `searchsorted: boundary and sorter must have the same size, but got boundary tensor ${formatShape(seq0.shape)} and got sorter tensor ${formatShape(s.shape)}`);
    }
  }
  const outDtype = opts?.outInt32 ? 'int32' : 'int64';
  return tidy(() => {
    const seq = opts?.sorter ? seq0.gather(-1, opts.sorter) : seq0;
    if (scalar) return (right ? seq.gt(values as number) : seq.ge(values as number)).logicalNot().sum().to(outDtype);
    const v = values as Tensor;
    const m = seq.shape[seq.ndim - 1];
    // Left: boundaries b with !(b >= v) come first; right: !(b > v). NaN values go to the end, as a binary search puts them.
    const before = (vals: Tensor, bounds: Tensor): Tensor =>
      (right ? bounds.gt(vals.unsqueeze(-1)) : bounds.ge(vals.unsqueeze(-1))).logicalNot().sum(-1);
    if (seq.ndim === 1) {
      const flat = v.reshape([-1]);
      const n = flat.numel;
      const step = Math.max(1, Math.floor(SEARCH_CHUNK / Math.max(m, 1)));
      const parts: Tensor[] = [];
      for (let i = 0; i < n || (n === 0 && i === 0); i += step) parts.push(before(flat.narrow(0, i, Math.min(step, n - i)), seq));
      const counts = parts.length === 1 ? parts[0] : cat(parts, 0);
      return counts.reshape(v.shape as number[]).to(outDtype);
    }
    return before(v, seq.unsqueeze(-2)).to(outDtype);
  });
}

/** Options of bucketize. */
export interface BucketizeOptions {
  /** int32 indices instead of int64 (default false). */
  outInt32?: boolean;
  /** Whether a value equal to a boundary goes after it (default false: before). */
  right?: boolean;
}

/** The bucket of each value among 1-D sorted boundaries (searchsorted(boundaries, input)), as PyTorch's torch.bucketize. */
export function bucketize(input: Tensor | number, boundaries: Tensor, opts?: BucketizeOptions): Tensor {
  checkTensor('bucketize', 'boundaries', boundaries);
  if (boundaries.ndim !== 1) throw codedError('TSGPU_ARG', `bucketize: boundaries tensor must be 1 dimension, but got dim(${boundaries.ndim})`);
  return searchsorted(boundaries, input, { outInt32: opts?.outInt32, right: opts?.right });
}

function maskedScatterOf(op: string, t: Tensor, mask: Tensor, source: Tensor): Tensor {
  checkTensor(op, 'self', t);
  checkTensor(op, 'mask', mask);
  checkTensor(op, 'source', source);
  if (mask.dtype !== 'bool') throw codedError('TSGPU_ARG', `${op}: only supports boolean masks, but got mask with dtype ${mask.dtype}`);
  if (source.dtype !== t.dtype) {
    throw codedError('TSGPU_ARG', `${op}: expected self and source to have same dtypes but got ${t.dtype} and ${source.dtype}`);
  }
  sameDevice(op, [t, mask, source]);
  return tidy(() => {
    const m = mask.expand(t.shape as number[]).reshape([-1]);
    const taken = m.sum();
    const count = Number(taken.item());
    if (count > source.numel) {
      throw codedError('TSGPU_ARG', `${op}: Number of elements of source < number of ones in mask (${source.numel} < ${count})`);
    }
    if (count === 0) return t.clone();
    // The k-th true position of the mask (row-major) takes source's k-th element.
    const at = m.cumsum(0).sub(1).clamp(0, null);
    return where(m, source.reshape([-1]).gather(0, at), t.reshape([-1])).reshape(t.shape as number[]);
  });
}

/**
 * A copy of t whose elements where mask (bool, broadcast to t) is true are, in row-major order,
 * the first elements of source, as PyTorch's Tensor.masked_scatter.
 */
export function maskedScatter(t: Tensor, mask: Tensor, source: Tensor): Tensor {
  if (t instanceof Tensor && mask instanceof Tensor) {
    const shape = broadcastShapesFor('maskedScatter', [t.shape, mask.shape]);
    if (shape.length !== t.ndim || shape.some((s, i) => s !== t.shape[i])) {
      return tidy(() => maskedScatterOf('maskedScatter', t.expand(shape), mask, source));
    }
  }
  return maskedScatterOf('maskedScatter', t, mask, source);
}

/** In place: maskedScatter written into t (mask broadcast to t's shape). */
export function maskedScatter_(t: Tensor, mask: Tensor, source: Tensor): Tensor {
  tidy(() => { t.copy_(maskedScatterOf('maskedScatter_', t, mask, source)); });
  return t;
}

declare module '../tensor' {
  interface Tensor {
    rot90(k?: number, dims?: readonly number[]): Tensor;
    diagEmbed(offset?: number, dim1?: number, dim2?: number): Tensor;
    tensorSplit(indicesOrSections: number | readonly number[] | Tensor, dim?: number): Tensor[];
    takeAlongDim(indices: Tensor, dim?: number | null): Tensor;
    maskedScatter(mask: Tensor, source: Tensor): Tensor;
    maskedScatter_(mask: Tensor, source: Tensor): Tensor;
  }
}

const P = Tensor.prototype;
P.rot90 = function (this: Tensor, k?: number, dims?: readonly number[]) { return rot90(this, k, dims); };
P.diagEmbed = function (this: Tensor, o?: number, a?: number, b?: number) { return diagEmbed(this, o, a, b); };
P.tensorSplit = function (this: Tensor, s: number | readonly number[] | Tensor, dim?: number) { return tensorSplit(this, s, dim); };
P.takeAlongDim = function (this: Tensor, i: Tensor, dim?: number | null) { return takeAlongDim(this, i, dim); };
P.maskedScatter = function (this: Tensor, m: Tensor, s: Tensor) { return maskedScatter(this, m, s); };
P.maskedScatter_ = function (this: Tensor, m: Tensor, s: Tensor) { return maskedScatter_(this, m, s); };
