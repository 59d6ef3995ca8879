/**
 * The backward pass: runs the recorded graph from the roots to the leaves in
 * reverse order of recording (a node runs once every node that feeds it a
 * gradient has run), sums the gradients that meet at a node, and accumulates
 * what reaches a leaf into its `grad` — or, for torch.autograd.grad, hands
 * back the gradients of the inputs asked for and leaves every `grad` alone.
 *
 * Memory: each node's formula runs in a scope of its own, so its temporaries
 * are freed as soon as it returns; the gradients that flow between nodes are
 * freed as soon as the receiving node has used them; without retainGraph the
 * node's saved tensors are freed right after its formula ran.
 */
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { ownedScope, untracked } from '../scope';
import { noGrad, enableGrad } from './grad_mode';
import { attachMeta, AutogradMeta, metaOf } from './meta';
import { AccumulateGrad, aliasOf, edgeOf, Edge, Node } from './node';
import { ones } from '../ops/creation';

/** Options of backward() and grad(). */
export interface BackwardOptions {
  /** Keep the saved tensors so that the graph can be run again (default: createGraph). */
  retainGraph?: boolean;
  /** Record the backward pass itself, for higher-order derivatives (default false). */
  createGraph?: boolean;
}

/**
 * Another tensor object for gradient `g` (the engine owns and disposes its own): under createGraph it is
 * the same variable as g (shares g's meta), so that the graph built from g stays reachable through it.
 */
function sameGrad(g: Tensor, createGraph: boolean): Tensor {
  const a = aliasOf(g);
  const m = metaOf(g);
  if (createGraph && m !== null && m.requiresGrad) attachMeta(a, m);
  return a;
}

interface Capture {
  /** The input tensors' edges, whose arriving gradient is returned instead of accumulated. */
  edges: Edge[];
  grads: (Tensor | null)[];
}

/**
 * The gradient to start from for each root (ones for a scalar; checked against the root's shape). Under
 * createGraph a given gradient keeps its own history, so that what backward computes from it is
 * differentiable with respect to it too (as a gradient penalty's or gradgradcheck's output gradients need).
 */
function startGrads(roots: readonly Tensor[], grads: readonly (Tensor | null | undefined)[] | undefined, createGraph: boolean): Tensor[] {
  return roots.map((r, i) => {
    const g = grads?.[i];
    if (g === null || g === undefined) {
      if (r.numel !== 1) throw codedError('TSGPU_AUTOGRAD', `grad can be implicitly created only for scalar outputs (got an output of shape ${formatShape(r.shape)}; pass a gradient of that shape)`);
      return untracked(() => ones(r.shape.slice(), { dtype: r.dtype, device: r.device }));
    }
    if (!(g instanceof Tensor)) throw codedError('TSGPU_ARG', `backward: expected a Tensor for gradient, got ${typeof g}`);
    if (g.numel !== r.numel || (g.ndim !== r.ndim && g.numel !== 1)) {
      throw codedError('TSGPU_AUTOGRAD', `Mismatch in shape: grad_output[${i}] has a shape of ${formatShape(g.shape)} and output[${i}] has a shape of ${formatShape(r.shape)}`);
    }
    if (g.device !== r.device) throw codedError('TSGPU_AUTOGRAD', `backward: the gradient is on ${g.device} and output[${i}] on ${r.device}`);
    const reshaped = g.numel === r.numel && g.ndim !== r.ndim;
    const src = reshaped ? untracked(() => (createGraph ? enableGrad(() => g.reshape(r.shape.slice())) : g.reshape(r.shape.slice()))) : g;
    const a = sameGrad(src, createGraph);
    if (reshaped) src.dispose();
    return a;
  });
}

/**
 * Runs backward from `roots` with `grads` (see Tensor.backward and
 * torch.autograd.grad). With `inputs`, returns their gradients (null where
 * none reached them) and accumulates nothing.
 */
