/**
 * Runs cells: TypeScript in, state kept in the kernel's global scope,
 * results, errors with the user's line numbers, interrupt. Knows nothing of
 * the wire: the kernel turns its outcomes into messages.
 */
import { Script } from "vm";
import { setFlagsFromString } from "v8";
import type { Message } from "../protocol/message";
import { CellSyntaxError, transpileCell } from "./transpile";
import { CellRecord, cellRecord, ErrorContent, formatError, syntaxErrorContent } from "./traceback";
import { CellScope, OutputRouter } from "./output";
import { InterruptError, isVmSigint } from "./interrupt";
import { defaultOf, ModuleLoader } from "./modules";
import { PendingCheck, TypeChecker } from "../language/checker";
import { CachedCell, CellCache } from "./cell_cache";
import { strictErrorContent, warningText } from "./diagnostics";
import type { CellDiagnostic } from "../language/cell_language";
import { isLiteralArithmetic } from "../language/trivial_cell";

/**
 * A cell's AbortController, made only when something asks for its signal
 * (an `input()` waiting, a cell's own code): most cells never do, and one
 * made for every cell was a measurable part of a small cell's cost. An abort
 * before then is remembered, and the signal is made aborted.
 */
class CellAbort {
  private controller?: AbortController;
  private reason?: { value: unknown };

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason.value);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.controller) this.controller.abort(reason);
    else this.reason ??= { value: reason };
  }
}

/*
 * V8's compilation cache keeps about 1 KiB for every script compiled from a
 * new text or under a new file name, and every cell run is both (its file
 * name carries the run): measured on Node 20, 20,000 compiled cells kept
 * 36 MiB after a full collection, none with the cache off. The cache only
 * helps a text compiled again under the same name, which cells never are.
 */
setFlagsFromString("--no-compilation-cache");

/** How long a finished cell waits for its type warnings before replying without them (they follow later). */
const kWarningWaitMs = 5000;
/**
 * How long a cell that finished before the checker was warm (the first cells
 * after start) waits for it to be, before the wait above starts.
 */
const kCheckerReadyWaitMs = 60000;

export type Outcome =
  | { status: "ok"; executionCount: number; hasResult: boolean; result: unknown }
  | { status: "error"; executionCount: number; error: ErrorContent; interrupted: boolean };

export interface EngineHooks {
  /** Runs a line magic (`%name args`) for the calling cell. */
  magic(name: string, args: string): Promise<unknown> | unknown;
  /** Runs a cell magic (`%%name args` on the first line) with the rest of the cell as `body`. */
  cellMagic?(name: string, args: string, body: string): Promise<unknown> | unknown;
  /** Called as a cell starts running, with its execution count. */
  beforeCell?(executionCount: number): void;
  /** Called when a cell has finished, inside its output scope (for per-cell footers and records). */
  afterCell?(cell: { executionCount: number; status: "ok" | "error"; interrupted: boolean; pending: boolean }): void;
  /** The runtime object (`torch`). */
  runtime(): unknown;
  /**
   * The transport's relay (optional): `pump()` sends what its other thread queued for this one; cells'
   * loops call it when word `pendingWord` of the interrupt flag array is set (the transport owns the
   * array's layout: transport/bridge-types.ts).
   */
  relay?: { pendingWord: number; pump(): void };
}

/** A line that is a magic call: `%name args`. */
const MAGIC_LINE = /^([ \t]*)%([A-Za-z_][\w]*)(.*)$/;

/** A cell whose first line is `%%name args`: the rest of the cell is the magic's body. */
const CELL_MAGIC = /^[ \t]*%%([A-Za-z_][\w]*)([^\n]*)(?:\n([\s\S]*))?$/;

/**
 * Rewrites `%name args` lines into awaited calls, keeping every line where it
 * was; a `%%name` cell becomes one call that gets the body (with an empty
 * first line, so that its line numbers are the cell's).
 */
