/**
 * Which cell started each pending timer, interval and immediate. A callback
 * that a timer keeps alive keeps what it captures alive too (a tensor in a
 * closure, or the frames of an async function awaiting a sleep), so
 * `%memory --tensors` names the timer's cell and `%reset -f` can stop them.
 * Only timers started by code running for a cell (its async context) count,
 * and not those the kernel itself starts meanwhile (output batching, waits).
 * The global `setTimeout`, `setInterval`, `setImmediate` and their `clear*`
 * functions are wrapped; the handles they return are Node's own.
 */
import { dirname, sep } from "path";
import type { CellTimer } from "./context";

/** The kernel's own compiled code (kernel/, magics/, native/): timers it starts are not the cell's. */
const kernelRoot = dirname(__dirname) + sep;

/** Whether the function that called `fn` is the kernel's own code or Node's (one stack frame, cheap). */
function calledByKernel(fn: Function): boolean {
  const holder: { stack?: string } = {};
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 1;
  Error.captureStackTrace(holder, fn);
  Error.stackTraceLimit = limit;
  const frame = /\(?([^()\s]+):\d+:\d+\)?\s*$/.exec(holder.stack?.split("\n")[1] ?? "");
  const file = frame?.[1] ?? "";
  return file.startsWith(kernelRoot) || file.startsWith("node:");
}

interface Entry extends CellTimer { handle: unknown; clear(): void }

export class CellTimers {
  private readonly pending = new Set<Entry>();
  private readonly byHandle = new Map<unknown, Entry>();

  /** Wraps the global timer functions; `cell()` gives the running cell's execution count (or undefined outside cells). */
  constructor(private readonly cell: () => number | undefined) {
    const g = globalThis as any;
    const wrap = (kind: CellTimer["kind"], start: (...a: any[]) => any, stop: (h: any) => void) => {
      const tracked = (callback: unknown, ...rest: unknown[]) => {
        const count = this.cell();
        if (typeof callback !== "function" || count === undefined || calledByKernel(tracked)) return start(callback, ...rest);
        let entry: Entry | undefined;
        const fn = callback as (...a: unknown[]) => unknown;
        const run = function (this: unknown, ...args: unknown[]) {
          if (kind !== "setInterval" && entry) self.forget(entry);
          return fn.apply(this, args);
        };
        const self = this;
        const handle = start(run, ...rest);
        entry = { kind, cell: count, callback: fn.name, handle, clear: () => stop(handle) };
        this.pending.add(entry);
        this.byHandle.set(handle, entry);
        return handle;
      };
      Object.defineProperty(tracked, "name", { value: kind });
      return tracked;
    };
    const clearing = (stop: (h: any) => void) => (handle: unknown) => {
      const entry = this.byHandle.get(handle) ?? (typeof handle === "number" || typeof handle === "string" ? this.findById(handle) : undefined);
      if (entry) this.forget(entry);
      stop(handle);
    };
    const [st, si, sm, ct, ci, cm] = [g.setTimeout, g.setInterval, g.setImmediate, g.clearTimeout, g.clearInterval, g.clearImmediate];
    const def = (name: string, value: unknown) => Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: true });
    def("setTimeout", Object.assign(wrap("setTimeout", st, ct), { [Symbol.for("nodejs.util.promisify.custom")]: st[Symbol.for("nodejs.util.promisify.custom")] }));
    def("setInterval", wrap("setInterval", si, ci));
    def("setImmediate", Object.assign(wrap("setImmediate", sm, cm), { [Symbol.for("nodejs.util.promisify.custom")]: sm[Symbol.for("nodejs.util.promisify.custom")] }));
    def("clearTimeout", clearing(ct));
    def("clearInterval", clearing(ci));
    def("clearImmediate", clearing(cm));
  }

  private findById(id: number | string): Entry | undefined {
    for (const e of this.pending) if (Number(e.handle as any) === Number(id)) return e;
    return undefined;
  }

  private forget(entry: Entry): void {
    this.pending.delete(entry);
    this.byHandle.delete(entry.handle);
  }

  /** The pending ones, oldest first. */
  list(): CellTimer[] {
    return [...this.pending].map(({ kind, cell, callback }) => ({ kind, cell, callback }));
  }

  /** Clears every pending one; returns how many were cleared. */
  stopAll(): number {
    const all = [...this.pending];
    for (const e of all) { this.forget(e); e.clear(); }
    return all.length;
  }
}
