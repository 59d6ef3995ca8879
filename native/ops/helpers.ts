/**
 * What op functions share: device checks, broadcasting, dtype promotion and
 * the elementwise pattern (promote, cast, broadcast, allocate, run), with
 * errors that name the op, the shapes, dtypes and devices.
 *
 * An op's TypeScript function is usually one call:
 *   export function add(a: Tensor, b: Tensor | number, opts?: { alpha?: number }): Tensor {
 *     return elementwise('add', [a, b], { attrs: { alpha: opts?.alpha } });
 *   }
 */
import { canCast, DType, dtypeSize, isFloatingPoint, Operand, resultType } from '../dtype';
import { shapeError, codedError } from '../errors';
import { OP_LIST, OpAttrs, OpName } from '../generated/op_list';
import { emptyTensor as newEmptyTensor, formatShape, Tensor } from '../tensor';
import { capturesStacks } from '../storage';
import { refuseInternalOverlap, refusePartialOverlap } from './overlap';
import { OpInput, OpRef, opRef as dispatchOpRef, runOp as dispatchRunOp, runOpNew } from './dispatch';

export type { OpInput, OpRef } from './dispatch';
// Constants rather than re-exports (accessors, which would make every read of this module's exports slow).
/** See dispatch.ts. */
export const runOp = dispatchRunOp;
/** See dispatch.ts. */
export const opRef = dispatchOpRef;
/** See tensor.ts. */
export const emptyTensor = newEmptyTensor;

/** Throws TSGPU_ARG with "expected X for NAME, got Y". */
export function argError(op: string, expected: string, name: string, got: unknown): never {
  const g = typeof got === 'string' ? `'${got}'` : Array.isArray(got) ? `[${got.join(', ')}]` : String(got);
  throw codedError('TSGPU_ARG', `${op}: expected ${expected} for ${name}, got ${g}`);
}

/** Checks that `x` is a Tensor (TSGPU_ARG naming the op and argument otherwise). */
export function checkTensor(op: string, name: string, x: unknown): Tensor {
  if (!(x instanceof Tensor)) {
    argError(op, 'a Tensor', name, x === null ? 'null' : typeof x === 'object' ? (x as object).constructor?.name ?? 'an object' : typeof x);
  }
  return x as Tensor;
}

/**
 * The one device of `tensors` (numbers are ignored); throws
 * "<op>: expected all tensors on one device, got cuda:0 and cpu".
 */
export function sameDevice(op: string, operands: readonly (Tensor | number | boolean | null | undefined)[]): string {
  let device: string | null = null;
  for (const x of operands) {
    if (!(x instanceof Tensor)) continue;
    if (device === null) device = x.device;
    else if (x.device !== device) {
      throw codedError('TSGPU_ARG', `${op}: expected all tensors on one device, got ${device} and ${x.device}`);
    }
  }
  if (device === null) throw codedError('TSGPU_ARG', `${op}: expected at least one tensor`);
  return device;
}

/**
 * The broadcast shape of `shapes` (aligned to the right; size-1 dims
 * stretch); throws "<op>: shapes [2, 3] and [4] cannot be broadcast".
 */
export function broadcastShapesFor(op: string, shapes: readonly (readonly number[])[]): number[] {
  let out: number[] = [];
  for (const s of shapes) {
    const n = Math.max(out.length, s.length);
    const r = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const a = out[out.length - n + i] ?? 1;
      const b = s[s.length - n + i] ?? 1;
      if (a !== b && a !== 1 && b !== 1) {
        throw shapeError(
          `${op}: shapes ${shapes.map((x) => formatShape(x)).join(' and ')} cannot be broadcast`,
        );
      }
      r[i] = a === 1 ? b : a;
    }
    out = r;
  }
  return out;
}

/**
 * torch.broadcast_shapes: the shape that tensors of `shapes` broadcast to
 * (each a list of sizes, or one number for a 1-D shape).
 * @example torch.broadcastShapes([2, 1], [3]) // [2, 3]
 */
