/**
 * PyTorch's memory-overlap checks of in-place writes:
 *
 * - a written-to tensor in which several elements are one memory location
 *   (a size > 1 dim of stride 0, as `x.expand([2, 3])`) is refused:
 *   "unsupported operation: more than one element of the written-to tensor
 *   refers to a single memory location";
 * - an input that covers some of the written-to tensor's memory in another
 *   layout (`a.add_(a.t())`, `x.narrow(0, 1, 4).copy_(x.narrow(0, 0, 4))`)
 *   is refused: "unsupported operation: some elements of the input tensor and
 *   the written-to tensor refer to a single memory location".
 *
 * As PyTorch, the second check is only decided for tensors that are dense
 * and non-overlapping (every element its own location, no gaps); an input
 * and an output sharing memory in a layout it cannot decide (say, two
 * strided slices that interleave) are not refused, and the runtime then
 * computes into a temporary and copies, so that the answer is the same on
 * cpu and cuda: the one computed from the values before the write.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';

/** How two tensors' memory relates (PyTorch's MemOverlapStatus). */
export type OverlapStatus = 'none' | 'full' | 'partial' | 'tooHard';

/**
 * Whether every element of t has its own memory location and the locations
 * are one block without gaps (PyTorch's is_non_overlapping_and_dense).
 */
export function isNonOverlappingAndDense(t: Tensor): boolean {
  const shape = t.shape;
  const strides = t.rawStrides;
  if (shape.length === 1) return shape[0] < 2 || strides[0] === 1;
  const order = [...shape.keys()].sort((a, b) => {
    if (shape[a] < 2) return shape[b] < 2 ? 0 : 1;
    if (shape[b] < 2) return -1;
    return strides[a] - strides[b];
  });
  let require = 1;
  for (const d of order) {
    if (shape[d] < 2) return true;
    if (strides[d] !== require) return false;
    require *= shape[d];
  }
  return true;
}

/** Whether some size > 1 dim of t has stride 0 (PyTorch's has_internal_overlap YES). */
export function hasInternalOverlap(t: Tensor): boolean {
  const strides = t.rawStrides;
  for (let d = 0; d < t.shape.length; d++) if (strides[d] === 0 && t.shape[d] > 1) return true;
  return false;
}

/** Refuses a written-to tensor whose elements share memory, with PyTorch's message. */
export function refuseInternalOverlap(t: Tensor): void {
  if (hasInternalOverlap(t)) {
    throw codedError('TSGPU_ARG', 'unsupported operation: more than one element of the written-to tensor refers to a single ' +
      'memory location. Please clone() the tensor before performing the operation.');
  }
}

/** How a's and b's memory relate (PyTorch's get_overlap_status). */
export function overlapStatus(a: Tensor, b: Tensor): OverlapStatus {
  if (a === b) return 'full';
  if (a.numel === 0 || b.numel === 0) return 'none';
  if (a.untypedStorage() !== b.untypedStorage()) return 'none';
  if (!isNonOverlappingAndDense(a) || !isNonOverlappingAndDense(b)) return 'tooHard';
  const aBegin = a.storageOffset() * a.itemsize;
  const bBegin = b.storageOffset() * b.itemsize;
  const aEnd = aBegin + a.numel * a.itemsize;
  const bEnd = bBegin + b.numel * b.itemsize;
  if (aBegin === bBegin && aEnd === bEnd) {
    const same = a.shape.length === b.shape.length && a.rawStrides.every((s, i) => s === b.rawStrides[i]);
    return same ? 'full' : 'partial';
  }
  return aBegin < bEnd && bBegin < aEnd ? 'partial' : 'none';
}

/** Refuses an input that partially overlaps the written-to tensor, with PyTorch's message. */
export function refusePartialOverlap(output: Tensor, input: Tensor): OverlapStatus {
  const status = overlapStatus(output, input);
  if (status === 'partial') {
    throw codedError('TSGPU_ARG', 'unsupported operation: some elements of the input tensor and the written-to tensor refer to a ' +
      'single memory location. Please clone() the tensor before performing the operation.');
  }
  return status;
}
