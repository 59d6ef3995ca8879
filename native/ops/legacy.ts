/**
 * The first float32 ops (mul, div, sum) over whole contiguous
 * storages, through the addon's original entry points; they move to the op
 * registry with their kernels. Inputs are made contiguous (and broadcast)
 * here, so that every shape works.
 */
import { native } from '../addon';
import { codedError } from '../errors';
import { throwIfInterrupted } from '../interrupt';
import { formatShape, Tensor } from '../tensor';
import { broadcastShapes, checkTensor, emptyTensor, sameDevice } from './helpers';
import { expandTo } from './views';

function float32Only(op: string, t: Tensor): void {
  if (t.dtype !== 'float32') throw codedError('TSGPU_UNSUPPORTED', `${op}: dtype ${t.dtype} is not supported yet (float32 only)`);
}

/** A tensor that is exactly its whole storage, contiguous (t itself when it is). */
function compact(t: Tensor): Tensor {
  if (t.isContiguous() && t.storageOffset() === 0 && t.untypedStorage().nbytes === t.nbytes) return t;
  return t.clone();
}

function binary(op: 'mul' | 'div', a: Tensor, b: Tensor | number): Tensor {
  checkTensor(op, 'self', a);
  float32Only(op, a);
  if (typeof b === 'number') {
    const ca = compact(a);
    const out = emptyTensor(a.shape.slice(), 'float32', a.device);
    native.binaryScalar(op, out.handle(), ca.handle(), b);
    throwIfInterrupted(op);
    if (ca !== a) ca.dispose();
    return out;
  }
  checkTensor(op, 'other', b);
  float32Only(op, b);
  const device = sameDevice(op, [a, b]);
  const shape = broadcastShapes(op, [a.shape, b.shape]);
  const ea = expandTo(a, shape);
  const eb = expandTo(b, shape);
  const ca = compact(ea);
  const cb = compact(eb);
  try {
    const out = emptyTensor(shape, 'float32', device);
    native.binary(op, out.handle(), ca.handle(), cb.handle());
    throwIfInterrupted(op);
    return out;
  } finally {
    for (const t of [ea, eb, ca, cb]) if (t !== a && t !== b) t.dispose();
  }
}

/** Elementwise product (float32 for now). */
export function mul(a: Tensor, b: Tensor | number): Tensor {
  return binary('mul', a, b);
}

/** Elementwise quotient (float32 for now). */
export function div(a: Tensor, b: Tensor | number): Tensor {
  return binary('div', a, b);
}

/** Sum of all elements as a 0-dim tensor (float32 for now). */
export function sum(a: Tensor): Tensor {
  checkTensor('sum', 'self', a);
  float32Only('sum', a);
  const ca = compact(a);
  try {
    const out = emptyTensor([], 'float32', a.device);
    native.sum(out.handle(), ca.handle());
    throwIfInterrupted('sum');
    return out;
  } finally {
    if (ca !== a) ca.dispose();
  }
}

declare module '../tensor' {
  interface Tensor {
    /** Elementwise this * other. */
    mul(other: Tensor | number): Tensor;
    /** Elementwise this / other. */
    div(other: Tensor | number): Tensor;
    /** Sum of all elements (0-dim). */
    sum(): Tensor;
  }
}

const P = Tensor.prototype;
P.mul = function (this: Tensor, other: Tensor | number) {
  return mul(this, other);
};
P.div = function (this: Tensor, other: Tensor | number) {
  return div(this, other);
};
P.sum = function (this: Tensor) {
  return sum(this);
};
