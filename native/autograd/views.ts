/**
 * The backward of a view. Every view (view, reshape, transpose, permute,
 * narrow, select, slice, expand, squeeze, unsqueeze, index with numbers and
 * ranges …) is made by tensor.ts viewOf from its base's storage with other
 * sizes, strides and offset, so one formula covers them all: the gradient of
 * the view is summed over the dims the view broadcast (stride 0), then placed
 * where the view's elements lie in the base (PyTorch's as_strided backward).
 * A view with the base's elements in the base's order is a reshape of the
 * gradient and costs no copy.
 */
import { empty, zeros } from '../ops/creation';
import { Tensor, viewOf, stridesAreContiguous } from '../tensor';
import { sameShape } from './shapes';
import { DType } from '../dtype';

/** Sizes, strides and storage offset of a tensor. */
export interface Geometry {
  shape: number[];
  strides: number[];
  offset: number;
}

export function geometryOf(t: Tensor): Geometry {
  return { shape: t.shape.slice(), strides: t.stride(), offset: t.storageOffset() };
}

function numel(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** PyTorch's name for the view's node, from what the view did. */
export function viewLabel(from: Geometry, to: Geometry): string {
  if (to.shape.some((s, d) => s > 1 && to.strides[d] === 0)) return 'ExpandBackward0';
  if (numel(from.shape) === numel(to.shape) && from.offset === to.offset) {
    if (stridesAreContiguous(to.shape, to.strides) === stridesAreContiguous(from.shape, from.strides)) {
      return to.shape.length === from.shape.length && !sameShape(to.shape, from.shape) ? 'PermuteBackward0' : 'ViewBackward0';
    }
    return 'PermuteBackward0';
  }
  return to.shape.length < from.shape.length ? 'SelectBackward0' : 'SliceBackward0';
}

/** The gradient of the base from the gradient `g` of its view. */
export function viewBackward(g: Tensor, from: Geometry, to: Geometry, dtype: DType): Tensor {
  // 1. Broadcast dims of the view: sum them (keeping them as size 1).
  const wide: number[] = [];
  for (let d = 0; d < to.shape.length; d++) if (to.shape[d] > 1 && to.strides[d] === 0) wide.push(d);
  let grad = g;
  let shape = to.shape;
  if (wide.length > 0) {
    grad = g.sum(wide, { keepdim: true });
    shape = to.shape.map((s, d) => (wide.includes(d) ? 1 : s));
  }
  const n = numel(shape);
  // 2. The same elements in the same order: a reshape.
  if (n === numel(from.shape) && from.offset === to.offset && stridesAreContiguous(from.shape, from.strides) && stridesAreContiguous(shape, to.strides)) {
    return grad.reshape(from.shape);
  }
  // 2b. A gradient laid out as the view lies in a dense base (a transposed view's gradient computed in the
  // base's order): a view of the gradient's own memory with the base's geometry.
  if (n === numel(from.shape) && from.offset === to.offset && stridesAreContiguous(from.shape, from.strides) && grad.storageOffset() === 0 &&
      grad.untypedStorage().nbytes === n * grad.itemsize && grad.dtype === dtype && shape.every((s, d) => s === 1 || grad.stride(d) === to.strides[d])) {
    return viewOf(grad, from.shape.slice(), from.strides.slice(), 0);
  }
  // 3. Place the view's elements where they lie in the base's storage span.
  // A broadcast base (stride 0) shows each stored element several times: the
  // gradient of the stored element is shared evenly among them, which the
  // base's own backward sums back together.
  let span = 1;
  let copies = 1;
  for (let d = 0; d < from.shape.length; d++) {
    span += (from.shape[d] - 1) * from.strides[d];
    if (from.strides[d] === 0) copies *= from.shape[d];
  }
  if (from.shape.some((s) => s === 0)) span = 0;
  const full = n * copies === numel(from.shape);
  const device = g.device;
  const buf = full ? empty([span], { dtype, device }) : zeros([span], { dtype, device });
  const strides = to.strides.map((s, d) => (shape[d] === 1 ? 0 : s));
  const region = viewOf(buf, shape.slice(), strides, to.offset - from.offset);
  region.copy_(grad);
  region.dispose();
  const out = viewOf(buf, from.shape.slice(), from.strides.slice(), 0);
  buf.dispose();
  if (copies === 1) return out;
  const shared = out.div(copies);
  out.dispose();
  return shared;
}
