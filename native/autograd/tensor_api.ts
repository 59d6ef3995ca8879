/**
 * Autograd's face on Tensor: requiresGrad, grad, gradFn, isLeaf,
 * requiresGrad_(), retainGrad(), backward(), detach(), detach_(),
 * registerHook() — PyTorch's names in camelCase and its rules and messages.
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { Tensor } from '../tensor';
import { runBackward, BackwardOptions } from './engine';
import { attachMeta, AutogradMeta, GradHookFn, metaOf } from './meta';
import { Node, watchOutput } from './node';
import { creationHooks } from '../ops/creation';

/** What registerHook returns. */
export interface RemovableHandle {
  /** Removes the hook. */
  remove(): void;
}

declare module '../tensor' {
  interface Tensor {
    /** Whether gradients are computed for this tensor (settable on leaves; floating dtypes only). */
    requiresGrad: boolean;
    /** The gradient accumulated by backward() (leaves and retainGrad() tensors), or null. Setting null disposes the old one. */
    grad: Tensor | null;
    /** The node that made this tensor (e.g. MulBackward0), null for a leaf. */
    readonly gradFn: Node | null;
    /** True for a tensor that no recorded op made (every tensor that does not require grad, too). */
    readonly isLeaf: boolean;
    /** Whether a non-leaf keeps its gradient in `grad` (retainGrad()). */
    readonly retainsGrad: boolean;
    /** What holds this tensor in training terms ("parameter fc.weight", "gradient of fc.weight", ...), or null. */
    readonly autogradLabel: string | null;
    /** Sets requiresGrad (default true) in place; returns this. */
    requiresGrad_(requiresGrad?: boolean): Tensor;
    /** Keeps the gradient of this non-leaf in `grad` after backward(). */
    retainGrad(): void;
    /**
     * Computes the gradient of this tensor with respect to the leaves of its
     * graph and accumulates it in their `grad`. `gradient` is required unless
     * this is a scalar. Without retainGraph the saved tensors are freed as
     * they are used, and a second backward() through them fails.
     */
    backward(gradient?: Tensor | null, opts?: BackwardOptions): void;
    /** A new tensor on the same memory, outside autograd (requires no grad, no gradFn). */
    detach(): Tensor;
    /** Takes this tensor out of autograd in place; returns this. */
    detach_(): Tensor;
    /** Calls `hook(grad)` whenever a gradient for this tensor is computed; a returned tensor replaces the gradient. */
    registerHook(hook: GradHookFn): RemovableHandle;
  }
}

const P = Tensor.prototype;

function leafMeta(t: Tensor): AutogradMeta {
  let m = metaOf(t);
  if (m === null) {
    m = new AutogradMeta(false, null, 0);
    attachMeta(t, m);
  }
  return m;
}

function setRequiresGrad(t: Tensor, on: boolean, op: string): void {
  if (typeof on !== 'boolean') throw codedError('TSGPU_ARG', `${op}: expected a boolean for requiresGrad, got ${typeof on}`);
  const m = metaOf(t);
  if (m !== null && m.gradFn !== null) {
    if (on) return;
    throw codedError('TSGPU_AUTOGRAD', "you can only change requiresGrad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use varNoGrad = v.detach()");
  }
  if (on && !isFloatingPoint(t.dtype)) {
    throw codedError('TSGPU_AUTOGRAD', `only Tensors of floating point dtype can require gradients (got ${t.dtype})`);
  }
  if (!on && m === null) return;
  leafMeta(t).requiresGrad = on;
}

Object.defineProperty(P, 'requiresGrad', {
  get(this: Tensor) {
    const m = metaOf(this);
    return m !== null && m.requiresGrad;
  },
  set(this: Tensor, v: boolean) {
    setRequiresGrad(this, v, 'requiresGrad');
  },
  configurable: true,
});

