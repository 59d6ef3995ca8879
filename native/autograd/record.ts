/**
 * The recorder: autograd's hook into every op call (ops/dispatch.ts gradHook)
 * and into every view (tensor.ts tensorHooks). With grad mode on, a call whose
 * operands require grad gets a node (node.ts) built from its row of the
 * derivatives table (derivatives.ts): edges to its inputs' nodes, the tensors
 * the formula needs saved, and a meta on each floating output.
 *
 * In-place ops rebase history as PyTorch does: `y.add_(x)` gives y a new node
 * whose input edge leads to y's old one. An in-place write into a view (cat
 * writing its slots, `x.narrow(...).copy_(y)`) gives the view's base a
 * CopySlices node. A leaf that requires grad refuses in-place writes in grad
 * mode (optimizers write under noGrad). An input that the formula reads and
 * the op overwrites (`y.mul_(w)` reads y's old value for w's gradient) is
 * saved as a clone made before the op runs, recorded like any clone, so that
 * double backward reaches the old value's history (PyTorch's original self).
 */
import { isFloatingPoint } from '../dtype';
import { codedError } from '../errors';
import { OP_LIST } from '../generated/op_list';
import { gradHook, OpInput, OpRef } from '../ops/dispatch';
import { formatShape, Tensor, tensorHooks, viewOf } from '../tensor';
import { markInstalled, isGradEnabled } from './grad_mode';
import { BackwardContext, DERIVATIVES, DerivativeRow } from './derivatives';
import { attachMeta, AutogradMeta, metaOf } from './meta';
import { Edge, edgeOf, FunctionNode, Node, SavedTensor } from './node';
import { viewBackward, viewLabel, Geometry, geometryOf } from './views';
import { zeros } from '../ops/creation';
import { sumToShape } from './shapes';

/** The rows in op-list order (the op's id indexes it). */
const ROWS: (DerivativeRow | undefined)[] = OP_LIST.map((r) => DERIVATIVES[r.name]);

function tracked(x: unknown): boolean {
  if (!(x instanceof Tensor)) return false;
  const m = x.autograd_ as AutogradMeta | null;
  return m !== null && m.requiresGrad;
}

/** What `before` hands to `after`. */
interface Pending {
  op: OpRef;
  row: DerivativeRow;
  inputs: OpInput[];
  attrs: Record<string, unknown>;
  edges: (Edge | null)[];
  outIsInput: boolean;
  /** Input slots to save, and for those the op overwrites, their clones from before it ran. */
  saves: number[];
  copies: Map<number, Tensor> | null;
}

/** Shape and dtype of each input slot (for sumToShape and casts). */
interface SlotInfo {
  shape: readonly number[];
  dtype: Tensor['dtype'] | null;
  device: string | null;
}

/** A recorded op call. */
class OpNode extends Node {
  readonly row: DerivativeRow;
  readonly attrs: Record<string, unknown>;
  readonly slots: SlotInfo[];
  readonly outShapes: (readonly number[])[];
  readonly outDtypes: Tensor['dtype'][];
  /** Saved tensors by input slot / output index; numbers (and null) by slot. */
  readonly savedIn: (SavedTensor | null)[];
  readonly savedOut: (SavedTensor | null)[];
  readonly values: unknown[];

  constructor(p: Pending, outputs: readonly Tensor[]) {
    super(p.row.name, p.edges, outputs.length);
    this.row = p.row;
    this.attrs = p.attrs;
    this.slots = p.inputs.map((x) => (x instanceof Tensor ? { shape: x.shape.slice(), dtype: x.dtype, device: x.device } : { shape: [], dtype: null, device: null }));
    if (p.outIsInput) this.slots.push({ shape: outputs[0].shape.slice(), dtype: outputs[0].dtype, device: outputs[0].device });
    this.outShapes = outputs.map((o) => o.shape.slice());
    this.outDtypes = outputs.map((o) => o.dtype);
    this.values = p.inputs.map((x) => (x instanceof Tensor ? null : x));
    this.savedIn = new Array(p.inputs.length).fill(null);
    this.savedOut = new Array(outputs.length).fill(null);
    const row = p.row;
    for (const i of p.saves) {
      const x = p.copies?.get(i) ?? p.inputs[i];
      if (x instanceof Tensor && this.savedIn[i] === null) this.savedIn[i] = this.save(x);
    }
    if (p.copies !== null) for (const c of new Set(p.copies.values())) c.dispose();
    for (const j of row.savesOutputs ?? []) {
      const o = outputs[j];
      if (o !== undefined) this.savedOut[j] = this.save(o, j);
    }
  }

