/**
 * The base of the optimizers (PyTorch's torch.optim.Optimizer): parameter
 * groups, per-parameter state made lazily by the first step(), zeroGrad,
 * and state dicts shaped like PyTorch's (state by parameter index,
 * param_groups with params as indices and PyTorch's snake_case keys).
 */
import { codedError } from '../errors';
import { tensor } from '../ops/creation';
import { noGrad } from '../autograd/grad_mode';
import { untracked } from '../scope';
import { Tensor } from '../tensor';
import { zeroGradOf } from '../nn/module';
import { labelTensor, parameterName } from '../nn/parameter';

/** A parameter group: its parameters and its hyperparameters (the optimizer's defaults where not given). */
export type ParamGroup<H> = H & { params: Tensor[] };

/** What an optimizer is given: parameters (e.g. model.parameters()) or groups `{ params, ...hyperparameters }`. */
export type ParamsArg<H> = Iterable<Tensor> | Iterable<Partial<H> & { params: Iterable<Tensor> | Tensor }>;

/** One parameter's state: tensors (exp_avg, momentum_buffer, ...) and numbers (step). */
export type ParamState = Record<string, Tensor | number>;

/** An optimizer's state dict, as PyTorch's: `state` by parameter index, `param_groups` with `params` as indices. */
export interface OptimizerStateDict {
  state: Record<number, Record<string, Tensor | number>>;
  param_groups: Record<string, unknown>[];
}

/** Group keys PyTorch records for options of its other implementations (foreach, fused, ...), with its defaults. */
export type ImplementationKeys = Record<string, unknown>;

