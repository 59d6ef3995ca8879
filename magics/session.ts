/**
 * The kernel's side of the magics: builds the context every magic receives
 * from the execution engine, the output router and stdin, runs line and cell
 * magics, records memory after every cell, and lets notebooks add magics
 * (`registerMagic`). The kernel creates one session and hands it the engine.
 */
import type { ExecutionEngine } from "../kernel/execution/engine";
import type { OutputRouter } from "../kernel/execution/output";
import { cellPosition } from "../kernel/execution/traceback";
import type { MagicContext, MimeBundle, RuntimeApi } from "./context";
import { UsageError } from "./context";
import { MagicRegistry } from "./registry";
import { registerBuiltinMagics } from "./index";
import { MemoryTimeline } from "./timeline";
import { CellTimers } from "./timers";

export interface SessionDeps {
  /** The execution engine (a function: the engine is made after the session, with its hooks). */
  engine: () => ExecutionEngine;
  /** Where the running cell's output goes. */
  router: OutputRouter;
  /** The runtime (`torch`), loading it if needed. */
  runtime: () => RuntimeApi;
  /** The runtime if a cell has loaded it already, else undefined. */
  loadedRuntime: () => RuntimeApi | undefined;
  /** Asks on stdin (throws when the frontend does not allow it). */
  prompt: (text: string) => string;
  /** Help text for a dotted name, or null. */
  describe: (path: string[]) => string | null;
}

/** A magic a notebook adds: `fn(args, ctx)` for `%name args`; with `{ cell: true }`, `fn(args, body, ctx)` for `%%name`. */
export type UserMagic = ((args: string, ctx: MagicContext) => unknown) | ((args: string, body: string, ctx: MagicContext) => unknown);

export class MagicSession {
  readonly registry = new MagicRegistry();
  readonly timeline = new MemoryTimeline();
  readonly timers: CellTimers;
  private readonly interrupted = new Set<number>();
  /** Set by %restart: the kernel exits once the running request has been answered. */
  restartRequested = false;
  private readonly context: MagicContext;

  constructor(private readonly deps: SessionDeps) {
    registerBuiltinMagics(this.registry);
    this.timers = new CellTimers(() => deps.router.scopes.getStore()?.executionCount);
    this.context = this.makeContext();
  }

  /** Runs `%name args` for the calling cell. */
  runLine(name: string, args: string): Promise<unknown> {
    return this.registry.run(name, args, this.context);
  }

  /** Runs `%%name args` with the cell's body. */
  runCell(name: string, args: string, body: string): Promise<unknown> {
    return this.registry.runCell(name, args, body, this.context);
  }

  /** After every cell: records memory, prints the watch footer, remembers cells stopped with work pending. */
  afterCell(cell: { executionCount: number; status: "ok" | "error"; interrupted: boolean; pending: boolean }): void {
    if (cell.pending) this.interrupted.add(cell.executionCount);
    let footer: string | undefined;
    try { footer = this.timeline.afterCell(cell.executionCount, this.deps.loadedRuntime()); } catch { footer = undefined; }
    if (footer) this.deps.router.write("stdout", footer + "\n");
  }

  /** Maps a cell script position for memory history: `{ label: "Cell In[4]", line: 2, cell: 4 }`. */
  frameMapper = (file: string, line: number, column: number): { label: string; line: number; cell: number } | null => {
    const p = this.context.cells.position(file, line, column);
    return p ? { label: `Cell In[${p.cell}]`, line: p.line, cell: p.cell } : null;
  };

  /** `registerMagic(name, fn, { cell?, usage? })`, as cells see it. */
  registerMagic = (name: string, fn: UserMagic, options: { cell?: boolean; usage?: string } = {}): void => {
    if (typeof name !== "string" || !/^[A-Za-z_]\w*$/.test(name)) throw new UsageError(`registerMagic: expected a name of letters, digits and _ for name, got ${JSON.stringify(name)}`);
    if (typeof fn !== "function") throw new UsageError(`registerMagic: expected a function for fn, got ${typeof fn}`);
    const cell = Boolean(options.cell);
    this.registry.register({
      name,
      usage: options.usage ?? `${cell ? "%%" : "%"}${name}   (added by registerMagic)`,
      raw: true,
      run: (args, ctx) => {
        if (cell) throw new UsageError(`%${name} is a cell magic: write %%${name} on the first line of the cell`);
        return (fn as (a: string, c: MagicContext) => unknown)(args[0] ?? "", ctx);
      },
      runCell: cell ? (args, body, ctx) => (fn as (a: string, b: string, c: MagicContext) => unknown)(args.join(" "), body, ctx) : undefined,
    });
  };

  private makeContext(): MagicContext {
    const d = this.deps;
    const engine = () => d.engine();
    const registry = this.registry;
    return {
      get runtime() { return d.runtime(); },
      output: {
        display: (bundle: MimeBundle) => d.router.publish("display_data", { data: bundle, metadata: {}, transient: {} }),
        print: (t: string) => d.router.write("stdout", t.endsWith("\n") ? t : t + "\n"),
      },
      stdin: {
        confirm: (question: string) => {
          let answer: string;
          try { answer = d.prompt(question); } catch (e) { if ((e as Error)?.name === "StdinNotAllowedError") return null; throw e; }
          return /^\s*y(es)?\s*$/i.test(answer);
        },
      },
      namespace: {
        names: () => [...engine().userNames],
        get: (name: string) => (globalThis as any)[name],
        remove: (names: string[]) => engine().removeNames(names),
        reset: () => engine().resetNamespace(),
      },
      outputs: {
        entries: () => Object.entries(engine().outputs).map(([k, v]) => [Number(k), v] as [number, unknown]),
        clear: () => engine().clearOutputs(),
        forget: (value: unknown) => engine().clearOutputs((v) => v === value),
      },
      errors: {
        kept: () => { const e = engine(); return e.lastError === undefined ? undefined : { cell: e.lastErrorCell, error: e.lastError }; },
        clear: () => { engine().lastError = undefined; },
      },
      cells: {
        current: () => d.router.scope()?.executionCount ?? engine().executionCount,
        position: (file: string, line: number, column: number) => {
          const rec = engine().cells.get(file);
          const p = rec && cellPosition(rec, line, column);
          return rec && p ? { cell: rec.executionCount, line: p.line } : null;
        },
        interrupted: () => [...this.interrupted],
        timers: () => this.timers.list(),
        stopTimers: () => { const n = this.timers.stopAll(); this.interrupted.clear(); return n; },
      },
      timeline: this.timeline,
      kernel: {
        restart: () => { this.restartRequested = true; },
        describe: (name: string) => d.describe(name.split(".")) ?? undefined,
        run: (code: string) => engine().compileNested(code)(),
        compile: (code: string) => engine().compileNested(code),
        magics: () => registry.names().map((n) => { const m = registry.get(n)!; return { name: n, usage: m.usage, cell: Boolean(m.runCell) }; }),
      },
      typecheck: {
        mode: () => engine().checker.mode,
        setMode: (m) => { engine().checker.mode = m; },
        unavailable: () => engine().checker.unavailable,
      },
    };
  }
}
