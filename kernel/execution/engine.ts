/**
 * Runs cells: TypeScript in, state kept in the kernel's global scope,
 * results, errors with the user's line numbers, interrupt. Knows nothing of
 * the wire: the kernel turns its outcomes into messages.
 */
import { Script } from "vm";
import type { Message } from "../protocol/message";
import { CellSyntaxError, transpileCell } from "./transpile";
import { CellRecord, ErrorContent, formatError, syntaxErrorContent } from "./traceback";
import { CellScope, OutputRouter } from "./output";
import { InterruptError, isVmSigint } from "./interrupt";
import { defaultOf, ModuleLoader } from "./modules";

export type Outcome =
  | { status: "ok"; executionCount: number; hasResult: boolean; result: unknown }
  | { status: "error"; executionCount: number; error: ErrorContent; interrupted: boolean };

export interface EngineHooks {
  /** Runs a line magic (`%name args`) for the calling cell. */
  magic(name: string, args: string): Promise<unknown> | unknown;
  /** The runtime object (`torch`). */
  runtime(): unknown;
}

/** A line that is a magic call: `%name args`. */
const MAGIC_LINE = /^([ \t]*)%([A-Za-z_][\w]*)(.*)$/;

/** Rewrites `%name args` lines into awaited calls, keeping every line where it was. */
export function rewriteMagics(source: string): string {
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
  /** Results of earlier cells by execution count (IPython's `Out`). */
  readonly outputs: Record<number, unknown> = {};
  /** The last error a cell raised (kept for inspection, dropped by %reset). */
  lastError: unknown;
  private seq = 0;
  private cancel?: (e: Error) => void;
  private abort?: AbortController;
  readonly loader: ModuleLoader;

  constructor(private readonly router: OutputRouter, private readonly interruptFlag: Int32Array,
              private readonly hooks: EngineHooks) {
    this.loader = new ModuleLoader(hooks.runtime);
    this.installRuntimeGlobal();
  }

  private installRuntimeGlobal(): void {
    const flag = this.interruptFlag;
    const runtime = {
      cell: { result: undefined as unknown },
      check(): void { if (Atomics.load(flag, 0) !== 0) throw new InterruptError(); },
      import: (spec: string) => this.loader.import(spec),
      require: (spec: string) => this.loader.require(spec),
      defaultOf,
      /** Makes a cell's function declarations global (they are hoisted inside the cell's wrapper). */
      define(values: Record<string, unknown>): void { Object.assign(globalThis, values); },
      magic: (name: string, args: string) => this.hooks.magic(name, args),
    };
    Object.defineProperty(globalThis, "__tsgpu", { value: runtime, enumerable: false, configurable: true, writable: true });
    Object.defineProperty(globalThis, "Out", { value: this.outputs, enumerable: false, configurable: true, writable: true });
  }

  /** The scope of the running (or last) cell: signal, execution count. */
  currentScope(): CellScope | undefined { return this.router.scope(); }

  /** Interrupts the running cell: its signal fires and, if it is awaiting, it stops now. */
  interrupt(): void {
    Atomics.store(this.interruptFlag, 0, 1);
    this.abort?.abort(new InterruptError());
    this.cancel?.(new InterruptError());
  }

  async execute(code: string, parent: Message, options: { storeHistory: boolean; silent: boolean }): Promise<Outcome> {
    if (options.storeHistory) this.executionCount++;
    const executionCount = this.executionCount;
    const fileName = `tsgpu-cell-${++this.seq}`;
    const rec: CellRecord = { fileName, executionCount, lines: code.split("\n") };
    this.cells.set(fileName, rec);
    const keepResult = !options.silent && !/;\s*$/.test(code.replace(/\/\/[^\n]*$/, "").trimEnd());

    let transpiled;
    try {
      transpiled = transpileCell(rewriteMagics(code), fileName, keepResult);
    } catch (e) {
      if (e instanceof CellSyntaxError) {
        return { status: "error", executionCount, interrupted: false, error: syntaxErrorContent(rec, e.message, e.line, e.column) };
      }
      throw e;
    }
    rec.compiled = transpiled;
    for (const n of transpiled.names) this.userNames.add(n);

    const runtime = (globalThis as any).__tsgpu;
    const cellState = { result: undefined as unknown };
    runtime.cell = cellState;
    const abort = new AbortController();
    const scope: CellScope = { parent, executionCount, signal: abort.signal };
    this.abort = abort;
    this.router.current = scope;
    Atomics.store(this.interruptFlag, 0, 0);
    const cancelled = new Promise<never>((_, reject) => { this.cancel = reject; });
    cancelled.catch(() => undefined);
    try {
      const script = new Script(transpiled.script, { filename: fileName });
      const promise = this.router.scopes.run(scope, () => script.runInThisContext({ breakOnSigint: true }) as Promise<void>);
      await Promise.race([promise, cancelled]);
      const hasResult = keepResult && cellState.result !== undefined;
      if (hasResult && options.storeHistory) this.outputs[executionCount] = cellState.result;
      return { status: "ok", executionCount, hasResult, result: cellState.result };
    } catch (e) {
      const interrupted = e instanceof InterruptError || isVmSigint(e);
      const err = isVmSigint(e) ? new InterruptError() : e;
      this.lastError = err;
      return { status: "error", executionCount, interrupted, error: formatError(err, this.cells) };
    } finally {
      this.cancel = undefined;
      this.abort = undefined;
      Atomics.store(this.interruptFlag, 0, 0);
      this.router.flush();
    }
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

  /** Drops every user variable and the output history; returns the names dropped. */
  resetNamespace(): string[] {
    const dropped = [...this.userNames];
    for (const name of dropped) {
      try { (globalThis as any)[name] = undefined; } catch { /* a read-only global */ }
      try { delete (globalThis as any)[name]; } catch { /* var bindings cannot be deleted */ }
    }
    this.userNames.clear();
    for (const k of Object.keys(this.outputs)) delete this.outputs[Number(k)];
    this.lastError = undefined;
    return dropped;
  }
}
