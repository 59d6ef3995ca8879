/**
 * nn.Module: the base class of every layer (PyTorch's torch.nn.Module).
 *
 * Registration: as PyTorch's __setattr__ registers what is assigned to a
 * module, a Module finds its Parameters and submodules among its own
 * enumerable fields, in the order they were assigned — so a layer is written
 * with typed fields:
 *
 *   class MLP extends nn.Module {
 *     fc1 = new nn.Linear(4, 16);
 *     fc2 = new nn.Linear(16, 2);
 *     forward(x: Tensor): Tensor { return this.fc2.forward(this.fc1.forward(x).relu()); }
 *   }
 *
 * Buffers are registered with registerBuffer (a plain tensor field is not
 * part of the state). A module is called as `model.forward(x)` or
 * `model.call(x)`: both run the forward pre-hooks and hooks (tsgpu wraps
 * each instance's forward), so a hook sees every call.
 */
import { isFloatingPoint, normalizeDtype, DType } from '../dtype';
import { normalizeDevice, DeviceLike } from '../device';
import { codedError } from '../errors';
import { noGrad } from '../autograd/grad_mode';
import { Tensor } from '../tensor';
import { labelParameter, labelTensor, Parameter } from './parameter';
import { checkStateDict, isDtypeName, zeroGradOf } from './state';

export { zeroGradOf } from './state';
import type { RemovableHandle } from '../autograd/tensor_api';

/** Runs before forward with its arguments; may return replacement arguments (an array, or one value). */
export type ForwardPreHook = (module: Module, args: unknown[]) => unknown;
/** Runs after forward with its arguments and output; may return a replacement output. */
export type ForwardHook = (module: Module, args: unknown[], output: unknown) => unknown;

/** What loadStateDict returns: the keys it did not find and did not use (strict: false). */
export interface IncompatibleKeys {
  missingKeys: string[];
  unexpectedKeys: string[];
}

/** Options of namedParameters, namedBuffers and namedModules. */
export interface NamedOptions {
  /** Prepended to every name (default ''). */
  prefix?: string;
  /** Include submodules' members (default true; not for namedModules). */
  recurse?: boolean;
  /** List a tensor or module reachable by two paths once (default true). */
  removeDuplicate?: boolean;
}

/** Where and as what Module.to puts the parameters and buffers. */
export interface ModuleToOptions {
  device?: DeviceLike;
  dtype?: DType;
}

interface ModuleState {
  buffers: Set<string>;
  nonPersistent: Set<string>;
  preHooks: Map<number, ForwardPreHook>;
  hooks: Map<number, ForwardHook>;
}

let nextHookId = 0;

function isPlainObjectKey(obj: object, name: string): boolean {
  return !(name in Object.getPrototypeOf(obj));
}

/** The base class of every layer; see the file's comment for how members are registered. */
export class Module {
  /** Whether the module is in training mode (train()) or evaluation mode (eval()). */
  declare training: boolean;
  private declare readonly nn_: ModuleState;

