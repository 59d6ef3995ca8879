/**
 * What holds the memory of training, for the memory views: tensors labelled
 * as parameters (nn: "parameter blocks.0.attn.qkv.weight") or optimizer state
 * (optim: "exp_avg of fc.weight"), the gradients of labelled parameters, and
 * the tensors saved for backward by the nodes that still hold them. Asked by
 * torch.memory.liveTensors() (its `holder` field), so `%memory --tensors`
 * names each training tensor by kind.
 */
import { Tensor } from '../tensor';
import { allocationCell, HolderLabel, holderSources } from '../memory';
import { attachMeta, AutogradMeta, metaOf } from './meta';
import { Node, savedWatch } from './node';

const labelled = new Set<WeakRef<Tensor>>();

/**
 * What a node that holds saved tensors shows in the memory views: its name,
 * its cell and the ids of the tensors it saved. Kept apart from the node, so
 * that nothing here keeps a node alive: a WeakRef to each would (a WeakRef
 * keeps its target until the current job ends, so every graph a synchronous
 * cell built and dropped, a failed forward's or an evaluation loop's without
 * noGrad, stayed until the cell ended, whatever the garbage collector did).
 * A record goes when its node frees its saved tensors or is collected.
 */
interface SavingRecord {
  label: string;
  cell: number;
  ids: number[];
}
const saving = new Set<SavingRecord>();
const records = new WeakMap<Node, SavingRecord>();
const collected = new FinalizationRegistry<SavingRecord>((r) => saving.delete(r));

/** The kinds a caller may label a tensor with. */
export type LabelKind = 'parameter' | 'optimizer' | 'runtime';

/**
 * Labels what holds `t` (a parameter's module path, an optimizer state's
 * name): shown by `%memory --tensors`; a parameter's gradient is labelled
 * "gradient of …" from it.
 */
export function labelTensor(t: Tensor, kind: LabelKind, label: string): void {
  let m = metaOf(t);
  if (m === null) {
    m = new AutogradMeta(false, null, 0);
    attachMeta(t, m);
  }
  m.label = label;
  m.labelKind = kind;
  labelled.add(new WeakRef(t));
}

/** A node saved `t` for backward. */
function noteSaving(n: Node, t: Tensor): void {
  let r = records.get(n);
  if (r === undefined) {
    n.cell = allocationCell();
    r = { label: n.label, cell: n.cell, ids: [] };
    records.set(n, r);
    saving.add(r);
    collected.register(n, r, r);
  }
  r.ids.push(t.id);
}

/** A node freed its saved tensors. */
function noteSaved(n: Node): void {
  const r = records.get(n);
  if (r === undefined) return;
  saving.delete(r);
  collected.unregister(r);
  records.delete(n);
}

function labels(): Map<number, HolderLabel> {
  const out = new Map<number, HolderLabel>();
  for (const r of labelled) {
    const t = r.deref();
    if (t === undefined || t.isDisposed) {
      labelled.delete(r);
      continue;
    }
    const m = metaOf(t);
    if (m === null || m.label === null) continue;
    out.set(t.id, { kind: m.labelKind ?? 'runtime', label: m.label });
    const g = m.grad;
    if (g !== null && !g.isDisposed) out.set(g.id, { kind: 'gradient', label: `gradient of ${m.label.replace(/^parameter /, '')}` });
  }
  // An id of a tensor that is gone matches no live storage's tensor: liveTensors() asks only for the live ones.
  for (const r of saving) {
    for (const id of r.ids) {
      if (out.has(id)) continue;
      out.set(id, { kind: 'saved', label: `saved for backward by ${r.label}${r.cell ? ` (cell ${r.cell})` : ''}` });
    }
  }
  return out;
}

holderSources.push(labels);
savedWatch.saving = noteSaving;
savedWatch.saved = noteSaved;
