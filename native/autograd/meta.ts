/**
 * Autograd's state on a tensor (PyTorch's AutogradMeta): whether it requires
 * grad, its gradient, the node that made it (gradFn, null for a leaf) and its
 * hooks. A tensor outside autograd has no meta at all (`autograd_ === null`).
 *
 * Several tensor objects may hold one meta: a tensor saved for backward is an
 * alias that shares its original's meta, so that double backward reaches the
 * same variable. The meta counts its holders; when the last one is disposed it
 * gives up its gradient and its reference on gradFn, which frees the part of
 * the graph that nothing else needs (node.ts).
 */
import { AutogradSlot, Tensor } from '../tensor';

/**
 * What a meta holds of a node (node.ts defines nodes, and imports this file):
 * the node classes satisfy it, and their users cast back (metaOf(t).gradFn as Node).
 */
export interface NodeRef {
  ref(): void;
  unref(): void;
}

/** A hook on a tensor's gradient: may return a replacement gradient. */
export type GradHookFn = (grad: Tensor) => Tensor | void | undefined;

export class AutogradMeta implements AutogradSlot {
  /** Whether gradients are computed for this tensor. */
  requiresGrad: boolean;
  /** The accumulated gradient (leaves, and non-leaves with retainGrad), or null. */
  grad: Tensor | null = null;
  /** The node whose output this tensor is (null for a leaf). The meta holds one reference on it. */
  gradFn: NodeRef | null;
  /** Which output of gradFn this tensor is. */
  outputNr: number;
  /** A non-leaf whose gradient is kept in `grad` (retainGrad()). */
  retainsGrad = false;
  /** Hooks registered with registerHook, in order. */
  hooks: GradHookFn[] | null = null;
  /** The leaf's accumulator node (made at its first use in a graph). */
  accumulator: NodeRef | null = null;
  /** Undisposed tensor objects holding this meta. */
  holders = 0;
  /** What holds this tensor, for the memory views: e.g. "parameter blocks.0.attn.qkv.weight" (nn and optim set it). */
  label: string | null = null;
  /** The kind of holder `label` names (labels.ts). */
  labelKind: 'parameter' | 'optimizer' | 'runtime' | null = null;

  constructor(requiresGrad: boolean, gradFn: NodeRef | null, outputNr: number) {
    this.requiresGrad = requiresGrad;
    this.gradFn = gradFn;
    this.outputNr = outputNr;
  }

  /** Whether no tensor holds this meta any more (its gradient was freed). */
  get dead(): boolean {
    return this.holders <= 0;
  }

  releaseHolder(_t: Tensor): void {
    if (--this.holders > 0) return;
    const g = this.grad;
    this.grad = null;
    if (g !== null) g.dispose();
    const fn = this.gradFn;
    this.gradFn = null;
    if (fn !== null) fn.unref();
  }
}

/** The meta of `t`, or null. */
export function metaOf(t: Tensor): AutogradMeta | null {
  return t.autograd_ as AutogradMeta | null;
}

/** Gives `t` the meta `m` (one more holder). */
export function attachMeta(t: Tensor, m: AutogradMeta): void {
  const old = t.autograd_;
  if (old === m) return;
  t.autograd_ = m;
  m.holders++;
  if (old !== null) old.releaseHolder(t);
}

/** Whether `x` is a tensor that requires grad. */
export function requiresGrad(x: unknown): boolean {
  if (!(x instanceof Tensor)) return false;
  const m = x.autograd_ as AutogradMeta | null;
  return m !== null && m.requiresGrad;
}
