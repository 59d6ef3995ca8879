/**
 * torch.utils.checkpoint (non-reentrant semantics): runs `fn` without saving
 * anything for backward and, when backward reaches its outputs, runs it again
 * with grad mode on — with the random generator's state of the first run, so
 * dropout draws the same masks — and under the autocast settings of the first
 * run, so the recomputed ops take the same dtypes — and backpropagates
 * through the recomputed graph, which is freed as it is used. Memory: only fn's inputs and outputs
 * are kept between forward and backward, not the activations inside.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { getRngState, setRngState } from '../ops/creation';
import { enableGrad, isGradEnabled, noGrad } from '../autograd/grad_mode';
import { runBackward } from '../autograd/engine';
import { attachMeta, AutogradMeta, requiresGrad } from '../autograd/meta';
import { edgeOf, FunctionNode } from '../autograd/node';
import { autocastSnapshot, withAutocastSnapshot } from '../amp/autocast';
import { tidy } from '../scope';

type Out = Tensor | Tensor[];

/** Runs fn(...inputs) with its activations recomputed in backward instead of kept. */
export function checkpoint<T extends Out>(fn: (...inputs: any[]) => T, ...inputs: unknown[]): T {
  if (typeof fn !== 'function') throw codedError('TSGPU_ARG', `checkpoint: expected a function for fn, got ${typeof fn}`);
  if (!isGradEnabled()) return fn(...inputs);
  const rng = getRngState();
  const amp = autocastSnapshot();
  const out = noGrad(() => fn(...inputs));
  const outs = Array.isArray(out) ? out : [out];
  for (const o of outs) if (!(o instanceof Tensor)) throw codedError('TSGPU_ARG', 'checkpoint: fn must return a Tensor or an array of Tensors');
  const tensorArgs = inputs.map((a) => (a instanceof Tensor ? a : null));
  // The node's inputs: the tensor arguments that require grad, plus (through the recomputation) fn's parameters, whose
  // gradients the nested backward accumulates directly.
  const edges = tensorArgs.map((t) => (t !== null && requiresGrad(t) ? edgeOf(t) : null));
  const node: FunctionNode = new FunctionNode('CheckpointFunctionBackward', edges, outs.length, (grads) => {
    const after = getRngState();
    setRngState(rng);
    try {
      const again = inputs.map((a, i) => {
        const k = kept[i];
        if (k === null) return a;
        const d = k.unpack().detach();
        if (edges[i] !== null) d.requiresGrad_();
        return d;
      });
      const re = enableGrad(() => withAutocastSnapshot(amp, () => fn(...again)));
      const all = Array.isArray(re) ? re : [re];
      const use = all.map((o, j) => ({ o, g: grads[j] })).filter((x) => x.g !== null && x.o.requiresGrad);
      if (use.length > 0) runBackward(use.map((x) => x.o), use.map((x) => x.g), {});
      for (const o of all) o.dispose();
      return again.map((d, i) => {
        if (edges[i] === null || !(d instanceof Tensor)) return null;
        const g = d.grad;
        if (g === null) return null;
        const r = g.detach();
        d.dispose();
        return r;
      });
    } finally {
      setRngState(after);
    }
  });
  // fn's tensor inputs are the node's saved tensors: checked for in-place writes, freed by a backward without retainGraph.
  const kept = tensorArgs.map((t) => (t === null ? null : node.save(t)));
  outs.forEach((o, j) => {
    node.ref();
    attachMeta(o, new AutogradMeta(true, node, j));
  });
  if (outs.length === 0) {
    node.ref();
    node.unref();
  }
  return out;
}

/**
 * Runs `modules` (each with forward) in order on `input`, in `segments`
 * checkpointed segments (the last segment runs normally, as PyTorch's
 * checkpoint_sequential). Each segment runs inside `tidy`: the outputs of its
 * modules but the last are disposed when the segment ends (what backward
 * needs, the graph keeps), so a segment run without grad keeps nothing, and so
 * are the outputs between segments once the next segment has read them.
 */
export function checkpointSequential(modules: readonly { forward(x: Tensor): Tensor }[] | { children(): Iterable<{ forward(x: Tensor): Tensor }> }, segments: number, input: Tensor): Tensor {
  const list = Array.isArray(modules) ? modules : [...(modules as { children(): Iterable<{ forward(x: Tensor): Tensor }> }).children()];
  if (!Number.isInteger(segments) || segments < 1) throw codedError('TSGPU_ARG', `checkpointSequential: expected a positive integer for segments, got ${segments}`);
  const size = Math.floor(list.length / segments) || 1;
  let x = input;
  let start = 0;
  const run = (from: number, to: number) => (y: Tensor) => tidy(() => {
    let z = y;
    for (let i = from; i < to; i++) z = list[i].forward(z);
    return z;
  });
  // The outputs between segments are each the next segment's saved input: the graph keeps them, this loop need not.
  while (start + size < list.length) {
    const end = start + size;
    const next = checkpoint(run(start, end), x);
    if (x !== input) x.dispose();
    x = next;
    start = end;
  }
  const out = run(start, list.length)(x);
  if (x !== input && x !== out) x.dispose();
  return out;
}