export function rewriteMagics(source: string): string {
  const cell = CELL_MAGIC.exec(source);
  if (cell) return `await __tsgpu.cellMagic(${JSON.stringify(cell[1])}, ${JSON.stringify(cell[2].trim())}, ${JSON.stringify("\n" + (cell[3] ?? ""))})`;
  return source.split("\n").map((line) => {
    const m = MAGIC_LINE.exec(line);
    return m ? `${m[1]}await __tsgpu.magic(${JSON.stringify(m[2])}, ${JSON.stringify(m[3].trim())});` : line;
  }).join("\n");
}

export class ExecutionEngine {
  executionCount = 0;
  readonly cells = new Map<string, CellRecord>();
  /** Top-level names declared by cells, in the order first declared. */
  readonly userNames = new Set<string>();
  /** Names declared by a cell that threw before assigning them: %reset drops them without listing them. */
  private readonly unassigned = new Set<string>();
  /** Results of earlier cells by execution count (IPython's `Out`). */
  readonly outputs: Record<number, unknown> = {};
  /** The last error a cell raised (kept for inspection, dropped by %reset). */
  lastError: unknown;
  /** The execution count of the cell that raised lastError. */
  lastErrorCell = 0;
  /** Globals that were there before the first cell ran (Node's, the kernel's): a cell that declares one shadows it. */
  private builtinGlobals?: Set<string>;
  /** The original properties of builtin globals that cells declared again, put back by %reset. */
  private readonly shadowed = new Map<string, PropertyDescriptor>();
  private seq = 0;
  private cancel?: (e: Error) => void;
  /** Ends the wait of a finished cell for its type warnings (on interrupt): they follow when they come. */
  private stopWarningWait?: () => void;
  private abort?: CellAbort;
  readonly loader: ModuleLoader;
  /** Type checking, completion and inspection (the checker thread). */
  readonly checker: TypeChecker;
  /** Transpiled scripts and code caches of recent cell texts. */
  readonly cellCache = new CellCache();

  constructor(private readonly router: OutputRouter, private readonly interruptFlag: Int32Array,
              private readonly hooks: EngineHooks, log: (text: string) => void = () => undefined) {
    this.loader = new ModuleLoader(hooks.runtime);
    this.checker = new TypeChecker(log);
    this.installRuntimeGlobal();
    // Start the checker thread once the kernel has answered its first requests.
    setTimeout(() => this.checker.start(), 20).unref();
  }

  private installRuntimeGlobal(): void {
    const flag = this.interruptFlag;
    const pump = this.hooks.relay?.pump ?? (() => undefined);
    // Without a relay, word 0 (the interrupt) stands in: checked just before, it is 0 there.
    const pending = this.hooks.relay?.pendingWord ?? 0;
    const runtime = {
      cell: { result: undefined as unknown },
      /** Called in every loop of a cell: stops it when interrupted, and lets the socket thread's messages out. */
      check(): void {
        if (Atomics.load(flag, 0) !== 0) throw new InterruptError();
        if (Atomics.load(flag, pending) !== 0) pump();
      },
      import: (spec: string) => this.loader.import(spec),
      require: (spec: string) => this.loader.require(spec),
      defaultOf,
      /** Makes a cell's function declarations global (they are hoisted inside the cell's wrapper). */
      define(values: Record<string, unknown>): void { Object.assign(globalThis, values); },
      /** Declares a cell's top-level names as globals (see declareGlobals). */
      declare: (names: string[]) => this.declareGlobals(names),
      magic: (name: string, args: string) => this.hooks.magic(name, args),
      cellMagic: (name: string, args: string, body: string) => {
        if (!this.hooks.cellMagic) throw new Error(`cell magics are not available here (%%${name})`);
        return this.hooks.cellMagic(name, args, body);
      },
    };
    Object.defineProperty(globalThis, "__tsgpu", { value: runtime, enumerable: false, configurable: true, writable: true });
    Object.defineProperty(globalThis, "Out", { value: this.outputs, enumerable: false, configurable: true, writable: true });
    // `require` in cells: packages from the notebook's folder first, then the kernel's; "tsgpu" is the runtime.
    const cellRequire = Object.assign((spec: string) => this.loader.require(spec), {
      resolve: (spec: string) => this.loader.resolvePath(spec),
      cache: require.cache,
      main: undefined,
    });
    Object.defineProperty(globalThis, "require", { value: cellRequire, enumerable: false, configurable: true, writable: true });
  }

