/**
 * torch.autograd.Function: an op whose forward and backward are written in
 * TypeScript. Subclass it with static `forward(ctx, ...args)` and
 * `backward(ctx, ...gradOutputs)`, and call `MyFn.apply(...args)`:
 *
 *   class Exp extends torch.autograd.Function {
 *     static forward(ctx: FunctionCtx, x: Tensor) { const y = x.exp(); ctx.saveForBackward(y); return y; }
 *     static backward(ctx: FunctionCtx, g: Tensor) { const [y] = ctx.savedTensors; return g.mul(y); }
 *   }
 *   const y = Exp.apply(x);
 *
 * forward runs with grad mode off; backward returns one gradient (or null)
 * per argument of forward. backward runs with grad mode on under createGraph
 * (as PyTorch's does), so a backward written with tensor ops can itself be
 * differentiated; a saved output is then connected to its Function's node.
 */
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { isGradEnabled, noGrad } from './grad_mode';
import { attachMeta, AutogradMeta, requiresGrad } from './meta';
import { edgeOf, FunctionNode, SavedTensor } from './node';
import { zeros } from '../ops/creation';

/** The context forward and backward share (PyTorch's ctx). */
export class FunctionCtx {
  /** Per argument of forward: whether a gradient is needed for it. */
  needsInputGrad: boolean[] = [];
  private toSave: Tensor[] = [];
  private saved: SavedTensor[] | null = null;
  /** Anything else forward wants backward to know. */
  [key: string]: unknown;

  /** Keeps tensors for backward (read them back with savedTensors). */
  saveForBackward(...tensors: Tensor[]): void {
    for (const t of tensors) if (!(t instanceof Tensor)) throw codedError('TSGPU_ARG', `saveForBackward: expected Tensors, got ${typeof t}`);
    this.toSave = tensors;
  }

  /** The tensors saveForBackward kept (checked against in-place writes since). */
  get savedTensors(): Tensor[] {
    if (this.saved === null) return this.toSave;
    // Grad mode is on in a backward exactly when it builds a graph (createGraph).
    const createGraph = isGradEnabled();
    return this.saved.map((s) => s.unpack(createGraph));
  }

  /** @internal Saves what saveForBackward kept with `node`; those among `outputs` as its outputs. */
  takeSaved(node: FunctionNode, outputs: readonly unknown[]): void {
    this.saved = this.toSave.map((t) => {
      const j = outputs.indexOf(t);
      return node.save(t, j >= 0 ? j : null);
    });
    this.toSave = [];
  }
}

type Static = {
  forward(ctx: FunctionCtx, ...args: any[]): Tensor | Tensor[];
  backward(ctx: FunctionCtx, ...grads: Tensor[]): (Tensor | null | undefined) | (Tensor | null | undefined)[];
  name: string;
};

/** The base class of custom autograd functions. */
export class Function {
  /** Runs forward on `args` and records backward for the tensors among them that require grad. */
  static apply(this: Static, ...args: unknown[]): any {
    if (typeof this.forward !== 'function' || this.forward === (Function as unknown as Static).forward) {
      throw codedError('TSGPU_AUTOGRAD', `${this.name}: a Function subclass must define static forward(ctx, ...args)`);
    }
    const ctx = new FunctionCtx();
    ctx.needsInputGrad = args.map((a) => requiresGrad(a));
    const record = isGradEnabled() && ctx.needsInputGrad.some(Boolean);
    const out = noGrad(() => this.forward(ctx, ...args));
    if (!record) return out;
    const outs = Array.isArray(out) ? out : [out];
    for (const o of outs) {
      if (!(o instanceof Tensor)) throw codedError('TSGPU_AUTOGRAD', `${this.name}.forward must return a Tensor or an array of Tensors`);
    }
    const edges = args.map((a) => (a instanceof Tensor && requiresGrad(a) ? edgeOf(a) : null));
    const cls = this;
    // What an output that received no gradient gets zeros of (the node keeps no output alive).
    const like = outs.map((o) => ({ shape: o.shape.slice(), dtype: o.dtype, device: o.device }));
    const node = new FunctionNode(`${this.name}Backward`, edges, outs.length, (grads) => {
      const g = cls.backward(ctx, ...grads.map((x, i) => x ?? zeros(like[i].shape.slice(), { dtype: like[i].dtype, device: like[i].device })));
      const list = Array.isArray(g) ? g : [g];
      return args.map((_, i) => {
        const r = list[i];
        return r instanceof Tensor && edges[i] !== null ? r : null;
      });
    });
    ctx.takeSaved(node, outs);
    outs.forEach((o, j) => {
      node.ref();
      attachMeta(o, new AutogradMeta(true, node, j));
    });
    return out;
  }

  static forward(_ctx: FunctionCtx, ..._args: unknown[]): Tensor | Tensor[] {
    throw codedError('TSGPU_AUTOGRAD', 'a Function subclass must define static forward(ctx, ...args)');
  }

  static backward(_ctx: FunctionCtx, ..._grads: Tensor[]): Tensor | null | (Tensor | null)[] {
    throw codedError('TSGPU_AUTOGRAD', 'a Function subclass must define static backward(ctx, ...gradOutputs)');
  }
}