Object.defineProperty(P, 'grad', {
  get(this: Tensor) {
    const m = metaOf(this);
    const g = m === null ? null : m.grad;
    return g !== null && g.isDisposed ? null : g;
  },
  set(this: Tensor, g: Tensor | null) {
    if (g !== null && !(g instanceof Tensor)) throw codedError('TSGPU_ARG', `grad: expected a Tensor or null, got ${typeof g}`);
    if (g !== null) {
      if (g.shape.length !== this.shape.length || g.shape.some((s, i) => s !== this.shape[i])) {
        throw codedError('TSGPU_AUTOGRAD', `assigned grad has data of a different size (${g.shape.join(', ')} vs ${this.shape.join(', ')})`);
      }
      if (g.dtype !== this.dtype) throw codedError('TSGPU_AUTOGRAD', `assigned grad has data of a different type (${g.dtype} vs ${this.dtype})`);
      if (g.device !== this.device) throw codedError('TSGPU_AUTOGRAD', `assigned grad has data located on a different device (${g.device} vs ${this.device})`);
    }
    const m = g === null ? metaOf(this) : leafMeta(this);
    if (m === null) return;
    const old = m.grad;
    m.grad = g;
    if (old !== null && old !== g) old.dispose();
  },
  configurable: true,
});

Object.defineProperty(P, 'gradFn', {
  get(this: Tensor) {
    return metaOf(this)?.gradFn ?? null;
  },
  configurable: true,
});

Object.defineProperty(P, 'isLeaf', {
  get(this: Tensor) {
    return (metaOf(this)?.gradFn ?? null) === null;
  },
  configurable: true,
});

Object.defineProperty(P, 'retainsGrad', {
  get(this: Tensor) {
    return metaOf(this)?.retainsGrad ?? false;
  },
  configurable: true,
});

Object.defineProperty(P, 'autogradLabel', {
  get(this: Tensor) {
    return metaOf(this)?.label ?? null;
  },
  configurable: true,
});

P.requiresGrad_ = function (this: Tensor, requiresGrad = true) {
  setRequiresGrad(this, requiresGrad, 'requiresGrad_');
  return this;
};

P.retainGrad = function (this: Tensor) {
  const m = metaOf(this);
  if (m === null || !m.requiresGrad) throw codedError('TSGPU_AUTOGRAD', "can't retainGrad on Tensor that has requiresGrad=false");
  if (m.gradFn === null) return; // a leaf keeps its gradient anyway
  m.retainsGrad = true;
  watchOutput(m);
};

P.backward = function (this: Tensor, gradient?: Tensor | null, opts: BackwardOptions = {}) {
  this.liveStorage(); // a disposed tensor says so (its graph went with it)
  runBackward([this], [gradient], opts);
};

P.detach = function (this: Tensor) {
  return new Tensor(this.untypedStorage(), this.shape.slice(), this.stride(), this.storageOffset(), this.dtype);
};

P.detach_ = function (this: Tensor) {
  const m = metaOf(this);
  if (m !== null) {
    this.autograd_ = null;
    m.releaseHolder(this);
  }
  return this;
};

P.registerHook = function (this: Tensor, hook: GradHookFn) {
  if (typeof hook !== 'function') throw codedError('TSGPU_ARG', `registerHook: expected a function for hook, got ${typeof hook}`);
  const m = metaOf(this);
  if (m === null || !m.requiresGrad) throw codedError('TSGPU_AUTOGRAD', "cannot register a hook on a tensor that doesn't require gradient");
  (m.hooks ??= []).push(hook);
  if (m.gradFn !== null) watchOutput(m);
  return {
    remove: () => {
      const i = m.hooks?.indexOf(hook) ?? -1;
      if (i >= 0) m.hooks!.splice(i, 1);
    },
  };
};

// The creation functions' requiresGrad option.
creationHooks.requiresGrad = (t, on) => setRequiresGrad(t, on, 'requiresGrad');