export function broadcastShapes(...shapes: (number | readonly number[])[]): number[] {
  const lists = shapes.map((s, i) => {
    const list = typeof s === 'number' ? [s] : s;
    if (!Array.isArray(list) || list.some((n) => typeof n !== 'number' || !Number.isInteger(n) || n < 0)) {
      argError('broadcastShapes', 'a shape (a list of non-negative integers, or one integer)', `shapes[${i}]`, s as unknown);
    }
    return list;
  });
  let out: number[] = [];
  lists.forEach((s, k) => {
    const n = Math.max(out.length, s.length);
    const r = new Array<number>(n);
    for (let i = 0; i < n; i++) {
      const a = out[out.length - n + i] ?? 1;
      const b = s[s.length - n + i] ?? 1;
      if (a !== b && a !== 1 && b !== 1) {
        throw shapeError(`broadcastShapes: Shape mismatch: objects cannot be broadcast to a single shape. ` +
          `Mismatch is between shapes ${lists.slice(0, k).map((x) => formatShape(x)).join(', ')} and ${formatShape(s)} (argument ${k})`);
      }
      r[i] = a === 1 ? b : a;
    }
    out = r;
  });
  return out;
}

/**
 * Runs `fill` (which writes `t`) and returns `t`; if it throws, `t` is
 * disposed first, so that a failed op leaves no output behind.
 */
export function runInto(t: Tensor, fill: (t: Tensor) => void): Tensor {
  try {
    fill(t);
  } catch (e) {
    t.dispose();
    throw e;
  }
  return t;
}

/** `t` with dtype `dtype` (t itself when it already has it; else a converted copy). */
export function castTo(t: Tensor, dtype: DType): Tensor {
  if (t.dtype === dtype) return t;
  return runInto(emptyTensor(t.shape.slice(), dtype, t.device), (out) => runOp('copy', [out], [t]));
}

const INPLACE_OK = new Set<string>(OP_LIST.filter((r) => r.inplace).map((r) => r.name));

/** Whether two tensors view overlapping elements of one storage in different ways. */
function partialOverlap(a: Tensor, b: Tensor): boolean {
  if (a.untypedStorage() !== b.untypedStorage()) return false;
  const same =
    a.storageOffset() === b.storageOffset() &&
    a.dtype === b.dtype &&
    a.shape.length === b.shape.length &&
    a.shape.every((s, i) => s === b.shape[i] && (s === 1 || a.rawStrides[i] === b.rawStrides[i]));
  return !same;
}

/** Options of elementwise(). */
export interface ElementwiseOptions<N extends OpName> {
  /** The op's attributes. */
  attrs?: OpAttrs[N];
  /**
   * Dtype the kernel computes in and receives its tensor inputs in (default:
   * torch.result_type of the operands). Inputs of another dtype are cast first.
   */
  computeDtype?: DType;
  /** Dtype of the result (default: computeDtype); e.g. 'bool' for comparisons. */
  outDtype?: DType;
  /** Operand indices that are not cast to computeDtype (e.g. a bool mask of where). */
  keepDtype?: readonly number[];
  /**
   * Writes the result into this tensor (in-place ops: `x.add_(y)` passes x),
   * which must have the broadcast shape; the result dtype must be castable to its dtype.
   */
  out?: Tensor;
}

/**
 * The elementwise pattern: checks devices, computes the result dtype
 * (PyTorch's promotion, numbers as weak scalars) and the broadcast shape,
 * casts tensor inputs to the compute dtype, allocates the output (or writes
 * into `opts.out`) and runs the op. Numbers go to the kernel as numbers (the
 * op-list input must be marked `#`).
 */