function snake(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function camel(k: string): string {
  return k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}

/** A learning rate check with PyTorch's wording. */
export function checkLr(lr: unknown): number {
  if (typeof lr !== 'number' || !(lr >= 0)) throw codedError('TSGPU_ARG', `Invalid learning rate: ${String(lr)}`);
  return lr;
}

/** A non-negative hyperparameter check with PyTorch's wording ("Invalid weight_decay value: -1"). */
export function checkNonNegative(what: string, v: unknown): number {
  if (typeof v !== 'number' || !(v >= 0)) throw codedError('TSGPU_ARG', `Invalid ${what} value: ${String(v)}`);
  return v;
}

/** The base class: subclasses give their defaults and implement step(). */
export abstract class Optimizer<H extends { lr: number }> {
  /** The hyperparameters of a group that does not give its own. */
  readonly defaults: H;
  /** The parameter groups, in order. */
  readonly paramGroups: ParamGroup<H>[] = [];
  /** Each parameter's state, made by the first step() that updates it. */
  readonly state = new Map<Tensor, ParamState>();

  protected constructor(params: ParamsArg<H>, defaults: H) {
    this.defaults = defaults;
    const name = this.constructor.name;
    if (params instanceof Tensor || params === null || typeof params !== 'object' || !(Symbol.iterator in params)) {
      const got = params instanceof Tensor ? 'a Tensor' : params === null ? 'null' : typeof params;
      throw codedError('TSGPU_ARG', `${name}: params argument given to the optimizer should be an iterable of Tensors or dicts, but got ${got}`);
    }
    const list = [...(params as Iterable<unknown>)];
    if (list.length === 0) throw codedError('TSGPU_ARG', `${name}: optimizer got an empty parameter list`);
    const isGroup = (x: unknown): boolean => x !== null && typeof x === 'object' && !(x instanceof Tensor) && 'params' in x;
    const groups = (isGroup(list[0]) ? list : [{ params: list as Tensor[] }]) as (Partial<H> & { params: Iterable<Tensor> })[];
    for (const g of groups) this.addParamGroup(g);
  }

  /**
   * The group keys PyTorch's state dict has for options of its other
   * implementations (foreach, fused, ...), with PyTorch's defaults: written
   * by stateDict() so a state dict has PyTorch's keys, skipped by
   * loadStateDict() (the update here is always the single-tensor one).
   */
  protected abstract implementationKeys(): ImplementationKeys;

  /** Checks one group's hyperparameters (the subclass's rules); throws with PyTorch's message. */
  protected abstract checkGroup(group: ParamGroup<H>): void;

  /** Adds a group of parameters with its hyperparameters (missing ones from the defaults). */
  addParamGroup(group: Partial<H> & { params: Iterable<Tensor> | Tensor }): void {
    if (group === null || typeof group !== 'object' || group instanceof Tensor) {
      throw codedError('TSGPU_ARG', `addParamGroup: expected an object { params, ... } for group, got ${group === null ? 'null' : typeof group}`);
    }
    const raw = group.params;
    const params = raw instanceof Tensor ? [raw] : [...(raw as Iterable<Tensor>)];
    params.forEach((p, i) => {
      if (!(p instanceof Tensor)) throw codedError('TSGPU_ARG', `optimizer can only optimize Tensors, but one of the params (index ${i}) is ${p === null ? 'null' : typeof p}`);
      if (!p.isLeaf) throw codedError('TSGPU_ARG', `can't optimize a non-leaf Tensor (params index ${i}, gradFn ${p.gradFn?.name()})`);
      if (p.isDisposed) throw codedError('TSGPU_ARG', `can't optimize a disposed Tensor (params index ${i})`);
    });
    if (new Set(params).size !== params.length) {
      throw codedError('TSGPU_ARG', 'optimizer contains a parameter group with duplicate parameters');
    }
    const seen = new Set(this.paramGroups.flatMap((g) => g.params));
    if (params.some((p) => seen.has(p))) throw codedError('TSGPU_ARG', 'some parameters appear in more than one parameter group');
    const full = { ...this.defaults, ...group, params } as ParamGroup<H>;
    for (const k of Object.keys(full)) if ((full as Record<string, unknown>)[k] === undefined) (full as Record<string, unknown>)[k] = (this.defaults as Record<string, unknown>)[k];
    this.checkGroup(full);
    this.paramGroups.push(full);
  }

  /** Gives up the gradients (setToNone, the default in PyTorch 2: their memory is freed) or fills them with zeros. */
  zeroGrad(opts: { setToNone?: boolean } = {}): void {
    const setToNone = opts.setToNone ?? true;
    for (const g of this.paramGroups) for (const p of g.params) zeroGradOf(p, setToNone);
  }

  /**
   * Updates the parameters from their gradients (parameters without one are
   * skipped). `closure`, when given, is called first (with grad mode on) and
   * its loss returned.
   */
  step(closure?: () => Tensor | number): Tensor | number | undefined {
    let loss: Tensor | number | undefined;
    if (closure !== undefined) {
      if (typeof closure !== 'function') throw codedError('TSGPU_ARG', `step: expected a function for closure, got ${typeof closure}`);
      loss = closure();
    }
    noGrad(() => {
      for (const g of this.paramGroups) this.updateGroup(g);
    });
    return loss;
  }

  /** Updates one group (under noGrad, in place). */
  protected abstract updateGroup(group: ParamGroup<H>): void;

  /** The name of a parameter for the memory views: its module path, or "param N" by its index. */
  protected nameOf(p: Tensor): string {
    return parameterName(p) ?? `param ${this.indexOf(p)}`;
  }

  private indexOf(p: Tensor): number {
    let i = 0;
    for (const g of this.paramGroups) for (const q of g.params) {
      if (q === p) return i;
      i++;
    }
    return -1;
  }

  /** The state of p, made empty on first use. */
  protected stateOf(p: Tensor): ParamState {
    let s = this.state.get(p);
    if (s === undefined) {
      s = {};
      this.state.set(p, s);
    }
    return s;
  }

  /** A state tensor of p made by `make` (outside any open tidy: the optimizer owns it), labelled "KEY of NAME". */
  protected newState(p: Tensor, key: string, make: () => Tensor): Tensor {
    const t = untracked(make);
    labelTensor(t, `${key} of ${this.nameOf(p)}`);
    return t;
  }

  /**
   * The state as PyTorch's state_dict(): `state` by parameter index (a
   * step as a 0-dim float32 tensor, as PyTorch keeps it; the other tensors
   * are the optimizer's own, not copies), `param_groups` with the
   * hyperparameters under PyTorch's names and `params` as indices.
   */
  stateDict(): OptimizerStateDict {
    const index = new Map<Tensor, number>();
    const param_groups: Record<string, unknown>[] = [];
    for (const g of this.paramGroups) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(g)) if (k !== 'params') out[snake(k)] = Array.isArray(v) ? v.slice() : v;
      for (const [k, v] of Object.entries(this.implementationKeys())) if (!(k in out)) out[k] = v;
      out.params = g.params.map((p) => {
        if (!index.has(p)) index.set(p, index.size);
        return index.get(p)!;
      });
      param_groups.push(out);
    }
    const state: OptimizerStateDict['state'] = {};
    for (const [p, s] of this.state) {
      const i = index.get(p);
      if (i === undefined) continue;
      const entry: Record<string, Tensor | number> = {};
      for (const [k, v] of Object.entries(s)) entry[k] = k === 'step' && typeof v === 'number' ? tensor(v, { dtype: 'float32' }) : v;
      state[i] = entry;
    }
    return { state, param_groups };
  }

  /**
   * Loads a state dict (from stateDict(), or PyTorch's with the same groups):
   * the hyperparameters of each group and copies of the state tensors
   * (converted to each parameter's device; floating ones to its dtype, as
   * PyTorch does). The groups' sizes must match.
   */
  loadStateDict(sd: OptimizerStateDict): void {
    if (sd === null || typeof sd !== 'object' || !Array.isArray(sd.param_groups) || typeof sd.state !== 'object') {
      throw codedError('TSGPU_ARG', 'loadStateDict: expected a state dict { state, param_groups } for stateDict');
    }
    if (sd.param_groups.length !== this.paramGroups.length) throw codedError('TSGPU_ARG', 'loaded state dict has a different number of parameter groups');
    const byIndex = new Map<number, Tensor>();
    sd.param_groups.forEach((sg, gi) => {
      const ids = sg.params as number[];
      const own = this.paramGroups[gi].params;
      if (!Array.isArray(ids) || ids.length !== own.length) {
        throw codedError('TSGPU_ARG', "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
      }
      ids.forEach((id, k) => byIndex.set(id, own[k]));
    });
    const newState = new Map<Tensor, ParamState>();
    for (const [key, entry] of Object.entries(sd.state)) {
      const p = byIndex.get(Number(key));
      if (p === undefined) continue;
      const s: ParamState = {};
      for (const [k, v] of Object.entries(entry)) {
        if (!(v instanceof Tensor)) {
          s[k] = v;
        } else if (k === 'step') {
          s[k] = Number(v.item());
        } else {
          const dtype = v.dtype.startsWith('float') || v.dtype === 'bfloat16' ? p.dtype : v.dtype;
          s[k] = this.newState(p, k, () => noGrad(() => {
            const moved = v.to({ device: p.device, dtype });
            const own = moved.clone();
            moved.dispose();
            return own;
          }));
        }
      }
      newState.set(p, s);
    }
    const skip = this.implementationKeys();
    sd.param_groups.forEach((sg, gi) => {
      const g = this.paramGroups[gi] as unknown as Record<string, unknown>;
      for (const [k, v] of Object.entries(sg)) {
        if (k === 'params' || k in skip) continue;
        g[camel(k)] = Array.isArray(v) ? v.slice() : v;
      }
    });
    for (const s of this.state.values()) for (const v of Object.values(s)) if (v instanceof Tensor) v.dispose();
    this.state.clear();
    for (const [p, s] of newState) this.state.set(p, s);
  }

  /** Disposes the state tensors (tsgpu): the optimizer's memory goes back to the allocator; the next step starts afresh. */
  dispose(): void {
    for (const s of this.state.values()) for (const v of Object.values(s)) if (v instanceof Tensor) v.dispose();
    this.state.clear();
  }
}
