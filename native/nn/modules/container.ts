/**
 * Containers: Sequential (calls its modules in order), ModuleList (an
 * indexable list of modules) and ModuleDict (modules by name). Their
 * modules are registered under "0", "1", ... (or the dict's keys), so the
 * state dict's keys are PyTorch's ("0.weight", "blocks.3.attn.qkv.bias").
 */
import { codedError } from '../../errors';
import { Module } from '../module';

function checkModule(op: string, m: unknown, at: string): Module {
  if (!(m instanceof Module)) throw codedError('TSGPU_ARG', `${op}: expected a Module for ${at}, got ${m === null ? 'null' : typeof m}`);
  return m;
}

function moduleAt(list: Module, n: number, op: string, i: number): string {
  if (!Number.isInteger(i) || i < -n || i >= n) throw codedError('TSGPU_NN', `${op}: index ${i} is out of range`);
  void list;
  return String(i < 0 ? i + n : i);
}

/** Base of Sequential and ModuleList: modules under "0", "1", ... */
abstract class IndexedModules extends Module {
  private declare count: number;

  protected constructor() {
    super();
    Object.defineProperty(this, 'count', { value: 0, writable: true, enumerable: false });
  }

  /** The number of modules. */
  get length(): number {
    return this.count;
  }

  /** The module at index i (negative counts from the end). */
  get(i: number): Module {
    return (this as unknown as Record<string, Module>)[moduleAt(this, this.count, 'get', i)];
  }

  /** Replaces the module at index i. */
  set(i: number, m: Module): void {
    (this as unknown as Record<string, Module>)[moduleAt(this, this.count, 'set', i)] = checkModule('set', m, 'module');
  }

  /** Adds a module at the end; returns this. */
  append(m: Module): this {
    (this as unknown as Record<string, Module>)[String(this.count)] = checkModule('append', m, 'module');
    this.count++;
    return this;
  }

  /** Adds modules at the end; returns this. */
  extend(ms: Iterable<Module>): this {
    for (const m of ms) this.append(m);
    return this;
  }

  /** Inserts a module before index i. */
  insert(i: number, m: Module): void {
    checkModule('insert', m, 'module');
    const n = this.count;
    if (!Number.isInteger(i)) throw codedError('TSGPU_ARG', `insert: expected an integer for index, got ${String(i)}`);
    let at = i < 0 ? i + n : i;
    at = Math.max(0, Math.min(n, at));
    const self = this as unknown as Record<string, Module>;
    for (let k = n; k > at; k--) self[String(k)] = self[String(k - 1)];
    self[String(at)] = m;
    this.count++;
  }

  /** Removes and returns the module at index i (default the last). */
  pop(i = -1): Module {
    const key = Number(moduleAt(this, this.count, 'pop', i));
    const self = this as unknown as Record<string, Module>;
    const m = self[String(key)];
    for (let k = key; k < this.count - 1; k++) self[String(k)] = self[String(k + 1)];
    delete self[String(this.count - 1)];
    this.count--;
    return m;
  }

  *[Symbol.iterator](): Generator<Module> {
    for (let i = 0; i < this.count; i++) yield (this as unknown as Record<string, Module>)[String(i)];
  }
}

/**
 * Calls its modules in order, each on the previous one's output:
 * `new nn.Sequential(new nn.Linear(4, 8), new nn.ReLU(), new nn.Linear(8, 2))`,
 * or with names: `new nn.Sequential({ fc1: ..., act: ... })`.
 */
export class Sequential extends Module {
  constructor(...modules: Module[] | [Record<string, Module>]) {
    super();
    const first = modules[0];
    if (modules.length === 1 && !(first instanceof Module) && typeof first === 'object' && first !== null) {
      for (const [name, m] of Object.entries(first)) this.registerModule(name, checkModule('Sequential', m, name));
    } else {
      (modules as unknown[]).forEach((m, i) => this.registerModule(String(i), checkModule('Sequential', m, `module ${i}`)));
    }
  }

  /** The modules in order, a module registered twice listed twice (it runs twice, as in PyTorch). */
  private list(): Module[] {
    const self = this as unknown as Record<string, unknown>;
    return Object.keys(this).map((k) => self[k]).filter((v): v is Module => v instanceof Module);
  }

  /** The number of modules. */
  get length(): number {
    return this.list().length;
  }

  /** The module at index i (negative counts from the end). */
  get(i: number): Module {
    const list = this.list();
    return list[Number(moduleAt(this, list.length, 'get', i))];
  }

  /** Adds a module at the end (named by its index); returns this. */
  append(m: Module): this {
    this.registerModule(String(this.length), checkModule('append', m, 'module'));
    return this;
  }

  forward(x: unknown): any {
    for (const m of this.list()) x = m.forward(x);
    return x;
  }

  *[Symbol.iterator](): Generator<Module> {
    yield* this.list();
  }
}

/** A list of modules, registered (unlike a plain array field) so their parameters belong to the parent. */
export class ModuleList extends IndexedModules {
  constructor(modules: Iterable<Module> = []) {
    super();
    this.extend(modules);
  }
}

/** Modules by name, registered under their keys. */
export class ModuleDict extends Module {
  constructor(modules: Record<string, Module> | Iterable<[string, Module]> = {}) {
    super();
    this.update(modules);
  }

  /** Adds or replaces modules from an object or [key, module] pairs. */
  update(modules: Record<string, Module> | Iterable<[string, Module]>): void {
    const entries = Symbol.iterator in Object(modules) ? [...(modules as Iterable<[string, Module]>)] : Object.entries(modules);
    for (const [k, m] of entries) this.set(k, m);
  }

  /** The module under key. */
  get(key: string): Module | undefined {
    const v = this.has(key) ? (this as unknown as Record<string, unknown>)[key] : undefined;
    return v instanceof Module ? v : undefined;
  }

  /** Adds or replaces the module under key. */
  set(key: string, m: Module): void {
    checkModule('ModuleDict', m, key);
    if (Object.prototype.hasOwnProperty.call(this, key)) (this as unknown as Record<string, Module>)[key] = m;
    else this.registerModule(key, m);
  }

  /** Whether a module is under key. */
  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this, key) && (this as unknown as Record<string, unknown>)[key] instanceof Module;
  }

  /** Removes and returns the module under key. */
  pop(key: string): Module {
    const m = this.get(key);
    if (m === undefined) throw codedError('TSGPU_NN', `ModuleDict has no key '${key}'`);
    delete (this as unknown as Record<string, unknown>)[key];
    return m;
  }

  /** The keys, in insertion order. */
  keys(): string[] {
    return [...this.namedChildren()].map(([k]) => k);
  }

  /** The modules. */
  values(): Module[] {
    return [...this.children()];
  }

  /** [key, module] pairs. */
  items(): [string, Module][] {
    return [...this.namedChildren()];
  }

  /** The number of modules. */
  get length(): number {
    return this.keys().length;
  }
}