  constructor() {
    Object.defineProperty(this, 'nn_', {
      value: { buffers: new Set(), nonPersistent: new Set(), preHooks: new Map(), hooks: new Map() },
      enumerable: false,
    });
    Object.defineProperty(this, 'training', { value: true, writable: true, enumerable: false });
    // Every call of forward (this.forward(x), this.call(x), a container's call) runs the hooks.
    const impl = (this as unknown as { forward: (...a: unknown[]) => unknown }).forward;
    Object.defineProperty(this, 'forward', {
      value: (...args: unknown[]) => this.runForward(impl, args),
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }

  /** The computation of the module; every subclass defines it. */
  forward(..._args: any[]): any {
    throw codedError('TSGPU_NN', `Module [${this.constructor.name}] is missing the required "forward" function`);
  }

  /** Calls forward (with the hooks), as PyTorch's `module(x)`. */
  call(...args: any[]): any {
    return (this.forward as (...a: unknown[]) => unknown)(...args);
  }

  private runForward(impl: (...a: unknown[]) => unknown, args: unknown[]): unknown {
    const st = this.nn_;
    for (const hook of [...st.preHooks.values()]) {
      const r = hook(this, args);
      if (r !== undefined && r !== null) args = Array.isArray(r) ? r : [r];
    }
    let out = impl.apply(this, args);
    for (const hook of [...st.hooks.values()]) {
      const r = hook(this, args, out);
      if (r !== undefined && r !== null) out = r;
    }
    return out;
  }

  /** Registers `hook(module, args)` to run before every forward; returns a handle that removes it. */
  registerForwardPreHook(hook: ForwardPreHook): RemovableHandle {
    return this.addHook(this.nn_.preHooks, hook, 'registerForwardPreHook');
  }

  /** Registers `hook(module, args, output)` to run after every forward; returns a handle that removes it. */
  registerForwardHook(hook: ForwardHook): RemovableHandle {
    return this.addHook(this.nn_.hooks, hook, 'registerForwardHook');
  }

  private addHook<H>(map: Map<number, H>, hook: H, op: string): RemovableHandle {
    if (typeof hook !== 'function') throw codedError('TSGPU_ARG', `${op}: expected a function for hook, got ${typeof hook}`);
    const id = nextHookId++;
    map.set(id, hook);
    return { remove: () => void map.delete(id) };
  }

  // ------------------------------------------------------------ registration

  private checkName(op: string, name: string): void {
    if (typeof name !== 'string') throw codedError('TSGPU_ARG', `${op}: expected a string for name, got ${typeof name}`);
    if (name === '') throw codedError('TSGPU_NN', `${op}: name can't be empty string ""`);
    if (name.includes('.')) throw codedError('TSGPU_NN', `${op}: name can't contain ".", got "${name}"`);
    if (!isPlainObjectKey(this, name)) throw codedError('TSGPU_NN', `${op}: attribute '${name}' already exists`);
  }

  /** Adds (or replaces) a parameter under `name` (null registers an absent one, as a bias of false). */
  registerParameter(name: string, param: Parameter | null): void {
    this.checkName('registerParameter', name);
    if (param !== null && !(param instanceof Parameter)) {
      throw codedError('TSGPU_NN', `cannot assign '${(param as unknown) instanceof Tensor ? 'Tensor' : typeof param}' object to parameter '${name}' (nn.Parameter or null required)`);
    }
    if (this.nn_.buffers.has(name)) throw codedError('TSGPU_NN', `attribute '${name}' already exists (a buffer)`);
    (this as unknown as Record<string, unknown>)[name] = param;
  }

  /**
   * Adds a buffer: a tensor that is part of the module's state (to(), and
   * stateDict() unless `persistent` is false) but not a parameter.
   */
  registerBuffer(name: string, tensor: Tensor | null, opts: { persistent?: boolean } = {}): void {
    this.checkName('registerBuffer', name);
    if (tensor !== null && !(tensor instanceof Tensor)) {
      throw codedError('TSGPU_NN', `cannot assign '${typeof tensor}' object to buffer '${name}' (Tensor or null required)`);
    }
    if ((tensor as unknown) instanceof Parameter) throw codedError('TSGPU_NN', `attribute '${name}' already exists (a parameter); a buffer cannot be a Parameter`);
    const st = this.nn_;
    st.buffers.add(name);
    if (opts.persistent === false) st.nonPersistent.add(name);
    else st.nonPersistent.delete(name);
    (this as unknown as Record<string, unknown>)[name] = tensor;
  }

  /** Adds a submodule under `name` (PyTorch's add_module). */
  registerModule(name: string, module: Module | null): void {
    this.checkName('registerModule', name);
    if (module !== null && !(module instanceof Module)) throw codedError('TSGPU_NN', `${typeof module} is not a Module subclass`);
    (this as unknown as Record<string, unknown>)[name] = module;
  }

  /** Same as registerModule. */
  addModule(name: string, module: Module | null): void {
    this.registerModule(name, module);
  }

  private ownEntries<T>(pick: (name: string, v: unknown) => v is T): [string, T][] {
    const out: [string, T][] = [];
    const self = this as unknown as Record<string, unknown>;
    for (const name of Object.keys(this)) {
      const v = self[name];
      if (pick(name, v)) out.push([name, v]);
    }
    return out;
  }

  private ownParameters(): [string, Parameter][] {
    return this.ownEntries((_n, v): v is Parameter => v instanceof Parameter);
  }

  private ownBuffers(): [string, Tensor][] {
    const bufs = this.nn_.buffers;
    return this.ownEntries((n, v): v is Tensor => bufs.has(n) && v instanceof Tensor && !v.isDisposed);
  }

  // ------------------------------------------------------------ iteration

  /** The direct submodules with their names, in registration order. */
  *namedChildren(): Generator<[string, Module]> {
    const seen = new Set<Module>();
    for (const [n, m] of this.ownEntries((_n, v): v is Module => v instanceof Module)) {
      if (seen.has(m)) continue;
      seen.add(m);
      yield [n, m];
    }
  }

  /** The direct submodules. */
  *children(): Generator<Module> {
    for (const [, m] of this.namedChildren()) yield m;
  }

  /** This module and every module below it, with dotted names ('' for this one), depth first. */
  *namedModules(opts: NamedOptions = {}, memo: Set<Module> = new Set()): Generator<[string, Module]> {
    const prefix = opts.prefix ?? '';
    const dedupe = opts.removeDuplicate ?? true;
    if (dedupe) {
      if (memo.has(this)) return;
      memo.add(this);
    }
    yield [prefix, this];
    for (const [n, m] of this.ownEntries((_n, v): v is Module => v instanceof Module)) {
      yield* m.namedModules({ prefix: prefix === '' ? n : `${prefix}.${n}`, removeDuplicate: dedupe }, memo);
    }
  }

  /** This module and every module below it. */
  *modules(): Generator<Module> {
    for (const [, m] of this.namedModules()) yield m;
  }

  private *namedMembers<T extends Tensor>(own: (m: Module) => [string, T][], opts: NamedOptions): Generator<[string, T]> {
    const dedupe = opts.removeDuplicate ?? true;
    const mods: Iterable<[string, Module]> = (opts.recurse ?? true)
      ? this.namedModules({ prefix: opts.prefix, removeDuplicate: dedupe })
      : [[opts.prefix ?? '', this]];
    const seen = new Set<Tensor>();
    for (const [mp, m] of mods) {
      for (const [n, t] of own(m)) {
        if (dedupe) {
          if (seen.has(t)) continue;
          seen.add(t);
        }
        yield [mp === '' ? n : `${mp}.${n}`, t];
      }
    }
  }

  /**
   * The parameters with dotted names ("blocks.0.attn.qkv.weight"), this
   * module's first, then each submodule's. Labels each for the memory views.
   */
  *namedParameters(opts: NamedOptions = {}): Generator<[string, Parameter]> {
    for (const [n, p] of this.namedMembers((m) => m.ownParameters(), opts)) {
      labelParameter(p, n);
      yield [n, p];
    }
  }

  /** The parameters (what an optimizer is given). */
  *parameters(opts: { recurse?: boolean } = {}): Generator<Parameter> {
    for (const [, p] of this.namedParameters(opts)) yield p;
  }

  /** The buffers with dotted names. */
  *namedBuffers(opts: NamedOptions = {}): Generator<[string, Tensor]> {
    for (const [n, b] of this.namedMembers((m) => m.ownBuffers(), opts)) {
      if (b.autogradLabel === null) labelTensor(b, `buffer ${n}`);
      yield [n, b];
    }
  }

  /** The buffers. */
  *buffers(opts: { recurse?: boolean } = {}): Generator<Tensor> {
    for (const [, b] of this.namedBuffers(opts)) yield b;
  }

  /** The submodule at a dotted path ('' is this module). */
  getSubmodule(target: string): Module {
    if (target === '') return this;
    let m: Module = this;
    for (const part of target.split('.')) {
      const next = (m as unknown as Record<string, unknown>)[part];
      if (!(next instanceof Module)) throw codedError('TSGPU_NN', `${m.constructor.name} has no attribute \`${part}\``);
      m = next;
    }
    return m;
  }

  // ------------------------------------------------------------ modes and conversion

  /** Sets training mode (default true) on this module and every submodule; returns this. */
  train(mode = true): this {
    if (typeof mode !== 'boolean') throw codedError('TSGPU_ARG', `train: expected a boolean for mode, got ${typeof mode}`);
    for (const m of this.modules()) m.training = mode;
    return this;
  }

  /** Evaluation mode (train(false)): Dropout passes its input through. Returns this. */
  eval(): this {
    return this.train(false);
  }

  /** Sets requiresGrad (default true) on every parameter; returns this. */
  requiresGrad_(requiresGrad = true): this {
    for (const p of this.parameters()) p.requiresGrad_(requiresGrad);
    return this;
  }

  /**
   * Gives the gradients up (setToNone, the default: their memory is freed)
   * or fills them with zeros.
   */
  zeroGrad(opts: { setToNone?: boolean } = {}): void {
    const setToNone = opts.setToNone ?? true;
    for (const p of this.parameters()) zeroGradOf(p, setToNone);
  }

  /** Calls fn on every submodule (children first) and on this module; returns this. */
  apply(fn: (m: Module) => void): this {
    if (typeof fn !== 'function') throw codedError('TSGPU_ARG', `apply: expected a function for fn, got ${typeof fn}`);
    for (const c of this.children()) c.apply(fn);
    fn(this);
    return this;
  }

  /**
   * Moves the parameters and buffers to a device and/or casts the floating
   * ones to a dtype: `to('cuda')`, `to('float64')`, `to({ device, dtype })`.
   * A parameter that changes is replaced by a new Parameter (its gradient
   * moved with it) and the old one disposed: give an optimizer the
   * parameters after `to()`. Returns this.
   */
  to(target: DeviceLike | DType | ModuleToOptions): this {
    let device: string | undefined;
    let dtype: DType | undefined;
    if (typeof target === 'object' && target !== null) {
      if (target.device !== undefined) device = normalizeDevice(target.device);
      if (target.dtype !== undefined) dtype = normalizeDtype(target.dtype);
    } else if (typeof target === 'string' && isDtypeName(target)) {
      dtype = normalizeDtype(target);
    } else if (typeof target === 'string' || typeof target === 'number') {
      device = normalizeDevice(target);
    } else {
      throw codedError('TSGPU_ARG', `to: expected a device, a dtype or { device, dtype } for target, got ${target === null ? 'null' : typeof target}`);
    }
    if (dtype !== undefined && !isFloatingPoint(dtype)) {
      throw codedError('TSGPU_NN', `nn.Module.to only accepts floating point dtypes, but got desired dtype=${dtype}`);
    }
    const convert = (t: Tensor): Tensor | null => {
      const dt = dtype !== undefined && isFloatingPoint(t.dtype) ? dtype : t.dtype;
      const dev = device ?? t.device;
      return dt === t.dtype && dev === t.device ? null : t.to({ dtype: dt, device: dev });
    };
    noGrad(() => {
      for (const m of this.modules()) m.convertOwn(convert);
    });
    return this;
  }

  private convertOwn(convert: (t: Tensor) => Tensor | null): void {
    const self = this as unknown as Record<string, unknown>;
    for (const [n, p] of this.ownParameters()) {
      const moved = convert(p);
      if (moved === null) continue;
      const np = new Parameter(moved, p.requiresGrad);
      moved.dispose();
      const g = p.grad;
      if (g !== null) {
        const mg = convert(g);
        if (mg !== null) np.grad = mg;
      }
      const label = p.autogradLabel;
      if (label !== null) labelTensor(np, label);
      for (const k of Object.keys(this)) if (self[k] === p) self[k] = np;
      p.dispose();
    }
    for (const [n, b] of this.ownBuffers()) {
      const moved = convert(b);
      if (moved === null) continue;
      self[n] = moved;
      b.dispose();
    }
  }

  /** to('cuda') (or 'cuda:N'). */
  cuda(device: number = 0): this {
    return this.to(`cuda:${device}`);
  }

  /** to('cpu'). */
  cpu(): this {
    return this.to('cpu');
  }

  /** Casts the floating parameters and buffers to float32. */
  float(): this {
    return this.to('float32');
  }

  /** Casts the floating parameters and buffers to float64. */
  double(): this {
    return this.to('float64');
  }

  /** Casts the floating parameters and buffers to float16. */
  half(): this {
    return this.to('float16');
  }

  /** Casts the floating parameters and buffers to bfloat16. */
  bfloat16(): this {
    return this.to('bfloat16');
  }

  // ------------------------------------------------------------ state

  /**
   * The parameters and persistent buffers by dotted name, in PyTorch's order
   * (each module's parameters, then its buffers, then its submodules'). The
   * values share the module's memory, detached (keepVars: the tensors
   * themselves).
   */
  stateDict(opts: { prefix?: string; keepVars?: boolean } = {}): Record<string, Tensor> {
    const out: Record<string, Tensor> = {};
    for (const [mp, m] of this.namedModules({ prefix: opts.prefix })) {
      const at = (n: string): string => (mp === '' ? n : `${mp}.${n}`);
      for (const [n, p] of m.ownParameters()) {
        labelParameter(p, at(n));
        out[at(n)] = opts.keepVars ? p : p.detach();
      }
      for (const [n, b] of m.ownBuffers()) {
        if (m.nn_.nonPersistent.has(n)) continue;
        out[at(n)] = opts.keepVars ? b : b.detach();
      }
    }
    return out;
  }

  /**
   * Copies the tensors of `stateDict` into the parameters and buffers of the
   * same names (converted to their dtype and device). Strict (the default):
   * a missing or unexpected key is an error; a wrong shape always is. Every
   * problem is named in one error, and nothing is copied when there is one.
   */
  loadStateDict(stateDict: Record<string, Tensor> | Map<string, Tensor>, opts: { strict?: boolean } = {}): IncompatibleKeys {
    const strict = opts.strict ?? true;
    if (stateDict === null || typeof stateDict !== 'object') {
      throw codedError('TSGPU_ARG', `loadStateDict: expected an object of tensors by name for stateDict, got ${stateDict === null ? 'null' : typeof stateDict}`);
    }
    const given = stateDict instanceof Map ? stateDict : new Map(Object.entries(stateDict));
    const own = this.stateDict({ keepVars: true });
    const { missingKeys, unexpectedKeys } = checkStateDict(this.constructor.name, own, given, strict);
    noGrad(() => {
      for (const [key, src] of given) {
        const dst = own[key];
        if (dst !== undefined) dst.copy_(src);
      }
    });
    return { missingKeys, unexpectedKeys };
  }

  /** Disposes every parameter (and its gradient) and buffer: the module's memory goes back to the allocator (tsgpu). */
  dispose(): void {
    for (const m of this.modules()) {
      for (const [, p] of m.ownParameters()) {
        p.grad = null;
        p.dispose();
      }
      for (const [, b] of m.ownBuffers()) b.dispose();
    }
  }

  // ------------------------------------------------------------ printing

  /** The module's own settings as printed inside its name's parentheses (e.g. "in_features=4, out_features=3, bias=True"). */
  extraRepr(): string {
    return '';
  }

  /** The module tree as PyTorch prints it. */
  toString(): string {
    const lines: string[] = [];
    const extra = this.extraRepr();
    if (extra !== '') lines.push(...extra.split('\n'));
    for (const [n, m] of this.ownEntries((_n, v): v is Module => v instanceof Module)) {
      const text = m.toString().split('\n').join('\n  ');
      lines.push(`(${n}): ${text}`);
    }
    const name = this.constructor.name;
    const children = [...this.children()].length;
    if (lines.length === 0) return `${name}()`;
    if (children === 0 && lines.length === 1) return `${name}(${lines[0]})`;
    return `${name}(\n  ${lines.join('\n  ')}\n)`;
  }
}
