/**
 * The graph autograd records: a Node per op call that produced a tensor
 * requiring grad (PyTorch's grad_fn), with an edge per differentiable input to
 * the node that produced that input — or to the input's AccumulateGrad when
 * it is a leaf — and the tensors its backward formula needs (SavedTensor).
 *
 * Memory: a node is reference-counted by the metas whose gradFn it is and by
 * the edges of later nodes. When the count reaches zero (the outputs were
 * disposed, left a tidy, or were collected and nothing later uses them) its
 * saved tensors are disposed and it lets go of its own inputs' nodes, so a
 * disposed loss frees the whole graph behind it at once. A backward without
 * `retainGraph` frees each node's saved tensors as soon as its formula ran.
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { untracked } from '../scope';
import { attachMeta, AutogradMeta, GradHookFn } from './meta';

/** Where a gradient goes: input slot `inputNr` of `node`. */
export interface Edge {
  readonly node: Node;
  readonly inputNr: number;
}

/** PyTorch's message for a graph whose saved tensors a backward already freed. */
export const SECOND_BACKWARD =
  'Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). ' +
  'Saved intermediate values of the graph are freed when you call backward() or torch.autograd.grad(). ' +
  'Specify retainGraph: true if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.';

/** An alias of `t` (same storage and view) that no tidy records. */
export function aliasOf(t: Tensor): Tensor {
  return untracked(() => new Tensor(t.untypedStorage(), t.shape.slice(), t.stride(), t.storageOffset(), t.dtype));
}

let nextSequence = 0;

/** Who is told when a node starts and stops holding saved tensors (labels.ts, for the memory views). */
/** `saving` hears of each tensor a node saves (the alias it keeps); `saved`, that the node freed them all. */
export const savedWatch: { saving: ((n: Node, t: Tensor) => void) | null; saved: ((n: Node) => void) | null } = { saving: null, saved: null };

/** One recorded op (PyTorch's grad_fn). */
export abstract class Node {
  /** PyTorch's name of the node, e.g. "MulBackward0". */
  readonly label: string;
  /** One edge per input slot; null where the input needs no gradient. */
  readonly next: (Edge | null)[];
  /** Tensors the backward formula needs. */
  readonly saved: SavedTensor[] = [];
  /** Order of creation (later nodes run first among those ready). */
  readonly sequence = nextSequence++;
  /** Number of outputs (gradients it receives). */
  readonly numOutputs: number;
  /** Where it was made: "Cell In[4], line 2" when the kernel maps frames (the memory views show it). */
  site: string | null = null;
  /** The notebook cell that was running when it was made (0 outside cells), for the memory views. */
  cell = 0;
  /** Hooks and retained gradients of its outputs (registerHook/retainGrad on a non-leaf), by output. */
  outputMetas: (AutogradMeta | null)[] | null = null;
  /** Called once when the node is freed (a node that holds another node lets go of it). */
  onFree: (() => void) | null = null;
  private refs = 0;
  private savedFreed = false;

  constructor(label: string, next: (Edge | null)[], numOutputs: number) {
    this.label = label;
    this.next = next;
    this.numOutputs = numOutputs;
    for (const e of next) if (e !== null) e.node.ref();
  }

  /** PyTorch's grad_fn.name(). */
  name(): string {
    return this.label;
  }

  /** PyTorch's next_functions: the node and input slot each edge leads to. */
  get nextFunctions(): [Node | null, number][] {
    return this.next.map((e) => (e === null ? [null, 0] : [e.node, e.inputNr]));
  }

  /** The gradients of the inputs from the gradients of the outputs (null: none, or zero). */
  abstract apply(grads: (Tensor | null)[], createGraph: boolean): (Tensor | null)[];

  /** Bytes of memory the saved tensors keep alive (each storage once). */
  savedBytes(): number {
    const seen = new Set<unknown>();
    let n = 0;
    for (const s of this.saved) {
      const t = s.peek();
      if (t === null) continue;
      const st = t.untypedStorage();
      if (seen.has(st)) continue;
      seen.add(st);
      n += st.nbytes;
    }
    return n;
  }

  /** Saves `t` for backward: an input, or with `outputNr` that output of this node. */
  save(t: Tensor, outputNr: number | null = null): SavedTensor {
    const s = new SavedTensor(t, this, outputNr);
    if (savedWatch.saving !== null) savedWatch.saving(this, s.peek()!);
    this.saved.push(s);
    return s;
  }

  /** @internal One more meta or edge refers to this node. */
  ref(): void {
    this.refs++;
  }

  /** @internal A meta or edge let go; the last one frees the saved tensors and the edges. */
  unref(): void {
    if (--this.refs > 0) return;
    this.freeSaved();
    for (const e of this.next) if (e !== null) e.node.unref();
    const f = this.onFree;
    this.onFree = null;
    if (f !== null) f();
  }

  /** Disposes the saved tensors (after a backward without retainGraph, or when the node is freed). */
  freeSaved(): void {
    if (this.savedFreed) return;
    this.savedFreed = true;
    for (const s of this.saved) s.free();
    if (this.saved.length > 0 && savedWatch.saved !== null) savedWatch.saved(this);
  }