  /**
   * Makes each name a global: a writable, deletable property of the global
   * object, undefined until the cell assigns it. A name that is already
   * there keeps its value (a cell declaring it again sees the old one until
   * it assigns); a builtin global's original is kept for %reset.
   */
  private declareGlobals(names: string[]): void {
    const g = globalThis as Record<string, unknown>;
    const builtins = this.builtinGlobals ?? new Set<string>();
    for (const name of names) {
      if (Object.prototype.hasOwnProperty.call(g, name)) {
        if (builtins.has(name) && !this.shadowed.has(name)) this.shadowed.set(name, Object.getOwnPropertyDescriptor(g, name)!);
        continue;
      }
      Object.defineProperty(g, name, { value: undefined, writable: true, enumerable: true, configurable: true });
    }
  }

  /** The scope of the running (or last) cell: signal, execution count. */
  currentScope(): CellScope | undefined { return this.router.scope(); }

  /** Whether a cell runs (or awaits) now. */
  get running(): boolean { return this.abort !== undefined; }

  /** Interrupts the running cell: its signal fires and, if it is awaiting, it stops now. */
  interrupt(): void {
    Atomics.store(this.interruptFlag, 0, 1);
    this.abort?.abort(new InterruptError());
    this.cancel?.(new InterruptError());
    this.stopWarningWait?.();
  }

  async execute(code: string, parent: Message, options: { storeHistory: boolean; silent: boolean }): Promise<Outcome> {
    this.builtinGlobals ??= new Set(Object.getOwnPropertyNames(globalThis));
    if (options.storeHistory) this.executionCount++;
    const executionCount = this.executionCount;
    const fileName = `tsgpu-cell-${++this.seq}`;
    const keepResult = !options.silent && !/;\s*$/.test(code.replace(/\/\/[^\n]*$/, "").trimEnd());

    const source = rewriteMagics(code);
    let cached: CachedCell;
    try {
      cached = this.cellCache.get(source, keepResult, () => transpileCell(source, fileName, keepResult), code);
    } catch (e) {
      if (e instanceof CellSyntaxError) {
        const failed = cellRecord(fileName, executionCount, code.split("\n"));
        this.cells.set(fileName, failed);
        return { status: "error", executionCount, interrupted: false, error: syntaxErrorContent(failed, e.message, e.line, e.column) };
      }
      throw e;
    }
    const transpiled = cached.transpiled;
    // Every run of a cell keeps a record (tracebacks and %memory find its lines by file name); runs of the
    // same text share its lines and its positions, so a record costs a few dozen bytes. A record keeps the
    // script only where help() may look for a function in it.
    const rec = cellRecord(fileName, executionCount, cached.lines, transpiled);
    this.cells.set(fileName, rec);
    const mode = this.checker.mode;
    const check = this.checker.analyze(source);

    const abort = new CellAbort();
    const scope: CellScope = { parent, executionCount, get signal() { return abort.signal; } };
    this.abort = abort;
    this.router.current = scope;
    this.hooks.beforeCell?.(executionCount);
    const cancelled = new Promise<never>((_, reject) => { this.cancel = reject; });
    cancelled.catch(() => undefined);

    let outcome: Outcome;
    let settled: Promise<boolean> | undefined;
    try {
      // An interrupt that came after this cell's request, before the cell began (the kernel clears the flag when
      // it is idle), stops it here.
      if (Atomics.load(this.interruptFlag, 0) !== 0) throw new InterruptError();
      if (mode === "strict") {
        const errors = (check.known ?? await Promise.race([check.diagnostics, cancelled])).filter((d) => d.category === "error");
        if (errors.length) return { status: "error", executionCount, interrupted: false, error: strictErrorContent(errors, rec.lines, executionCount) };
      }
      for (const n of transpiled.names) {
        if (!this.userNames.has(n)) this.unassigned.add(n);
        this.userNames.add(n);
      }
      const runtime = (globalThis as any).__tsgpu;
      const cellState = { result: undefined as unknown };
      runtime.cell = cellState;
      cached.literal ??= isLiteralArithmetic(code);
      if (cached.value) {
        // Literal arithmetic run before: its value, without compiling it again (see CachedCell).
        this.checker.commit(check.seq);
        cellState.result = cached.value.result;
      } else {
        // No V8 code cache here: a script compiled from one takes the file name of the run that made it,
        // and tracebacks find the cell by that name.
        const script = new Script(transpiled.script, { filename: fileName });
        this.checker.commit(check.seq);
        const promise = this.router.scopes.run(scope, () => script.runInThisContext({ breakOnSigint: true }) as Promise<void>);
        settled = promise.then(() => true, () => true);
        await Promise.race([promise, cancelled]);
        if (cached.literal) cached.value = { result: cellState.result };
      }
      const hasResult = keepResult && cellState.result !== undefined;
      if (hasResult && options.storeHistory) this.storeOutput(executionCount, cellState.result);
      outcome = { status: "ok", executionCount, hasResult, result: cellState.result };
    } catch (e) {
      const interrupted = e instanceof InterruptError || isVmSigint(e);
      const err = isVmSigint(e) ? new InterruptError() : e;
      this.lastError = err;
      this.lastErrorCell = executionCount;
      outcome = { status: "error", executionCount, interrupted, error: formatError(err, this.cells) };
    } finally {
      this.cancel = undefined;
      this.abort = undefined;
      Atomics.store(this.interruptFlag, 0, 0);
      this.router.flush();
    }
    // A name this cell declared stays "unassigned" only while its value is still the undefined of its declaration.
    for (const n of transpiled.names) if ((globalThis as Record<string, unknown>)[n] !== undefined || outcome.status === "ok") this.unassigned.delete(n);
    // A cell stopped while awaiting keeps its frames until what it awaits settles.
    const pending = settled ? !(await Promise.race([settled, Promise.resolve(false)])) : false;
    if (this.hooks.afterCell) {
      const info = { executionCount, status: outcome.status, interrupted: outcome.status === "error" && outcome.interrupted, pending };
      this.router.scopes.run(scope, () => this.hooks.afterCell!(info));
      this.router.flush();
    }
    if (mode === "on") await this.reportWarnings(check, rec, scope, outcome.status === "error" ? outcome.error : undefined);
    return outcome;
  }

