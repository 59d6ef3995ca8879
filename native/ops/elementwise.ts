/**
 * Elementwise arithmetic through the op registry (the pattern the other
 * elementwise ops follow): add and sub with broadcasting, PyTorch's type
 * promotion (numbers are weak scalars), `alpha`, and in-place variants that
 * write through views.
 */
import { resultType } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { checkTensor, elementwise, opRef } from './helpers';

// Resolved once: these run for every small add and sub.
const ADD = opRef('add');

/** Options of add and sub. */
export interface AlphaOptions {
  /** Multiplier of `other` (default 1). */
  alpha?: number;
}

/** Whether self and other are both bool (a bool tensor and a boolean), where PyTorch's add is a logical or. */
function bothBool(self: Tensor, other: Tensor | number | boolean): boolean {
  return self.dtype === 'bool' && resultType(self, other) === 'bool';
}

/** self + alpha * other, broadcast (two bools: self || other, as PyTorch). */
export function add(self: Tensor, other: Tensor | number, opts?: AlphaOptions): Tensor {
  checkTensor('add', 'self', self);
  if (bothBool(self, other)) return (opts?.alpha ?? 1) === 0 ? self.clone() : self.logicalOr(other);
  return elementwise(ADD, [self, other], { attrs: { alpha: opts?.alpha } });
}

/** self - alpha * other, broadcast (two bools are refused, as PyTorch: use logicalXor). */
export function sub(self: Tensor, other: Tensor | number, opts?: AlphaOptions): Tensor {
  checkTensor('sub', 'self', self);
  if (bothBool(self, other)) {
    throw codedError('TSGPU_ARG', 'sub: subtraction of two bool tensors is not supported; use logicalXor (or logicalNot for a mask)');
  }
  return elementwise(ADD, [self, other], { attrs: { alpha: -(opts?.alpha ?? 1) } });
}

declare module '../tensor' {
  interface Tensor {
    /** this + alpha * other (broadcast; numbers are weak scalars). */
    add(other: Tensor | number, opts?: AlphaOptions): Tensor;
    /** In place: this += alpha * other; returns this. */
    add_(other: Tensor | number, opts?: AlphaOptions): Tensor;
    /** this - alpha * other. */
    sub(other: Tensor | number, opts?: AlphaOptions): Tensor;
    /** In place: this -= alpha * other; returns this. */
    sub_(other: Tensor | number, opts?: AlphaOptions): Tensor;
  }
}

const P = Tensor.prototype;
P.add = function (this: Tensor, other: Tensor | number, opts?: AlphaOptions) {
  return add(this, other, opts);
};
P.add_ = function (this: Tensor, other: Tensor | number, opts?: AlphaOptions) {
  return elementwise(ADD, [this, other], { attrs: { alpha: opts?.alpha }, out: this });
};
P.sub = function (this: Tensor, other: Tensor | number, opts?: AlphaOptions) {
  return sub(this, other, opts);
};
P.sub_ = function (this: Tensor, other: Tensor | number, opts?: AlphaOptions) {
  return elementwise(ADD, [this, other], { attrs: { alpha: -(opts?.alpha ?? 1) }, out: this });
};