  /** Whether a backward freed the saved tensors. */
  get savedAreFreed(): boolean {
    return this.savedFreed;
  }

  toString(): string {
    return `<${this.label}>`;
  }
}

/**
 * A tensor kept for a backward formula: an alias of the original, with the
 * storage's version at the time, so that an in-place write in between is
 * caught (PyTorch's SavedVariable). A saved input shares its original's meta
 * (so double backward reaches it); a saved output does not (that would make a
 * cycle of references), and gets one when unpacked under createGraph: output
 * `outputNr` of its node, so that a gradient of, say, a second output reaches
 * that output's slot of the node. (An input that the op itself overwrites is
 * saved as a copy made before the op ran, record.ts.)
 */
export class SavedTensor {
  private t: Tensor | null;
  private readonly version: number;
  private readonly owner: Node;
  private readonly isOutput: boolean;
  private readonly outputNr: number;

  constructor(t: Tensor, owner: Node, outputNr: number | null) {
    this.t = aliasOf(t);
    this.owner = owner;
    this.isOutput = outputNr !== null;
    this.outputNr = outputNr ?? 0;
    const m = t.autograd_ as AutogradMeta | null;
    if (!this.isOutput && m !== null) attachMeta(this.t, m);
    this.version = t.untypedStorage().version;
  }

  /** The alias, or null once freed (for the memory views). */
  peek(): Tensor | null {
    return this.t;
  }

  /** The saved tensor, checked; under createGraph a saved output is connected to its node. */
  unpack(createGraph = false): Tensor {
    const t = this.t;
    if (t === null) throw codedError('TSGPU_AUTOGRAD', SECOND_BACKWARD);
    const v = t.untypedStorage().version;
    if (v !== this.version) {
      throw codedError(
        'TSGPU_AUTOGRAD',
        `one of the variables needed for gradient computation has been modified by an inplace operation: ` +
          `[${t.dtype} ${formatShape(t.shape)}]${this.isOutput ? `, which is output ${this.outputNr} of ${this.owner.label},` : ''} ` +
          `is at version ${v}; expected version ${this.version} instead. ` +
          'Hint: the operation that failed to compute its gradient is ' + this.owner.label +
          '; look for an in-place op (a method ending in _) on that tensor between the forward pass and backward.',
      );
    }
    // (An integer output, such as max's indices, carries no gradient and stays out of the graph.)
    if (this.isOutput && createGraph && isFloatingPoint(t.dtype)) {
      const a = aliasOf(t);
      this.owner.ref();
      attachMeta(a, new AutogradMeta(true, this.owner, this.outputNr));
      return a;
    }
    return t;
  }

  /** Disposes the alias. */
  free(): void {
    const t = this.t;
    this.t = null;
    if (t !== null) t.dispose();
  }
}

/** A leaf's sink: adds the gradient that reaches it into `grad` (PyTorch's AccumulateGrad). */
export class AccumulateGrad extends Node {
  readonly meta: AutogradMeta;
  /** Shape, dtype and device of the leaf, for the checks. */
  readonly shape: readonly number[];
  readonly dtype: Tensor['dtype'];

  constructor(meta: AutogradMeta, leaf: Tensor) {
    super('AccumulateGrad', [], 1);
    this.meta = meta;
    this.shape = leaf.shape.slice();
    this.dtype = leaf.dtype;
  }

  apply(): (Tensor | null)[] {
    return []; // the engine accumulates (engine.ts accumulate)
  }
}

/** A node whose backward is a function (custom autograd Functions, views, hooks). */
export class FunctionNode extends Node {
  private readonly fn: (grads: (Tensor | null)[], node: FunctionNode, createGraph: boolean) => (Tensor | null)[];

  constructor(label: string, next: (Edge | null)[], numOutputs: number, fn: FunctionNode['fn']) {
    super(label, next, numOutputs);
    this.fn = fn;
  }

  apply(grads: (Tensor | null)[], createGraph: boolean): (Tensor | null)[] {
    return this.fn(grads, this, createGraph);
  }
}

/** The edge that a gradient for tensor `t` follows (its gradFn, or its leaf's accumulator), or null. */
export function edgeOf(t: Tensor): Edge | null {
  const m = t.autograd_ as AutogradMeta | null;
  if (m === null || !m.requiresGrad) return null;
  if (m.gradFn !== null) return { node: m.gradFn as Node, inputNr: m.outputNr };
  if (m.accumulator === null) m.accumulator = new AccumulateGrad(m, t);
  return { node: m.accumulator as Node, inputNr: 0 };
}

/** Registers a hook on a non-leaf's gradient (or its retainGrad) with its node. */
export function watchOutput(m: AutogradMeta): void {
  const fn = m.gradFn as Node | null;
  if (fn === null) return;
  const metas = (fn.outputMetas ??= new Array<AutogradMeta | null>(fn.numOutputs).fill(null));
  metas[m.outputNr] = m;
}

export type { GradHookFn };
