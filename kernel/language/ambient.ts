/**
 * The declarations of what the kernel puts in every cell's global scope, for
 * the type checker, completion and inspection. Keep in step with
 * kernel/display.ts, kernel/stdin.ts and kernel/kernel.ts.
 */
export const AMBIENT_DECLARATIONS = `
declare global {
  /** The tensor runtime: PyTorch's API in camelCase (\`torch.randn\`, \`torch.cuda.memoryAllocated\`, …). The same object as \`import * as torch from "tsgpu"\`. */
  const torch: typeof import("tsgpu");

  namespace display {
    /** Options of every display call. */
    interface Options {
      /** Names the output so that \`updateDisplay(displayId, value)\` can replace it later. */
      displayId?: string;
    }
    /** Shows an HTML fragment. */
    function html(s: string, options?: Options): void;
    /** Shows Markdown. */
    function markdown(s: string, options?: Options): void;
    /** Shows an SVG image given as its source text. */
    function svg(s: string, options?: Options): void;
    /** Shows a PNG image from its bytes or their base64 text. */
    function png(bytes: Uint8Array | string, options?: Options): void;
    /** Shows a value as JSON (a tree view in JupyterLab). */
    function json(v: unknown, options?: Options): void;
    /** Shows a mime bundle as given, e.g. \`{ "text/html": "<b>hi</b>", "text/plain": "hi" }\`. */
    function mime(bundle: Record<string, unknown>, options?: Options): void;
  }
  /** Shows a value below the cell: its own mime bundle (\`Symbol.for("Jupyter.mimebundle")\`) or its text. */
  function display(value: unknown, options?: display.Options): void;
  /** Replaces the output shown earlier with \`display(…, { displayId })\`. */
  function updateDisplay(displayId: string, value: unknown): void;
  /** Clears the cell's output; with \`wait: true\`, only once new output arrives. */
  function clearOutput(options?: { wait?: boolean }): void;
  /** Asks the user for a line of text in the notebook. */
  function input(prompt?: string, options?: { password?: boolean }): Promise<string>;
  /** Asks the user for a line of text, blocking the cell until it arrives. */
  function prompt(text?: string): string;
  /** The running cell. */
  const cell: {
    /** Aborts when the user interrupts the cell: pass it to long asynchronous work. */
    readonly signal: AbortSignal;
    /** The cell's execution count (\`In[n]\`). */
    readonly executionCount: number;
  };
  /** Jupyter comms with the front end (widgets and the like). */
  const comms: {
    /** Handles \`comm_open\` from the front end for a target name. */
    registerTarget(name: string, handler: (comm: any, data: Record<string, unknown>, msg: any) => void | Promise<void>): void;
    unregisterTarget(name: string): void;
    /** Opens a comm to the front end. */
    open(name: string, data?: Record<string, unknown>, options?: { metadata?: Record<string, unknown>; buffers?: ArrayBufferView[] }): any;
    get(commId: string): any;
    list(targetName?: string): Record<string, { target_name: string }>;
  };
  /** Results of earlier cells by execution count. */
  const Out: Record<number, unknown>;
  /**
   * Adds a magic written in TypeScript: \`fn(args, ctx)\` runs for \`%name args\`;
   * with \`{ cell: true }\`, \`fn(args, body, ctx)\` runs for a cell that starts with \`%%name args\`.
   * Its return value is the line's (or cell's) result.
   */
  function registerMagic(name: string, fn: ((args: string, ctx: any) => unknown) | ((args: string, body: string, ctx: any) => unknown), options?: { cell?: boolean; usage?: string }): void;
  /** Kernel internals that rewritten cells call (magics). */
  const __tsgpu: { magic(name: string, args: string): Promise<unknown>; cellMagic(name: string, args: string, body: string): Promise<unknown> };
}
export {};
`;
