/**
 * runOp: the one way TypeScript runs a native op. It encodes the outputs,
 * inputs and attributes of a call into a buffer shared with the addon and
 * makes one call (native/src/binding/op_binding.cc reads it):
 *
 *   runOp('add', [out], [a, b], { alpha: 2 });   // out = a + 2 * b
 *   runOp('add', [out], [a, 1.5]);               // a number for an input marked `#`
 *
 * Outputs are preallocated by the caller (shape and dtype are the op
 * function's business; see helpers.ts), or, on the small-op path
 * (runOpNew), allocated by the addon in the same call. The names and
 * attributes are checked by the compiler against the op list
 * (native/generated/op_list.ts).
 */
import { native } from '../addon';
import { deviceSlot } from '../device';
import { dtypeCode, dtypeSize } from '../dtype';
import { OP_LIST, OpAttrs, OpName } from '../generated/op_list';
import { armInterrupt, interrupted, throwIfInterrupted } from '../interrupt';
import { Storage } from '../storage';
import { contiguousStrides, Tensor } from '../tensor';

/** What may stand for an input: a tensor, a number (inputs marked `#`), or null/undefined (inputs marked `?`). */
export type OpInput = Tensor | number | boolean | null | undefined;

/**
 * Autograd's hook into every op call (native/autograd/record.ts installs it;
 * the op layer knows nothing else of autograd). While `active` (grad mode on),
 * `before` sees each call before it runs and returns null when no operand
 * takes part in autograd — the common case, which then costs one scan of the
 * operands — or a record that `after` turns into the outputs' gradFn once the
 * op has written them.
 */
export interface GradHook {
  /** Whether calls are seen at all (grad mode is on and autograd is loaded). */
  active: boolean;
  /** Sees a call before it runs (and before its operands are encoded: it may run ops itself); returns null to let it run untracked. */
  before(op: OpRef, outputs: readonly Tensor[], inputs: readonly OpInput[], attrs: object | undefined): unknown;
  /** Records the call's backward on its outputs (`record` is what `before` returned). */
  after(record: unknown, outputs: readonly Tensor[]): void;
  /** Lets go of what `before` made for a call that failed. */
  discard(record: unknown): void;
}

/** The installed hook (inactive until autograd loads). */
export const gradHook: GradHook = { active: false, before: () => null, after: () => undefined, discard: () => undefined };

/** An op of the op list, resolved once (by opRef) so that a call does no name lookup. */
export interface OpRef<N extends OpName = OpName> {
  readonly name: N;
  /** Index in the op list (what the addon's op() reads). */
  readonly id: number;
  /** Attribute names in op-list order. */
  readonly attrNames: readonly string[];
}

const OPS = new Map<string, OpRef>(
  OP_LIST.map((row, id) => [row.name, { name: row.name, id, attrNames: row.attrs.map((a) => a.slice(0, a.indexOf(':'))) }]),
);

/** The op `name` of the op list (resolve it once, at module load, for ops that run often). */
export function opRef<N extends OpName>(name: N): OpRef<N> {
  const op = OPS.get(name);
  if (op === undefined) throw new Error(`runOp: unknown op '${name}'`);
  return op as OpRef<N>;
}

// The addon's entry point, read once (the addon's exports object is slow to read from).
const nativeOp = native.op;

let buf = new Float64Array(4096);
native.setOpBuffer(buf);

/** Words one tensor takes in the buffer. */
function tensorWords(t: Tensor): number {
  return 5 + 2 * t.shape.length;
}

function ensureCapacity(words: number): void {
  if (words <= buf.length) return;
  let n = buf.length;
  while (n < words) n *= 2;
  buf = new Float64Array(n);
  native.setOpBuffer(buf);
}

function putTensor(p: number, t: Tensor): number {
  const shape = t.shape;
  const strides = t.rawStrides;
  const nd = shape.length;
  buf[p] = 0;
  buf[p + 1] = t.handle();
  buf[p + 2] = dtypeCode(t.dtype);
  buf[p + 3] = nd;
  buf[p + 4] = t.storageOffset();
  p += 5;
  for (let d = 0; d < nd; d++) buf[p + d] = shape[d];
  p += nd;
  for (let d = 0; d < nd; d++) buf[p + d] = strides[d];
  return p + nd;
}

function putInput(p: number, x: OpInput): number {
  if (x instanceof Tensor) return putTensor(p, x);
  if (typeof x === 'number' || typeof x === 'boolean') {
    buf[p] = 1;
    buf[p + 1] = Number(x);
    return p + 2;
  }
  buf[p] = 2;
  return p + 1;
}

/**
 * Encodes one attribute value at p: absent (0), a number (1), a boolean (2),
 * or (3) anything else, which the addon reads from the attribute array.
 */
