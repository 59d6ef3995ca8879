/**
 * runOp: the one way TypeScript runs a native op. It encodes the outputs,
 * inputs and attributes of a call into a buffer shared with the addon and
 * makes one call (native/src/binding/op_binding.cc reads it):
 *
 *   runOp('add', [out], [a, b], { alpha: 2 });   // out = a + 2 * b
 *   runOp('add', [out], [a, 1.5]);               // a number for an input marked `#`
 *
 * Outputs are preallocated by the caller (shape and dtype are the op
 * function's business; see helpers.ts). The names and attributes are
 * checked by the compiler against the op list (native/generated/op_list.ts).
 */
import { native } from '../addon';
import { dtypeCode } from '../dtype';
import { OP_LIST, OpAttrs, OpName } from '../generated/op_list';
import { armInterrupt, throwIfInterrupted } from '../interrupt';
import { Tensor } from '../tensor';

/** What may stand for an input: a tensor, a number (inputs marked `#`), or null/undefined (inputs marked `?`). */
export type OpInput = Tensor | number | boolean | null | undefined;

interface OpEntry {
  id: number;
  attrNames: string[];
}

const OPS = new Map<string, OpEntry>(
  OP_LIST.map((row, id) => [row.name, { id, attrNames: row.attrs.map((a) => a.slice(0, a.indexOf(':'))) }]),
);

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

/**
 * Runs op `name` on the device of its tensors, writing `outputs`. Throws a
 * coded error (TSGPU_ARG, TSGPU_UNSUPPORTED, TSGPU_DISPOSED, TSGPU_OOM,
 * TSGPU_INTERRUPTED, ...) whose message starts with the op's name.
 */
export function runOp<N extends OpName>(
  name: N,
  outputs: readonly Tensor[],
  inputs: readonly OpInput[],
  attrs?: OpAttrs[N],
): void {
  const op = OPS.get(name);
  if (op === undefined) throw new Error(`runOp: unknown op '${name}'`);
  armInterrupt();
  let words = 3;
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
  for (let i = 0; i < inputs.length; i++) {
    const x = inputs[i];
    if (x instanceof Tensor) {
      p = putTensor(p, x);
    } else if (typeof x === 'number' || typeof x === 'boolean') {
      buf[p] = 1;
      buf[p + 1] = Number(x);
      p += 2;
    } else {
      buf[p++] = 2;
    }
  }
  if (attrs === undefined || op.attrNames.length === 0) {
    native.op();
  } else {
    const a = attrs as Record<string, unknown>;
    const values = new Array<unknown>(op.attrNames.length);
    for (let i = 0; i < values.length; i++) values[i] = a[op.attrNames[i]];
    native.op(values);
  }
  // An interrupt during the op takes effect when it returns (CPU ops also stop between chunks).
  throwIfInterrupted(name);
}
