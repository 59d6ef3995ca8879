/**
 * What a magic receives: the runtime's public API (never the addon, never the
 * wire), the user namespace, and an output sink for mime bundles.
 */

/** The part of the `torch` runtime that magics use. */
export interface RuntimeApi {
  memory: {
    devices(): string[];
    allocated(d: string): number;
    maxAllocated(d: string): number;
    reserved(d: string): number;
    maxReserved(d: string): number;
    stats(d: string): Record<string, number>;
    summary(d: string, options?: { abbreviated?: boolean }): string;
    emptyCache(d: string): { releasedBytes: number; releasedSegments: number; keptBytes: number; keptSegments: number; reason: string };
    memGetInfo(d: string): [number, number];
    liveTensors(d?: string): { shape: number[]; dtype: string; device: string; nbytes: number; id: number }[];
    collectGarbage(): void;
  };
  cuda: { isAvailable(): boolean; unavailableReason(): string };
}

export type MimeBundle = Record<string, unknown>;

export interface MagicContext {
  runtime: RuntimeApi;
  output: {
    /** Shows a mime bundle as display_data of the running cell. */
    display(bundle: MimeBundle): void;
    /** Writes a line to the cell's stdout. */
    print(text: string): void;
  };
  namespace: {
    /** Names the user's cells declared. */
    names(): string[];
    /** Drops every user variable and the output history; returns the names dropped. */
    reset(): string[];
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
  run(args: string[], ctx: MagicContext): Promise<unknown> | unknown;
}

export class UsageError extends Error {
  constructor(message: string) { super(message); this.name = "UsageError"; }
}