function putAttr(p: number, v: unknown): number {
  if (v === undefined || v === null) {
    buf[p] = 0;
    return p + 1;
  }
  if (typeof v === 'number') {
    buf[p] = 1;
    buf[p + 1] = v;
    return p + 2;
  }
  if (typeof v === 'boolean') {
    buf[p] = 2;
    buf[p + 1] = v ? 1 : 0;
    return p + 2;
  }
  buf[p] = 3;
  return p + 1;
}

/** Encodes the attributes at p; returns the array of those the buffer cannot hold (or undefined). */
function putAttrs(p: number, op: OpRef, attrs: object | undefined): unknown[] | undefined {
  const names = op.attrNames;
  buf[p++] = names.length;
  let rest: unknown[] | undefined;
  for (let k = 0; k < names.length; k++) {
    const v = attrs === undefined ? undefined : (attrs as Record<string, unknown>)[names[k]];
    p = putAttr(p, v);
    if (v !== undefined && v !== null && typeof v !== 'number' && typeof v !== 'boolean') {
      (rest ??= new Array<unknown>(names.length))[k] = v;
    }
  }
  return rest;
}

/**
 * Runs op `name` on the device of its tensors, writing `outputs`. Throws a
 * coded error (TSGPU_ARG, TSGPU_UNSUPPORTED, TSGPU_DISPOSED, TSGPU_OOM,
 * TSGPU_INTERRUPTED, ...) whose message starts with the op's name.
 */
export function runOp<N extends OpName>(
  name: N | OpRef<N>,
  outputs: readonly Tensor[],
  inputs: readonly OpInput[],
  attrs?: OpAttrs[N],
): void {
  const op = typeof name === 'string' ? opRef(name) : name;
  // Before the buffer is filled: the hook may run ops of its own (copies of inputs the op overwrites).
  const record = gradHook.active ? gradHook.before(op, outputs, inputs, attrs) : null;
  try {
    armInterrupt();
    let words = 4 + 2 * op.attrNames.length;
    for (let i = 0; i < outputs.length; i++) words += tensorWords(outputs[i]);
    for (let i = 0; i < inputs.length; i++) {
      const x = inputs[i];
      words += x instanceof Tensor ? tensorWords(x) : 2;
    }
    ensureCapacity(words);
    buf[0] = op.id;
    buf[1] = outputs.length;
    buf[2] = inputs.length;
    let p = 3;
    for (let i = 0; i < outputs.length; i++) p = putTensor(p, outputs[i]);
    for (let i = 0; i < inputs.length; i++) p = putInput(p, inputs[i]);
    nativeOp(putAttrs(p, op, attrs));
    for (let i = 0; i < outputs.length; i++) outputs[i].markWritten();
    // An interrupt during the op takes effect when it returns (CPU ops also stop between chunks).
    throwIfInterrupted(op.name);
  } catch (e) {
    if (record !== null) gradHook.discard(record);
    throw e;
  }
  if (record !== null) gradHook.after(record, outputs);
}

/**
 * The small-op path: runs `op`, whose one output is a new dense tensor of
 * `shape` and `dtype` on `device`, which the addon allocates in the same
 * call (so a small op costs one crossing into the addon). The result is
 * freed again if the op fails or is interrupted. `shape` becomes the
 * result's (the caller gives a fresh array).
 */
export function runOpNew<N extends OpName>(
  op: OpRef<N>,
  inputs: readonly OpInput[],
  attrs: OpAttrs[N] | undefined,
  shape: number[],
  dtype: Tensor['dtype'],
  device: string,
): Tensor {
  const record = gradHook.active ? gradHook.before(op, [], inputs, attrs) : null;
  armInterrupt();
  const nd = shape.length;
  let words = 8 + nd + 1 + 2 * op.attrNames.length;
  for (let i = 0; i < inputs.length; i++) {
    const x = inputs[i];
    words += x instanceof Tensor ? tensorWords(x) : 2;
  }
  ensureCapacity(words);
  let numel = 1;
  for (let d = 0; d < nd; d++) numel *= shape[d];
  const slot = deviceSlot(device);
  const storage = new Storage(numel * dtypeSize(dtype), device, dtype, shape, slot);
  buf[0] = op.id;
  buf[1] = 1;
  buf[2] = inputs.length;
  buf[3] = 3;
  buf[4] = slot;
  buf[5] = dtypeCode(dtype);
  buf[6] = nd;
  buf[7] = storage.id;
  let p = 8;
  for (let d = 0; d < nd; d++) buf[p + d] = shape[d];
  p += nd;
  for (let i = 0; i < inputs.length; i++) p = putInput(p, inputs[i]);
  storage.adopt(nativeOp(putAttrs(p, op, attrs), storage) as number);
  storage.version = 1;
  const t = new Tensor(storage, shape, contiguousStrides(shape), 0, dtype);
  if (interrupted()) {
    t.dispose();
    throwIfInterrupted(op.name);
  }
  if (record !== null) gradHook.after(record, [t]);
  return t;
}
