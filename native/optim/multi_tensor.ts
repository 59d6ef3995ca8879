/**
 * The multi-tensor updates of Adam / AdamW and SGD: the parameters of a
 * group that share a device, a dtype and (Adam) a step count go to one
 * adamStep / sgdStep call, which on cuda updates all of them in a handful of
 * launches (a table of pointers, native/src/ops/cuda/optim_ops.cu) and on cpu
 * in one pass each. Which implementation a group uses follows PyTorch 2:
 * `fused: true` or `foreach: true` asks for it, `foreach: false` (without
 * fused) keeps the single-tensor loop, and by default (both null) cuda
 * parameters take it (unless TSGPU_CUDA_FUSED=0, ops/cuda_gates.ts) and cpu
 * ones the single-tensor loop. Here foreach and
 * fused run the same one-kernel update (PyTorch's foreach is a sequence of
 * multi-tensor kernels; its results are the same up to rounding).
 */
import { codedError } from '../errors';
import { fusedKernelsOn } from '../ops/cuda_gates';
import { runOp } from '../ops/dispatch';
import { Tensor } from '../tensor';

/** The implementation options PyTorch's optimizers take. */
export interface ImplementationOptions {
  /** Use the multi-tensor update (default null: on cuda yes, on cpu no). */
  foreach: boolean | null;
  /** Use the fused one-kernel update (default null: no). */
  fused: boolean | null;
}

/** Checks foreach / fused of a group (PyTorch's messages). */
export function checkImplementation(g: Partial<ImplementationOptions>): void {
  const { foreach, fused } = g;
  if (foreach !== undefined && foreach !== null && typeof foreach !== 'boolean') throw codedError('TSGPU_ARG', `expected a boolean or null for foreach, got ${String(foreach)}`);
  if (fused !== undefined && fused !== null && typeof fused !== 'boolean') throw codedError('TSGPU_ARG', `expected a boolean or null for fused, got ${String(fused)}`);
  if (foreach === true && fused === true) throw codedError('TSGPU_ARG', '`fused` and `foreach` cannot be `True` together.');
}

/** Whether the group's parameters take the multi-tensor update (see the file's note). */
export function usesMultiTensor(g: Partial<ImplementationOptions>, params: readonly Tensor[]): boolean {
  if (g.fused === true) {
    if (params.some((p) => !p.dtype.startsWith('float') && p.dtype !== 'bfloat16')) {
      throw codedError('TSGPU_ARG', '`fused=True` requires all the params to be floating point Tensors of supported devices: cpu, cuda');
    }
    return true;
  }
  if (g.foreach === true) return true;
  if (g.foreach === false) return false;
  // PyTorch's default on cuda; here only once the kernels have run on a GPU (ops/cuda_gates.ts).
  return params.length > 0 && params.every((p) => p.device !== 'cpu' && fusedKernelsOn(p.device));
}

/**
 * Splits parameters into buckets by `key(p)` (device, dtype and anything else
 * the update needs equal within a call), keeping the order of first use.
 */
export function bucketsBy<K extends string>(params: readonly Tensor[], key: (p: Tensor) => K): Map<K, Tensor[]> {
  const out = new Map<K, Tensor[]>();
  for (const p of params) {
    const k = key(p);
    const list = out.get(k);
    if (list) list.push(p);
    else out.set(k, [p]);
  }
  return out;
}

/**
 * Runs `op` over the lists (params first, then gradients, then state
 * lists), with gradients made contiguous and of the parameter's dtype
 * first; marks every written tensor written (version counters).
 */
export function runMultiTensor(op: 'adamStep' | 'sgdStep', lists: Tensor[][], attrs: Record<string, number | boolean>): void {
  const [params, grads, ...state] = lists;
  const temps: Tensor[] = [];
  const dense = grads.map((g, k) => {
    const cast = g.dtype === params[k].dtype ? g : g.to(params[k].dtype);
    const c = cast.contiguous();
    if (cast !== g) temps.push(cast);
    if (c !== cast) temps.push(c);
    return c;
  });
  try {
    const inputs = [...params, ...dense, ...state.flat()];
    // runOp's typing covers fixed inputs; the variadic list is passed whole.
    (runOp as (name: string, outputs: readonly Tensor[], inputs: readonly Tensor[], attrs: Record<string, unknown>) => void)(
      op, [params[0]], inputs, { count: params.length, ...attrs });
  } finally {
    for (const t of temps) t.dispose();
  }
  for (const p of params) p.markWritten();
  for (const l of state) for (const t of l) t.markWritten();
}
