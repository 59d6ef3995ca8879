/**
 * unique and uniqueConsecutive, as PyTorch's: the distinct elements (or, with
 * `dim`, the distinct slices along dim), optionally with the inverse indices
 * and the counts. Composed from the stable sort, comparisons, cumsum and
 * boolean-mask indexing (which reads the number of results to the host).
 */
import { Tensor } from '../tensor';
import { tidy } from '../scope';
import { arange, tensor, zeros } from './creation';
import { argError, checkTensor } from './helpers';
import { cat } from './indexing';

/** Options of unique and uniqueConsecutive. */
export interface UniqueOptions {
  /**
   * Whether the result is in ascending order (default true). The result is sorted either way
   * (false lets PyTorch return another order; unique only).
   */
  sorted?: boolean;
  /** Also return, for each element (slice), the index of its value in the result (default false). */
  returnInverse?: boolean;
  /** Also return how many times each result occurs (default false). */
  returnCounts?: boolean;
  /** The distinct slices along this dim (default: the distinct elements of the flattened tensor). */
  dim?: number | null;
}

/** The result of unique: the values alone, or [values, inverse?, counts?] as PyTorch's tuple. */
export type UniqueResult = Tensor | Tensor[];

/**
 * unique or uniqueConsecutive of rows [n, m] (or of a 1-D tensor: m absent): the keep mask of
 * the first row of each run, the run number of every row, and the order the rows were read in.
 */
function runsOf(rows: Tensor, sort: boolean): { order: Tensor | null; sortedRows: Tensor; first: Tensor; group: () => Tensor } {
  const n = rows.shape[0];
  let order: Tensor | null = null;
  let sortedRows: Tensor | null = null;
  if (sort) {
    if (rows.ndim === 1) {
      const s = rows.sort(0);
      order = s.indices;
      sortedRows = s.values;
    } else {
      // Lexicographic order of the rows: stable sorts by each column, the last column first.
      order = arange(n, { device: rows.device });
      for (let c = rows.shape[1] - 1; c >= 0; c--) {
        const key = rows.select(1, c).indexSelect(0, order);
        order = order.indexSelect(0, key.sort(0).indices);
      }
    }
  }
  sortedRows ??= order ? rows.indexSelect(0, order) : rows;
  const head = tensor([true], { device: rows.device });
  let differs: Tensor;
  if (n <= 1) differs = head.narrow(0, 0, n);
  else {
    let ne = sortedRows.narrow(0, 1, n - 1).ne(sortedRows.narrow(0, 0, n - 1));
    if (ne.ndim > 1) ne = ne.any(1);
    differs = cat([head, ne], 0);
  }
  // Each row's run (only returnInverse needs it).
  const group = () => differs.cumsum(0).sub(1);
  return { order, sortedRows, first: differs, group };
}

function uniqueOf(op: 'unique' | 'uniqueConsecutive', t: Tensor, opts: UniqueOptions): UniqueResult {
  checkTensor(op, 'self', t);
  for (const k of ['sorted', 'returnInverse', 'returnCounts'] as const) {
    if (opts[k] !== undefined && typeof opts[k] !== 'boolean') argError(op, 'a boolean', k, opts[k]);
  }
  const dim = opts.dim ?? null;
  if (dim !== null && (typeof dim !== 'number' || !Number.isInteger(dim))) argError(op, 'an integer or null', 'dim', dim);
  const d = dim === null ? null : t.ndim === 0 ? (t.normDim(dim, op), 0) : t.normDim(dim, op);
  return tidy(() => {
    const x = d === null ? t.reshape([-1]) : t.ndim === 0 ? t.reshape([1]) : t.movedim(d, 0);
    const n = x.shape[0];
    const rows = d === null ? x : x.reshape([n, -1]);
    const { order, sortedRows, first, group } = runsOf(rows, op === 'unique');
    let values = sortedRows.index(first);
    if (d !== null) values = values.reshape([values.shape[0], ...x.shape.slice(1)]).movedim(0, t.ndim === 0 ? 0 : d);
    const out: Tensor[] = [values];
    if (opts.returnInverse) {
      const inv = order ? zeros([n], { dtype: 'int64', device: t.device }).scatter(0, order, group()) : group();
      out.push(d === null ? inv.reshape(t.shape as number[]) : inv);
    }
    if (opts.returnCounts) {
      const starts = first.nonzero().reshape([-1]);
      if (starts.numel === 0) out.push(starts);
      else out.push(cat([starts.narrow(0, 1, starts.numel - 1), tensor([n], { dtype: 'int64', device: t.device })], 0).sub(starts));
    }
    return out.length === 1 ? out[0] : out;
  });
}

/** PyTorch's positional form (sorted, returnInverse, returnCounts, dim) or an options object. */
function uniqueArgs(op: string, a: boolean | UniqueOptions | undefined, rest: unknown[], names: readonly (keyof UniqueOptions)[]): UniqueOptions {
  if (a === undefined || a === null) return {};
  if (typeof a === 'object') {
    if (rest.some((x) => x !== undefined)) argError(op, 'nothing after the options object', names[1], rest.find((x) => x !== undefined));
    return a;
  }
  const o: Record<string, unknown> = {};
  [a, ...rest].forEach((v, i) => { if (v !== undefined && i < names.length) o[names[i]] = v; });
  return o as UniqueOptions;
}

/**
 * The distinct elements of t in ascending order (or the distinct slices along `dim`); with
 * returnInverse / returnCounts, [values, inverse?, counts?] as PyTorch's torch.unique.
 * `unique(t, sorted, returnInverse, returnCounts, dim)` or `unique(t, { ... })`.
 */
export function unique(t: Tensor, sorted?: boolean | UniqueOptions, returnInverse?: boolean, returnCounts?: boolean,
                       dim?: number | null): UniqueResult {
  return uniqueOf('unique', t, uniqueArgs('unique', sorted, [returnInverse, returnCounts, dim], ['sorted', 'returnInverse', 'returnCounts', 'dim']));
}

/**
 * The first element (slice along `dim`) of every run of equal consecutive ones, with
 * returnInverse / returnCounts as unique: `uniqueConsecutive(t, returnInverse, returnCounts, dim)`
 * or `uniqueConsecutive(t, { ... })`.
 */
export function uniqueConsecutive(t: Tensor, returnInverse?: boolean | UniqueOptions, returnCounts?: boolean,
                                  dim?: number | null): UniqueResult {
  return uniqueOf('uniqueConsecutive', t, uniqueArgs('uniqueConsecutive', returnInverse, [returnCounts, dim], ['returnInverse', 'returnCounts', 'dim']));
}

declare module '../tensor' {
  interface Tensor {
    unique(sorted?: boolean | UniqueOptions, returnInverse?: boolean, returnCounts?: boolean, dim?: number | null): UniqueResult;
    uniqueConsecutive(returnInverse?: boolean | UniqueOptions, returnCounts?: boolean, dim?: number | null): UniqueResult;
  }
}

const P = Tensor.prototype;
P.unique = function (this: Tensor, s?: boolean | UniqueOptions, i?: boolean, c?: boolean, d?: number | null) { return unique(this, s, i, c, d); };
P.uniqueConsecutive = function (this: Tensor, i?: boolean | UniqueOptions, c?: boolean, d?: number | null) {
  return uniqueConsecutive(this, i, c, d);
};