  /**
   * Writes a cell's type warnings to its stderr before its reply: the
   * checker analyzed the cell while it ran, and a cell that ran before the
   * checker was warm waits for it. Only when the checker takes longer than
   * kWarningWaitMs once warm, or the user interrupts the wait, do they come
   * later, when it answers.
   */
  private async reportWarnings(check: PendingCheck, rec: CellRecord, scope: CellScope, error?: ErrorContent): Promise<void> {
    const write = (diags: CellDiagnostic[] | null) => {
      const text = diags ? warningText(diags, rec.lines, rec.executionCount, error) : "";
      if (!text) return;
      this.router.scopes.run(scope, () => this.router.write("stderr", text));
      this.router.flush();
    };
    if (check.known) { write(check.known); return; }
    let timer: NodeJS.Timeout | undefined;
    const stopped = new Promise<null>((resolve) => { this.stopWarningWait = () => resolve(null); });
    const wait = async (): Promise<CellDiagnostic[] | null> => {
      if (!this.checker.warm && !(await Promise.race([this.checker.whenReady(kCheckerReadyWaitMs), stopped]))) return null;
      const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), kWarningWaitMs); });
      return Promise.race([check.diagnostics, late, stopped]);
    };
    const diags = await wait();
    clearTimeout(timer);
    this.stopWarningWait = undefined;
    if (diags) write(diags);
    else void check.diagnostics.then(write);
  }

  /** Evaluates an expression for user_expressions (no history, no output). */
  async evaluate(expr: string): Promise<unknown> {
    const t = transpileCell(expr, `tsgpu-expr-${++this.seq}`, true);
    const runtime = (globalThis as any).__tsgpu;
    const saved = runtime.cell;
    const state = { result: undefined as unknown };
    runtime.cell = state;
    try {
      await new Script(t.script).runInThisContext();
      return state.result;
    } finally {
      runtime.cell = saved;
    }
  }

  /**
   * Keeps a cell's result in the output history: `Out[N]`, `_N`, and `_`,
   * `__`, `___` for the last three (each left alone when the user assigned it).
   */
  storeOutput(executionCount: number, value: unknown): void {
    this.outputs[executionCount] = value;
    const g = globalThis as any;
    const ours = (name: string) => g[name] === undefined || this.historyValues.get(name) === g[name];
    const shifted: [string, unknown][] = [["___", this.historyValues.get("__")], ["__", this.historyValues.get("_")], ["_", value]];
    for (const [name, v] of shifted) {
      if (!ours(name)) continue;
      g[name] = v;
      this.historyValues.set(name, v);
    }
    g[`_${executionCount}`] = value;
  }
  private readonly historyValues = new Map<string, unknown>();

  /** Drops the output history (`Out`, `_`, `__`, `___`, `_N`); returns the execution counts dropped. */
  clearOutputs(only?: (value: unknown) => boolean): number[] {
    const g = globalThis as any;
    const dropped: number[] = [];
    for (const k of Object.keys(this.outputs)) {
      const n = Number(k);
      if (only && !only(this.outputs[n])) continue;
      delete this.outputs[n];
      if (g[`_${n}`] !== undefined) delete g[`_${n}`];
      dropped.push(n);
    }
    for (const [name, v] of [...this.historyValues]) {
      if (only && !only(v)) continue;
      if (g[name] === v) g[name] = undefined;
      this.historyValues.delete(name);
    }
    return dropped;
  }

  /**
   * Compiles code as part of the current cell (a cell magic's body, a timed
   * statement) into a function that runs it: same execution count,
   * declarations persist, tracebacks name the cell's lines. Each call
   * resolves with the value of its last expression.
   */
  compileNested(code: string): () => Promise<unknown> {
    const fileName = `tsgpu-cell-${++this.seq}`;
    let rec = cellRecord(fileName, this.executionCount, code.split("\n"));
    this.cells.set(fileName, rec);
    const t = transpileCell(rewriteMagics(code), fileName, true);
    rec = cellRecord(fileName, rec.executionCount, rec.lines, t);
    this.cells.set(fileName, rec);
    for (const n of t.names) this.userNames.add(n);
    const script = new Script(t.script, { filename: fileName });
    return async () => {
      const runtime = (globalThis as any).__tsgpu;
      const saved = runtime.cell;
      const state = { result: undefined as unknown };
      runtime.cell = state;
      try {
        await script.runInThisContext({ breakOnSigint: true });
        return state.result;
      } finally {
        runtime.cell = saved;
      }
    };
  }

  /**
   * Drops these user variables (names no cell declared are left alone);
   * returns the names dropped. A dropped name is undeclared again (using it
   * is a ReferenceError); a builtin global a cell declared again gets its
   * original back.
   */
  removeNames(names: string[]): string[] {
    const dropped = names.filter((n) => this.userNames.has(n));
    const g = globalThis as Record<string, unknown>;
    // A name whose cell threw before assigning it was declared but never defined: dropped, not reported.
    const defined = dropped.filter((n) => !this.unassigned.has(n));
    for (const n of dropped) this.unassigned.delete(n);
    for (const name of dropped) {
      const original = this.shadowed.get(name);
      try {
        if (original) Object.defineProperty(g, name, original);
        else if (!delete g[name]) g[name] = undefined;
      } catch { /* a read-only global: left as it is */ }
      this.shadowed.delete(name);
      this.userNames.delete(name);
    }
    return defined;
  }

  /** Drops every user variable, the output history and the kept error; returns the names dropped. */
  resetNamespace(): string[] {
    const dropped = this.removeNames([...this.userNames]);
    this.checker.reset();
    this.clearOutputs();
    this.lastError = undefined;
    return dropped;
  }
}
