/**
 * The kernel's side of the magics: builds the context every magic receives
 * from the execution engine, the output router and stdin, runs line and cell
 * magics, records memory after every cell, and lets notebooks add magics
 * (`registerMagic`). The kernel creates one session and hands it the engine.
 */
import type { AsyncLocalStorage } from "async_hooks";
import type { MagicContext, MimeBundle, RuntimeApi } from "./context";
import { UsageError } from "./context";
import { MagicRegistry } from "./registry";
import { registerBuiltinMagics } from "./index";
import { MemoryTimeline } from "./timeline";
import { MemoryWatch } from "./watch";
import { CellTimers } from "./timers";

/**
 * What the session uses of the kernel's execution engine (kernel/execution/engine.ts implements it):
 * the magics see the kernel only through this and their context, never the kernel's modules.
 */
export interface SessionEngine {
  readonly executionCount: number;
  /** Top-level names declared by cells. */
  readonly userNames: Set<string>;
  /** Results of earlier cells by execution count. */
  readonly outputs: Record<number, unknown>;
  lastError: unknown;
  lastErrorCell: number;
  /** Deletes these names from the namespace; returns those that were there. */
  removeNames(names: string[]): string[];
  /** Deletes every name cells declared and their outputs; returns the names. */
  resetNamespace(): string[];
  /** Forgets the outputs `only` picks (all without it); returns their execution counts. */
  clearOutputs(only?: (value: unknown) => boolean): number[];
  /** Compiles code to run inside the calling cell. */
  compileNested(code: string): () => Promise<unknown>;
  /** The type checker's mode and why it cannot run (undefined when it can). */
  readonly checker: { mode: "on" | "strict" | "off"; readonly unavailable?: string };
}

/** What the session uses of the kernel's output router (kernel/execution/output.ts implements it). */
export interface SessionOutput {
  /** The output scope of the running cell, by async context. */
  readonly scopes: AsyncLocalStorage<{ executionCount: number }>;
  /** The running cell's scope (by async context, else the cell the kernel runs now). */
  scope(): { executionCount: number } | undefined;
  /** Publishes an iopub message for the running cell. */
  publish(msgType: string, content: Record<string, unknown>): void;
  /** Writes to the running cell's stdout or stderr. */
  write(name: "stdout" | "stderr", text: string): void;
}

export interface SessionDeps {
  /** The execution engine (a function: the engine is made after the session, with its hooks). */
  engine: () => SessionEngine;
  /** Where the running cell's output goes. */
  router: SessionOutput;
  /**
   * A position in a cell's generated script (its file name in stack traces, 1-based line and column)
   * → the cell's execution count and line, or null when the file is no cell's or the position is not mapped.
   */
  cellPosition: (file: string, line: number, column: number) => { cell: number; line: number } | null;
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
  readonly watch: MemoryWatch;
  readonly timers: CellTimers;
  private readonly interrupted = new Set<number>();
  /** Set by %restart: the kernel exits once the running request has been answered. */
  restartRequested = false;
  private readonly context: MagicContext;

  constructor(private readonly deps: SessionDeps) {
    registerBuiltinMagics(this.registry);
    this.timers = new CellTimers(() => deps.router.scopes.getStore()?.executionCount);
    const router = deps.router;
    this.watch = new MemoryWatch({
      show: (data, id) => router.publish("display_data", { data, metadata: {}, transient: { display_id: id } }),
      // An update may come between cells or during a later one: it goes out with the running (or last) request.
      update: (data, id) => router.publish("update_display_data", { data, metadata: {}, transient: { display_id: id } }),
      detached: (fn) => router.scopes.exit(fn),
    }, this.timeline);
    this.context = this.makeContext();
  }

  /** Runs `%name args` for the calling cell. */
  runLine(name: string, args: string): Promise<unknown> {
    return this.registry.run(name, args, this.context);
  }

  /**
   * Runs `%name args` with what it displays and prints captured instead of
   * published (the memory panel's remedies, whose results go back on its
   * comm): the bundles in order and the printed text.
   */
  async runCaptured(name: string, args: string): Promise<{ bundles: MimeBundle[]; printed: string }> {
    const bundles: MimeBundle[] = [];
    let printed = "";
    const ctx: MagicContext = Object.create(this.context);
    ctx.output = { display: (bundle) => { bundles.push(bundle); }, print: (text) => { printed += text.endsWith("\n") ? text : text + "\n"; } };
    await this.registry.run(name, args, ctx);
    return { bundles, printed };
  }

  /** The context magics receive, for kernel code that reuses their views (the memory panel). */
  get magicContext(): MagicContext { return this.context; }

  /** Runs `%%name args` with the cell's body. */
  runCell(name: string, args: string, body: string): Promise<unknown> {
    return this.registry.runCell(name, args, body, this.context);
  }

  /** After every cell: records memory, updates the live memory view, remembers cells stopped with work pending. */
  afterCell(cell: { executionCount: number; status: "ok" | "error"; interrupted: boolean; pending: boolean }): void {
    if (cell.pending) this.interrupted.add(cell.executionCount);
    try {
      // Read before the timeline resets the peaks (while watching), so that the view shows this cell's peak.
      const devices = this.watch.running ? MemoryTimeline.read(this.deps.loadedRuntime()) : [];
      this.timeline.afterCell(cell.executionCount, this.deps.loadedRuntime());
      if (this.watch.running) this.watch.afterCell(this.context, cell.executionCount, devices);
    } catch { /* the runtime failed to load: nothing to record */ }
  }

  /** Before the kernel exits (a restart or a shutdown): the live memory view stops and says so. */
  shutdown(restart: boolean): void {
    try { this.watch.stop(this.context, restart ? "the kernel restarted" : "the kernel shut down"); } catch { /* exiting anyway */ }
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
    const watch = this.watch;
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
        position: (file: string, line: number, column: number) => d.cellPosition(file, line, column),
        interrupted: () => [...this.interrupted],
        timers: () => this.timers.list(),
        stopTimers: () => { const n = this.timers.stopAll(); this.interrupted.clear(); return n; },
      },
      timeline: this.timeline,
      watch: {
        start: () => this.watch.start(this.context),
        stop: (reason: string) => this.watch.stop(this.context, reason),
        get running() { return watch.running; },
      },
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