  apply(grads: (Tensor | null)[], createGraph: boolean): (Tensor | null)[] {
    const node = this;
    const ctx: BackwardContext = {
      grad(i = 0) {
        const g = grads[i];
        if (g !== null && g !== undefined) return g;
        return zeros(node.outShapes[i] as number[], { dtype: node.outDtypes[i], device: node.slots.find((s) => s.device)?.device ?? 'cpu' });
      },
      hasGrad: (i) => grads[i] !== null && grads[i] !== undefined,
      input(i) {
        const s = node.savedIn[i];
        if (s !== null) return s.unpack(createGraph);
        const v = node.values[i];
        if (typeof v === 'number' || typeof v === 'boolean') return Number(v);
        if (v === null || v === undefined) return v as unknown as number;
        throw codedError('TSGPU_AUTOGRAD', `${node.label}: input ${i} was not saved for backward`);
      },
      tensor(i) {
        const v = ctx.input(i);
        if (!(v instanceof Tensor)) throw codedError('TSGPU_AUTOGRAD', `${node.label}: input ${i} is not a tensor`);
        return v;
      },
      output(i) {
        const s = node.savedOut[i];
        if (s === null) throw codedError('TSGPU_AUTOGRAD', `${node.label}: output ${i} was not saved for backward`);
        return s.unpack(createGraph);
      },
      needs: (i) => node.next[i] !== null && node.next[i] !== undefined,
      shape: (i) => node.slots[i].shape,
      outShape: (i) => node.outShapes[i],
      dtype: (i) => node.slots[i].dtype ?? 'float32',
      attrs: node.attrs,
    };
    const raw = this.row.backward!(ctx);
    const out: (Tensor | null)[] = new Array(this.next.length).fill(null);
    for (let i = 0; i < this.next.length; i++) {
      const g = raw[i];
      if (this.next[i] === null || g === null || g === undefined) continue;
      out[i] = fitTo(g, this.slots[i]);
    }
    return out;
  }
}

/** A gradient summed to the input's shape and cast to its dtype (broadcasting and promotion undone). */
function fitTo(g: Tensor, slot: SlotInfo): Tensor {
  let r = sumToShape(g, slot.shape);
  if (slot.dtype !== null && r.dtype !== slot.dtype) r = r.to(slot.dtype);
  return r;
}

function before(op: OpRef, outputs: readonly Tensor[], inputs: readonly OpInput[], attrs: object | undefined): Pending | null {
  let any = false;
  for (let i = 0; i < inputs.length; i++) {
    if (tracked(inputs[i])) {
      any = true;
      break;
    }
  }
  for (let j = 0; j < outputs.length; j++) {
    const o = outputs[j];
    if (o.autograd_ !== null || (o.viewBase_ !== null && o.viewBase_.autograd_ !== null)) {
      if (tracked(o) || (o.viewBase_ !== null && tracked(o.viewBase_))) any = true;
    }
  }
  if (!any) return null;
  const row = ROWS[op.id];
  if (row === undefined) {
    throw codedError('TSGPU_AUTOGRAD', `${op.name}: this op has no derivative formula (native/autograd/derivatives.ts); run it under torch.noGrad or detach() its inputs`);
  }
  if (row.nondifferentiable) return null;
  if (row.notImplemented !== undefined) throw codedError('TSGPU_AUTOGRAD', `${op.name}: ${row.notImplemented}`);
  for (const o of outputs) {
    const m = metaOf(o);
    if (m !== null && m.requiresGrad && m.gradFn === null) {
      throw codedError('TSGPU_AUTOGRAD', `a leaf Variable that requires grad is being used in an in-place operation (${op.name} on a tensor of shape ${formatShape(o.shape)}); do it under torch.noGrad, or on a clone()`);
    }
    const base = o.viewBase_;
    if (base !== null) {
      const bm = metaOf(base);
      if (bm !== null && bm.requiresGrad && bm.gradFn === null) {
        throw codedError('TSGPU_AUTOGRAD', `a view of a leaf Variable that requires grad is being used in an in-place operation (${op.name}); do it under torch.noGrad, or on a clone()`);
      }
    }
  }
  const a = (attrs ?? {}) as Record<string, unknown>;
  const outIsInput = row.outIsInput !== undefined && row.outIsInput(a) && outputs.length > 0;
  const edges: (Edge | null)[] = inputs.map((x) => (x instanceof Tensor ? edgeOf(x) : null));
  if (outIsInput) edges.push(edgeOf(outputs[0]));
  const saves = [...(row.savesInputs ?? []), ...(row.savesInputsIf ? row.savesInputsIf(a, inputs) : [])];
  return { op, row, inputs: inputs.slice(), attrs: { ...a }, edges, outIsInput, saves, copies: copiesOfOverwritten(saves, inputs, outputs) };
}

/**
 * Clones of the saved inputs that share memory with an output (the op is about
 * to overwrite them), by slot; null when there are none. One clone per tensor.
 */
function copiesOfOverwritten(saves: readonly number[], inputs: readonly OpInput[], outputs: readonly Tensor[]): Map<number, Tensor> | null {
  if (outputs.length === 0) return null;
  let copies: Map<number, Tensor> | null = null;
  const bySource = new Map<Tensor, Tensor>();
  try {
    for (const i of saves) {
      const x = inputs[i];
      if (!(x instanceof Tensor) || !outputs.some((o) => o.untypedStorage() === x.untypedStorage())) continue;
      let c = bySource.get(x);
      if (c === undefined) {
        c = x.clone();
        bySource.set(x, c);
      }
      (copies ??= new Map()).set(i, c);
    }
  } catch (e) {
    for (const c of bySource.values()) c.dispose();
    throw e;
  }
  return copies;
}

