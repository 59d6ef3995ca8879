/**
 * index(): `t[i, :, 1:3]` written as `t.index(i, ':', '1:3')`. Numbers,
 * slices, null (a new dim) and '...' give a view, built from unsqueeze
 * (views.ts) and select and slice (slices.ts); tensor and boolean items go
 * to advanced indexing (advanced_index.ts), which gives a copy.
 */
import { codedError } from '../errors';
import { Tensor, viewOf } from '../tensor';
import { argError } from './helpers';
import { unsqueeze } from './views';
import { select, slice } from './slices';

/**
 * Advanced (tensor and mask) indexing, which advanced_index.ts installs: it
 * builds on index()'s views, so index() reaches it only through this hook.
 */
export const advancedIndexing: {
  isAdvanced: (item: IndexItem) => boolean;
  index: ((t: Tensor, items: readonly IndexItem[]) => Tensor) | null;
} = { isAdvanced: () => false, index: null };

/**
 * One item of index(): a number selects (removes the dim), ':' or 'a:b' or
 * 'a:b:c' (or {start, end, step}) slices, null inserts a size-1 dim, '...'
 * stands for the dims not named; a Tensor indexes with its values (integer:
 * positions along the dim, bool: a mask over as many dims as it has) and a
 * boolean is PyTorch's `x[True]` (see advanced_index.ts).
 */
export type IndexItem =
  | number
  | string
  | null
  | boolean
  | Tensor
  | { start?: number | null; end?: number | null; step?: number };

/** @internal A slice string ('1:3', '::2') as start, end and step. */
export function parseSlice(spec: string): { start: number | null; end: number | null; step: number } {
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

/** The items of index(): given one by one, or as one list (Python's tuple, `x[(None, idx)]`). */
function itemsOf(items: readonly (IndexItem | readonly IndexItem[])[]): IndexItem[] {
  if (items.length !== 1 || !Array.isArray(items[0])) {
    items.forEach((x, i) => {
      if (Array.isArray(x)) argError('index', 'index items (a list of items only as the single argument)', `argument ${i + 1}`, 'a list');
    });
    return items as IndexItem[];
  }
  const list = items[0] as readonly IndexItem[];
  if (list.length > 0 && list.every((x) => typeof x === 'number')) {
    // PyTorch reads x[[0, 2]] as an index list, x[(0, 2)] as two numbers: the runtime cannot tell them apart.
    throw codedError('TSGPU_ARG', `index: a list of numbers is ambiguous: write x.index(${list.join(', ')}) for x[${list.join(', ')}], ` +
      `or x.index(torch.tensor([${list.join(', ')}])) to gather x[[${list.join(', ')}]]`);
  }
  return list.slice();
}

/**
 * `t[i, :, 1:3]` written as `t.index(i, ':', '1:3')` (or `t.index([i, ':', '1:3'])`):
 * `null` is None (a new dim), '...' an Ellipsis. With numbers, slices, null
 * and '...' only, the result is a view; with a tensor or a boolean it is a
 * copy, as PyTorch's advanced indexing (advanced_index.ts).
 * @example x.index(0, '...', '::2')           // x[0, ..., ::2]
 * @example x.index(torch.tensor([0, 2]))      // x[[0, 2]]: rows 0 and 2
 * @example x.index(x.gt(0))                   // x[x > 0]: the positive elements, 1-D
 * @example x.index([null, idx])               // x[None, idx]
 */
export function index(t: Tensor, ...args: (IndexItem | readonly IndexItem[])[]): Tensor {
  const items = itemsOf(args);
  const adv = advancedIndexing;
  if (adv.index !== null && items.some(adv.isAdvanced)) return adv.index(t, items);
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
      } else if (typeof x === 'object' && !(x instanceof Tensor)) {
        next = slice(cur, d, x.start ?? null, x.end ?? null, x.step ?? 1);
        d++;
      } else {
        return argError('index', "a number, a slice string, null, '...', a boolean or a Tensor", 'index', x as unknown);
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
    /** `t[i, :, 1:3]` as `t.index(i, ':', '1:3')` (a view); with tensors, PyTorch's advanced indexing (a copy). */
    index(...items: (IndexItem | readonly IndexItem[])[]): Tensor;
  }
}

const P = Tensor.prototype;
P.index = function (this: Tensor, ...items: (IndexItem | readonly IndexItem[])[]) {
  return index(this, ...items);
};
