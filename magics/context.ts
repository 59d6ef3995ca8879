/**
 * What a magic receives: the runtime's public API (never the addon, never the
 * wire), stdin, the user namespace, the output history, the kept error, the
 * cells the kernel ran, and an output sink for mime bundles. The kernel's
 * implementation of this context is built in `magics/session.ts`.
 */
import type * as Runtime from "../native/index";
import type { RuntimeApi } from "./runtime_api";
import type { MemoryTimeline } from "./timeline";

export type { RuntimeApi } from "./runtime_api";

/**
 * A live tensor's storage as `torch.memory.liveTensors()` lists it (with the
 * runtime's label of what holds it, for memory it keeps itself).
 */
export type LiveTensor = Runtime.memory.LiveTensorInfo;

export type MimeBundle = Record<string, unknown>;

/** A timer or interval a cell started that has not fired (or been cleared) yet. */
export interface CellTimer {
  kind: "setTimeout" | "setInterval" | "setImmediate";
  /** The execution count of the cell that started it. */
  cell: number;
  /** The callback's name, or "" for an anonymous function. */
  callback: string;
}

export interface MagicContext {
  runtime: RuntimeApi;
  output: {
    /** Shows a mime bundle as display_data of the running cell. */
    display(bundle: MimeBundle): void;
    /** Writes a line to the cell's stdout. */
    print(text: string): void;
  };
  stdin: {
    /**
     * Asks a yes/no question through an input_request; true for "y"/"yes".
     * Null when the frontend does not allow stdin for this request.
     */
    confirm(question: string): boolean | null;
  };
  namespace: {
    /** Names the user's cells declared, in the order first declared. */
    names(): string[];
    /** The value of a user variable (undefined when it has none). */
    get(name: string): unknown;
    /** Drops these user variables; returns the names dropped. */
    remove(names: string[]): string[];
    /** Drops every user variable; returns the names dropped. */
    reset(): string[];
  };
  /** IPython's output history: `Out`, `_`, `__`, `___` and `_N`. */
  outputs: {
    /** Results by execution count. */
    entries(): [number, unknown][];
    /** Drops the whole history; returns the execution counts dropped. */
    clear(): number[];
    /** Drops the entries that hold `value`; returns their execution counts. */
    forget(value: unknown): number[];
  };
  /** The error the last failing cell raised, kept for inspection (IPython's sys.last_value). */
  errors: {
    kept(): { cell: number; error: unknown } | undefined;
    clear(): void;
  };
  cells: {
    /** The execution count of the running cell. */
    current(): number;
    /** A position in a generated cell script → the cell and line the user wrote, or null. */
    position(file: string, line: number, column: number): { cell: number; line: number } | null;
    /** Execution counts of cells that were interrupted (or failed) while they still had work pending. */
    interrupted(): number[];
    /** Timers and intervals cells started that are still pending. */
    timers(): CellTimer[];
    /** Clears every pending timer and interval cells started; returns how many. */
    stopTimers(): number;
  };
  /** Memory after every executed cell. */
  timeline: MemoryTimeline;
  /** The live memory view of `%memory --watch on` (watch.ts). */
  watch: {
    /** Shows the live view as this cell's output and keeps it updated. */
    start(): void;
    /** Stops updating it; its last update names `reason` ("--watch off"). */
    stop(reason: string): void;
    readonly running: boolean;
  };
  kernel: {
    /**
     * Once the running cell has been answered, releases native resources and
     * exits so that the kernel manager starts a fresh kernel.
     */
    restart(): void;
    /** Help text for a name in the user namespace (what `?name` shows), or undefined. */
    describe(name: string): string | undefined;
    /** Runs cell code (for %%time, %%memory); resolves with its last expression's value. */
    run(code: string): Promise<unknown>;
    /** Compiles cell code once into a function that runs it (for %timeit). */
    compile(code: string): () => Promise<unknown>;
    /** The magics (for %lsmagic and registerMagic). */
    magics(): { name: string; usage: string; cell: boolean }[];
  };
  /** How cells are type checked (absent where the kernel has no checker). */
  typecheck?: {
    mode(): "on" | "strict" | "off";
    setMode(mode: "on" | "strict" | "off"): void;
    /** Why checking cannot run, or undefined when it can. */
    unavailable(): string | undefined;
  };
}

export interface Magic {
  name: string;
  /** One line of usage, shown by %lsmagic and on a usage error. */
  usage: string;
  /** More about the magic and its options, shown after the usage by `%name?` (optional). */
  help?: string;
  /** When true, `run` gets the argument text whole, as `[text]` (statements, values with spaces). */
  raw?: boolean;
  /** Runs `%name args`. */
  run(args: string[], ctx: MagicContext): Promise<unknown> | unknown;
  /** Runs `%%name args` with the rest of the cell as `body` (cell magics only). */
  runCell?(args: string[], body: string, ctx: MagicContext): Promise<unknown> | unknown;
}

export class UsageError extends Error {
  constructor(message: string) { super(message); this.name = "UsageError"; }
}
