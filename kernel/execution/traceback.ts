/**
 * Tracebacks that name the cell and line the user wrote (`Cell In[4], line 2`)
 * with that line shown, in IPython's layout. Positions in the generated script
 * go back through the cell's source map; kernel-internal frames are left out.
 */
import { sep } from "path";
import type { CellPositions, TranspiledCell } from "./transpile";

export interface CellRecord {
  /** The script's file name in stack traces, e.g. `tsgpu-cell-4`. */
  fileName: string;
  executionCount: number;
  lines: string[];
  /** Set once the cell compiled; maps script positions to cell positions. */
  positions?: CellPositions;
  /**
   * The script that ran, kept only where the cell has a function or class of its own (`help` finds a
   * function's source by its text in it): the other scripts are garbage after their run.
   */
  script?: string;
}

/**
 * A cell's record; `compiled` once it compiled. Every record has the same
 * five fields (one object shape, its properties in the object itself).
 */
export function cellRecord(fileName: string, executionCount: number, lines: string[], compiled?: TranspiledCell): CellRecord {
  return { fileName, executionCount, lines, positions: compiled?.positions, script: compiled?.definesFunctions ? compiled.script : undefined };
}

export interface ErrorContent { ename: string; evalue: string; traceback: string[] }

const RULE = "-".repeat(75);
const kernelDir = __dirname.slice(0, __dirname.lastIndexOf(sep + "kernel")) + sep;

/** A generated-script position (1-based) → the cell position (1-based), if mapped. */
export function cellPosition(rec: CellRecord, line: number, column: number): { line: number; column: number } | null {
  return rec.positions ? rec.positions.cellPosition(line, column) : { line, column };
}

function excerpt(rec: CellRecord, line: number): string {
  const out = [`Cell In[${rec.executionCount}], line ${line}`];
  const last = Math.min(rec.lines.length, line + 2);
  const width = String(last).length;
  for (let i = Math.max(1, line - 2); i <= last; i++) {
    out.push(`${i === line ? "---->" : "     "} ${String(i).padStart(width)} ${rec.lines[i - 1]}`);
  }
  return out.join("\n");
}

export function errorName(err: unknown): string {
  if (err instanceof Error) return err.name || err.constructor?.name || "Error";
  return typeof err === "object" && err !== null ? (err.constructor?.name ?? "Error") : "Error";
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  try { return typeof err === "string" ? err : JSON.stringify(err) ?? String(err); } catch { return String(err); }
}

/**
 * Whether a frame's file is the user's: not Node's internals, not the
 * kernel's nor the tensor runtime's own code (its errors say what was
 * wrong with the call that the user's frame shows).
 */
function isUserFrame(file: string): boolean {
  if (file.startsWith("node:") || file === "<anonymous>" || file.startsWith("evalmachine.")) return false;
  return !["kernel", "native", "magics"].some((part) => file.startsWith(kernelDir + part + sep));
}

const FRAME = /^\s*at (?:(.*?) \()?(.*?):(\d+):(\d+)\)?$/;

/** Builds the `error` content for a thrown value. */
export function formatError(err: unknown, cells: Map<string, CellRecord>): ErrorContent {
  const ename = errorName(err);
  const evalue = errorMessage(err);
  const blocks: string[] = [];
  const stack = err instanceof Error && typeof err.stack === "string" ? err.stack.split("\n") : [];
  for (const line of stack) {
    const m = FRAME.exec(line);
    if (!m) continue;
    const [, fn, file, l, c] = m;
    const rec = cells.get(file);
    if (rec) {
      if (rec.positions && Number(l) === rec.positions.wrapperLine) continue;
      const pos = cellPosition(rec, Number(l), Number(c));
      const block = pos ? excerpt(rec, pos.line) + (fn && !fn.startsWith("async ") && fn !== "<anonymous>" ? `\n    in ${fn}` : "") : "";
      // Frames of one place (a line reached again through a callback) are shown once.
      if (block && blocks[blocks.length - 1] !== block) blocks.push(block);
      continue;
    }
    if (!isUserFrame(file)) continue;
    blocks.push(`File ${file}:${l}, in ${fn || "<anonymous>"}`);
  }
  const head = `${RULE}\n${ename.padEnd(42)}Traceback (most recent call last)`;
  return { ename, evalue, traceback: [head, ...blocks.reverse(), `${ename}: ${evalue}`] };
}

/** The error content of a syntax error found before the cell ran. */
export function syntaxErrorContent(rec: CellRecord, message: string, line: number, column: number): ErrorContent {
  const text = rec.lines[line - 1] ?? "";
  const block = [`  Cell In[${rec.executionCount}], line ${line}`, `    ${text}`, `    ${" ".repeat(Math.max(0, column - 1))}^`].join("\n");
  return { ename: "SyntaxError", evalue: `${message} (line ${line}, column ${column})`, traceback: [block, `SyntaxError: ${message}`] };
}
