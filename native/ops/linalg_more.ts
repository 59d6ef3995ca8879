/**
 * Products that compose from matmul (and so run on its GEMM path): dot,
 * vdot, mv, addmv, baddbmm, addbmm, kron, trace — PyTorch's shapes, checks
 * and `beta`/`alpha` options (beta 0 ignores the input, NaN included).
 */
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor, viewOf } from '../tensor';
import { tidy } from '../scope';
import { AddmmOptions, bmm, matmul } from './linalg';
import { argError, checkTensor } from './helpers';

function dims(op: string, name: string, t: Tensor, nd: number): void {
  checkTensor(op, name, t);
  if (t.ndim !== nd) {
    throw codedError('TSGPU_ARG', `${op}: ${name} must be a ${nd}D tensor, got ${t.ndim}D (shape ${formatShape(t.shape)})`);
  }
}

function sameDtype(op: string, a: Tensor, b: Tensor): void {
  if (a.dtype !== b.dtype) {
    throw codedError('TSGPU_ARG', `${op}: expected both vectors to have same dtype, but found ${a.dtype} and ${b.dtype}`);
  }
}

/** The inner product of two 1-D tensors of one size and dtype (0-dim). */
export function dot(self: Tensor, other: Tensor): Tensor {
  dims('dot', 'self', self, 1);
  dims('dot', 'tensor', other, 1);
  sameDtype('dot', self, other);
  if (self.shape[0] !== other.shape[0]) {
    throw shapeError(`dot: inconsistent tensor size, expected tensor [${self.shape[0]}] and src [${other.shape[0]}] to have the same number of elements, but got ${self.shape[0]} and ${other.shape[0]} elements respectively`);
  }
  return matmul(self, other);
}

/** dot for real tensors (PyTorch's vdot conjugates the first argument, which changes nothing without complex dtypes). */
export function vdot(self: Tensor, other: Tensor): Tensor {
  dims('vdot', 'self', self, 1);
  dims('vdot', 'other', other, 1);
  sameDtype('vdot', self, other);
  if (self.shape[0] !== other.shape[0]) {
    throw shapeError(`vdot: inconsistent tensor size, expected tensor [${self.shape[0]}] and src [${other.shape[0]}] to have the same number of elements`);
  }
  return matmul(self, other);
}

/** Matrix [n, m] times vector [m] → [n]. */
export function mv(self: Tensor, vec: Tensor): Tensor {
  dims('mv', 'self', self, 2);
  dims('mv', 'vec', vec, 1);
  if (self.shape[1] !== vec.shape[0]) {
    throw shapeError(`mv: size mismatch, got input (${self.shape[0]}), mat (${self.shape[0]}x${self.shape[1]}), vec (${vec.shape[0]})`);
  }
  return matmul(self, vec);
}

/** beta * out + alpha * product, as PyTorch's add* ops (beta 0: the input is ignored, NaN included). */
function combine(op: string, input: Tensor, product: Tensor, opts: AddmmOptions | undefined, shape: readonly number[]): Tensor {
  const beta = opts?.beta ?? 1;
  const alpha = opts?.alpha ?? 1;
  if (typeof beta !== 'number') argError(op, 'a number', 'beta', beta);
  if (typeof alpha !== 'number') argError(op, 'a number', 'alpha', alpha);
  const scaled = alpha === 1 ? product : product.mul(alpha);
  const r = beta === 0 ? scaled.expand(shape as number[]).clone() : (beta === 1 ? input : input.mul(beta)).add(scaled);
  if (r.shape.length !== shape.length || r.shape.some((s, i) => s !== shape[i])) {
    throw shapeError(`${op}: the input of shape ${formatShape(input.shape)} does not broadcast to the product's shape ${formatShape(shape)}`);
  }
  return r;
}

/** beta * input + alpha * (mat @ vec) (input broadcast to [n]). */
export function addmv(input: Tensor, mat: Tensor, vec: Tensor, opts?: AddmmOptions): Tensor {
  checkTensor('addmv', 'input', input);
  return tidy(() => { const p = mv(mat, vec); return combine('addmv', input, p, opts, p.shape); });
}

/** beta * input + alpha * bmm(batch1, batch2) (input broadcast to [b, n, p]). */
export function baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, opts?: AddmmOptions): Tensor {
  checkTensor('baddbmm', 'input', input);
  return tidy(() => { const p = bmm(batch1, batch2); return combine('baddbmm', input, p, opts, p.shape); });
}

/** beta * input + alpha * Σ_b batch1[b] @ batch2[b] (input broadcast to [n, p]). */
export function addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, opts?: AddmmOptions): Tensor {
  checkTensor('addbmm', 'input', input);
  return tidy(() => { const p = bmm(batch1, batch2).sum(0); return combine('addbmm', input, p, opts, p.shape); });
}

/** The Kronecker product: out[i·q + k, j·r + l] = a[i, j] · b[k, l], for any number of dims. */
export function kron(a: Tensor, b: Tensor): Tensor {
  checkTensor('kron', 'self', a);
  checkTensor('kron', 'other', b);
  return tidy(() => {
    const nd = Math.max(a.ndim, b.ndim);
    const as = [...new Array(nd - a.ndim).fill(1), ...a.shape];
    const bs = [...new Array(nd - b.ndim).fill(1), ...b.shape];
    // a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...], merged pairwise.
    const av = a.reshape(as.flatMap((s) => [s, 1]));
    const bv = b.reshape(bs.flatMap((s) => [1, s]));
    return av.mul(bv).reshape(as.map((s, i) => s * bs[i]));
  });
}

/** The sum of the main diagonal of a 2-D tensor (integers sum to int64, as PyTorch's). */
export function trace(t: Tensor): Tensor {
  dims('trace', 'self', t, 2);
  return tidy(() => viewOf(t, [Math.min(t.shape[0], t.shape[1])], [t.rawStrides[0] + t.rawStrides[1]], t.storageOffset()).sum());
}

declare module '../tensor' {
  interface Tensor {
    dot(other: Tensor): Tensor;
    vdot(other: Tensor): Tensor;
    mv(vec: Tensor): Tensor;
    addmv(mat: Tensor, vec: Tensor, opts?: AddmmOptions): Tensor;
    baddbmm(batch1: Tensor, batch2: Tensor, opts?: AddmmOptions): Tensor;
    addbmm(batch1: Tensor, batch2: Tensor, opts?: AddmmOptions): Tensor;
    kron(other: Tensor): Tensor;
    trace(): Tensor;
  }
}

const P = Tensor.prototype;
P.dot = function (this: Tensor, o: Tensor) { return dot(this, o); };
P.vdot = function (this: Tensor, o: Tensor) { return vdot(this, o); };
P.mv = function (this: Tensor, v: Tensor) { return mv(this, v); };
P.addmv = function (this: Tensor, m: Tensor, v: Tensor, o?: AddmmOptions) { return addmv(this, m, v, o); };
P.baddbmm = function (this: Tensor, b1: Tensor, b2: Tensor, o?: AddmmOptions) { return baddbmm(this, b1, b2, o); };
P.addbmm = function (this: Tensor, b1: Tensor, b2: Tensor, o?: AddmmOptions) { return addbmm(this, b1, b2, o); };
P.kron = function (this: Tensor, o: Tensor) { return kron(this, o); };
P.trace = function (this: Tensor) { return trace(this); };