export function runBackward(
  roots: readonly Tensor[],
  grads: readonly (Tensor | null | undefined)[] | undefined,
  opts: BackwardOptions,
  inputs?: readonly Tensor[],
): (Tensor | null)[] {
  const createGraph = opts.createGraph ?? false;
  const retainGraph = opts.retainGraph ?? createGraph;
  const rootEdges = roots.map((r, i) => {
    const e = edgeOf(r);
    if (e === null) throw codedError('TSGPU_AUTOGRAD', `element ${i} of tensors does not require grad and does not have a grad_fn`);
    return e;
  });
  const start = startGrads(roots, grads, createGraph);
  let capture: Capture | null = null;
  if (inputs !== undefined) {
    capture = {
      edges: inputs.map((t, i) => {
        const e = edgeOf(t);
        if (e === null) throw codedError('TSGPU_AUTOGRAD', `One of the differentiated Tensors (input ${i}) does not require grad`);
        return e;
      }),
      grads: inputs.map(() => null),
    };
  }
  // Dependencies: how many edges of reachable nodes lead into each node.
  const deps = new Map<Node, number>();
  const stack: Node[] = [];
  for (const e of rootEdges) {
    if (!deps.has(e.node)) {
      deps.set(e.node, 0);
      stack.push(e.node);
    }
  }
  while (stack.length > 0) {
    const n = stack.pop()!;
    for (const e of n.next) {
      if (e === null) continue;
      const d = deps.get(e.node);
      if (d === undefined) {
        deps.set(e.node, 1);
        stack.push(e.node);
      } else deps.set(e.node, d + 1);
    }
  }
  const buffers = new Map<Node, (Tensor | null)[]>();
  const addTo = (e: Edge, g: Tensor): void => {
    let buf = buffers.get(e.node);
    if (buf === undefined) {
      buf = new Array<Tensor | null>(e.node.numOutputs).fill(null);
      buffers.set(e.node, buf);
    }
    const old = buf[e.inputNr];
    if (old === null) buf[e.inputNr] = g;
    else {
      buf[e.inputNr] = ownedScope(() => (createGraph ? enableGrad(() => old.add(g)) : noGrad(() => old.add(g))));
      old.dispose();
      g.dispose();
    }
  };
  rootEdges.forEach((e, i) => addTo(e, start[i]));
  // Ready nodes, the latest recorded first.
  const ready: Node[] = [];
  for (const [n, d] of deps) if (d === 0) ready.push(n);
  try {
    while (ready.length > 0) {
      ready.sort((a, b) => a.sequence - b.sequence);
      const node = ready.pop()!;
      const buf = buffers.get(node) ?? new Array<Tensor | null>(node.numOutputs).fill(null);
      buffers.delete(node);
      runHooks(node, buf, capture, createGraph);
      let results: (Tensor | null)[] = [];
      if (node instanceof AccumulateGrad) {
        const g = buf[0];
        if (g !== null) {
          const ci = capture ? capture.edges.findIndex((e) => e.node === node) : -1;
          if (ci >= 0) capture!.grads[ci] = g;
          else if (capture === null) accumulate(node, g, createGraph);
          else g.dispose();
        }
      } else if (buf.some((g) => g !== null)) {
        results = ownedScope(() => {
          const r = createGraph ? enableGrad(() => node.apply(buf, true)) : noGrad(() => node.apply(buf, false));
          // Each result is owned by the engine: an alias where the formula handed back a tensor it was given.
          const seen = new Set<Tensor>();
          return r.map((g) => {
            if (g === null || g === undefined) return null;
            if (seen.has(g) || buf.includes(g)) return sameGrad(g, createGraph);
            seen.add(g);
            return g;
          });
        });
        for (const g of buf) if (g !== null) g.dispose();
      } else {
        for (const g of buf) if (g !== null) g.dispose();
      }
      if (!retainGraph) node.freeSaved();
      for (let i = 0; i < node.next.length; i++) {
        const e = node.next[i];
        if (e === null) continue;
        const g = results[i];
        if (g !== null && g !== undefined) addTo(e, g);
        const d = deps.get(e.node)! - 1;
        deps.set(e.node, d);
        if (d === 0) ready.push(e.node);
      }
    }
  } finally {
    for (const b of buffers.values()) for (const g of b) if (g !== null) g.dispose();
  }
  return capture ? capture.grads : [];
}

/** Tensor hooks and retained gradients of a node's outputs, and captured non-leaf inputs. */
function runHooks(node: Node, buf: (Tensor | null)[], capture: Capture | null, createGraph: boolean): void {
  const metas = node.outputMetas;
  if (metas !== null) {
    for (let i = 0; i < metas.length; i++) {
      const m = metas[i];
      if (m === null || buf[i] === null) continue;
      buf[i] = applyHooks(m, buf[i]!, createGraph);
      if (m.retainsGrad && capture === null) storeGrad(m, sameGrad(buf[i]!, createGraph), createGraph);
    }
  }
  if (capture !== null) {
    capture.edges.forEach((e, k) => {
      if (e.node === node && !(node instanceof AccumulateGrad) && buf[e.inputNr] !== null) capture.grads[k] = sameGrad(buf[e.inputNr]!, createGraph);
    });
  }
}

/** The tensor's hooks on its gradient, in grad mode under createGraph (a hook's change is then differentiable). */
function applyHooks(m: AutogradMeta, g: Tensor, createGraph: boolean): Tensor {
  if (m.hooks === null) return g;
  for (const h of m.hooks) {
    const r = ownedScope(() => (createGraph ? enableGrad(() => h(g)) : noGrad(() => h(g))));
    if (r instanceof Tensor && r !== g) {
      g.dispose();
      g = r;
    }
  }
  return g;
}

/** Adds `g` into the leaf's grad (the first gradient is kept as it is when nothing else shares its memory). */
function accumulate(node: AccumulateGrad, g: Tensor, createGraph: boolean): void {
  const m = node.meta;
  g = applyHooks(m, g, createGraph);
  if (m.dead) {
    g.dispose();
    return;
  }
  storeGrad(m, g, createGraph);
}

function storeGrad(m: AutogradMeta, g: Tensor, createGraph: boolean): void {
  const old = m.grad;
  if (old === null || old.isDisposed) {
    if (!createGraph && (!g.isContiguous() || g.untypedStorage().refCount > 1 || metaOf(g) !== null)) {
      const c = untracked(() => noGrad(() => g.contiguous().clone()));
      g.dispose();
      g = c;
    }
    m.grad = g;
    return;
  }
  if (createGraph || metaOf(old) !== null) {
    m.grad = untracked(() => enableGrad(() => old.add(g)));
    old.dispose();
  } else {
    noGrad(() => old.add_(g));
  }
  g.dispose();
}