export function elementwise<N extends OpName>(
  name: N | OpRef<N>,
  inputs: readonly (Tensor | number | boolean)[],
  opts: ElementwiseOptions<N> = {},
): Tensor {
  const ref = typeof name === 'string' ? opRef(name) : name;
  const op = ref.name;
  // Checks, the device, the result dtype and the broadcast shape in one pass
  // (this runs for every small op, so no intermediate arrays).
  let device: string | null = opts.out ? opts.out.device : null;
  let shape: number[] | null = null;
  let sameShape = true;
  let first: Tensor | null = null;
  for (let i = 0; i < inputs.length; i++) {
    const x = inputs[i];
    if (x instanceof Tensor) {
      x.liveStorage(); // a disposed operand fails before anything is allocated
      if (device === null) device = x.device;
      else if (x.device !== device) sameDevice(op, opts.out ? [opts.out, ...inputs] : inputs);
      if (first === null) first = x;
      else if (sameShape && !shapesEqual(first.shape, x.shape)) sameShape = false;
    } else if (typeof x !== 'number' && typeof x !== 'boolean') {
      argError(op, 'a Tensor or a number', `argument ${i + 1}`, x === null ? 'null' : typeof x === 'object' ? 'an object' : x);
    }
  }
  if (first === null || device === null) throw codedError('TSGPU_ARG', `${op}: expected at least one tensor`);
  if (sameShape && opts.out === undefined && opts.keepDtype === undefined) {
    // The common case: operands of one shape and dtype, nothing to cast or
    // broadcast; the addon allocates the result in the op's own call.
    // (Results whose allocation records the calling code take the general path.)
    const d = uniformDtype(inputs, first.dtype);
    if (d !== null && (opts.computeDtype === undefined || opts.computeDtype === d)) {
      const outDtype = opts.outDtype ?? d;
      if (!capturesStacks(device, first.numel * dtypeSize(outDtype))) {
        return runOpNew(ref, inputs, opts.attrs, first.shape.slice(), outDtype, device);
      }
    }
  }
  if (sameShape) shape = first.shape.slice();
  else shape = broadcastShapesFor(op, inputs.filter((x): x is Tensor => x instanceof Tensor).map((t) => t.shape));
  const compute = opts.computeDtype ?? resultType(...(inputs as Operand[]));
  const outDtype = opts.outDtype ?? compute;
  const keep = opts.keepDtype;
  let temps: Tensor[] | null = null;
  let cast: readonly OpInput[] = inputs;
  for (let i = 0; i < inputs.length; i++) {
    const x = inputs[i];
    if (!(x instanceof Tensor) || x.dtype === compute || (keep !== undefined && keep.includes(i))) continue;
    if (cast === inputs) cast = inputs.slice();
    const c = castTo(x, compute);
    (temps ??= []).push(c);
    (cast as OpInput[])[i] = c;
  }
  try {
    const target = opts.out;
    if (target === undefined) {
      const out = emptyTensor(shape, outDtype, device);
      try {
        runOp(ref, [out], cast, opts.attrs);
      } catch (e) {
        out.dispose();
        throw e;
      }
      return out;
    }
    if (!shapesEqual(target.shape, shape)) {
      throw codedError(
        'TSGPU_ARG',
        `${op}: the result of shape ${formatShape(shape)} does not fit the in-place target of shape ${formatShape(target.shape)}`,
      );
    }
    if (!canCast(outDtype, target.dtype)) {
      throw codedError('TSGPU_ARG', `${op}: result type ${outDtype} can't be cast to the desired output type ${target.dtype}`);
    }
    // PyTorch's overlap checks (overlap.ts): refused when the target's elements share memory, or an
    // input covers part of it in another layout; a layout they cannot decide computes through a temporary.
    refuseInternalOverlap(target);
    for (const x of inputs) if (x instanceof Tensor && x !== target) refusePartialOverlap(target, x);
    const direct = INPLACE_OK.has(op) && target.dtype === outDtype &&
      cast.every((x) => !(x instanceof Tensor) || x === target || !partialOverlap(x, target));
    if (direct) {
      runOp(ref, [target], cast, opts.attrs);
      return target;
    }
    const tmp = emptyTensor(shape, outDtype, device);
    (temps ??= []).push(tmp);
    runOp(ref, [tmp], cast, opts.attrs);
    runOp('copy', [target], [tmp]);
    return target;
  } finally {
    if (temps !== null) for (const t of temps) t.dispose();
  }
}

/**
 * `dtype` when it is the result type of `inputs` with nothing to cast: every
 * tensor has it and no number promotes it (torch.result_type); else null.
 */
function uniformDtype(inputs: readonly (Tensor | number | boolean)[], dtype: DType): DType | null {
  for (let i = 0; i < inputs.length; i++) {
    const x = inputs[i];
    if (x instanceof Tensor) {
      if (x.dtype !== dtype) return null;
    } else if (typeof x === 'number') {
      // A number stays weak unless it is of a higher kind: fractional for an integer tensor, any for bool.
      if (!isFloatingPoint(dtype) && (dtype === 'bool' || !Number.isInteger(x))) return null;
    }
  }
  return dtype;
}

function shapesEqual(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