function after(record: unknown, outputs: readonly Tensor[]): void {
  const p = record as Pending;
  const node = new OpNode(p, outputs);
  let taken = false;
  for (let j = 0; j < outputs.length; j++) {
    const o = outputs[j];
    if (!isFloatingPoint(o.dtype) || (p.row.differentiableOutputs !== undefined && !p.row.differentiableOutputs.includes(j))) {
      if (o.autograd_ !== null) attachMeta(o, new AutogradMeta(false, null, 0));
      continue;
    }
    taken = true;
    const base = o.viewBase_;
    if (base !== null && (tracked(base) || p.edges.some((e) => e !== null))) {
      copySlices(node, j, o, base);
      continue;
    }
    node.ref();
    attachMeta(o, new AutogradMeta(true, node, j));
  }
  if (!taken) {
    // No output can carry a gradient (integer results): the node lets go of its inputs at once.
    node.ref();
    node.unref();
  }
}

/**
 * An in-place write of `view` (output j of `inner`) into its base: the base
 * gets a CopySlices node, whose backward gives the written region's gradient
 * to `inner` and the rest to the base's old history (PyTorch's CopySlices).
 */
function copySlices(inner: Node, j: number, view: Tensor, base: Tensor): void {
  if (!base.isContiguous()) {
    throw codedError('TSGPU_AUTOGRAD', `an in-place write into a view of a non-contiguous tensor of shape ${formatShape(base.shape)} is not differentiable; write into a contiguous tensor`);
  }
  const region: Geometry = { shape: view.shape.slice(), strides: view.stride(), offset: view.storageOffset() - base.storageOffset() };
  const baseShape = base.shape.slice();
  const edges: (Edge | null)[] = [edgeOf(base), ...inner.next];
  inner.ref();
  const node = new FunctionNode('CopySlices', edges, 1, (grads, _self, createGraph) => {
    const g = grads[0];
    if (g === null) return edges.map(() => null);
    const whole = g.contiguous().clone();
    const part = viewOf(whole, region.shape, region.strides, region.offset);
    const gInner = part.clone();
    part.fill_(0);
    part.dispose();
    const innerGrads = inner.apply(inner.numOutputs === 1 ? [gInner] : Array.from({ length: inner.numOutputs }, (_, k) => (k === j ? gInner : null)), createGraph);
    return [edges[0] !== null ? whole.reshape(baseShape) : null, ...innerGrads];
  });
  node.onFree = () => inner.unref();
  node.ref();
  attachMeta(base, new AutogradMeta(true, node, 0));
  // The view now reads the base's new history.
  const vnode = makeViewNode(base, view);
  if (vnode !== null) {
    vnode.ref();
    attachMeta(view, new AutogradMeta(true, vnode, 0));
  }
}

function makeViewNode(base: Tensor, v: Tensor): Node | null {
  const e = edgeOf(base);
  if (e === null) return null;
  const from = geometryOf(base), to = geometryOf(v);
  const dtype = base.dtype;
  return new FunctionNode(viewLabel(from, to), [e], 1, (grads) => {
    const g = grads[0];
    return [g === null ? null : viewBackward(g, from, to, dtype)];
  });
}

/** A view of a tensor that requires grad, made in grad mode, requires grad through a view node. */
function onView(base: Tensor, v: Tensor): void {
  if (!isGradEnabled() || !tracked(base)) return;
  const node = makeViewNode(base, v);
  if (node === null) return;
  node.ref();
  attachMeta(v, new AutogradMeta(true, node, 0));
}

/** A copy to another device (to('cuda'), cpu()): the gradient goes back to the source's device. */
function onTransfer(src: Tensor, out: Tensor): void {
  if (!isGradEnabled() || !tracked(src)) return;
  const e = edgeOf(src);
  const device = src.device;
  const node = new FunctionNode('ToCopyBackward0', [e], 1, (grads) => [grads[0] === null ? null : grads[0].to(device)]);
  node.ref();
  attachMeta(out, new AutogradMeta(true, node, 0));
}

/** A call that failed: the copies made for it are freed. */
function discard(record: unknown): void {
  const copies = (record as Pending).copies;
  if (copies !== null) for (const c of new Set(copies.values())) c.dispose();
}

gradHook.before = before;
gradHook.after = after;
gradHook.discard = discard;
tensorHooks.onView = onView;
tensorHooks.onTransfer = onTransfer;
markInstalled();

/** @internal For tests: whether every op of the op list has a row, and which do not. */
export function rowsMissing(): string[] {
  return OP_LIST.filter((r) => DERIVATIVES[r.name] === undefined).map((r) => r.name);
}
