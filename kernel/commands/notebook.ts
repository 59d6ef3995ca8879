/**
 * `tsgpu run NOTEBOOK`: executes every code cell through a real kernel
 * process over zeromq, prints the cells' text output, and writes the executed
 * notebook (nbformat 4) with its outputs and execution counts.
 */
import { randomBytes } from "crypto";
import { closeSync, openSync, rmSync } from "fs";
import { basename, dirname, join, resolve } from "path";
import { KernelClient } from "../transport/client";
import type { Message } from "../protocol/message";
import { kernelArgv, kernelEnv } from "./install";
import { checkWritableFile, describeFsError, readTextFile, writeTextFile } from "../paths";
import { UsageError } from "./usage_error";

export const RUN_HELP = `usage: tsgpu run NOTEBOOK [--output FILE] [--allow-errors] [--timeout S]

Executes every code cell of a TypeScript notebook (.ipynb) through the kernel,
prints the cells' text output, and exits with status 1 when a cell fails.

options:
  -o, --output FILE   write the executed notebook (outputs, execution counts) to FILE
  --allow-errors      keep running after a cell fails (the failure is kept in its output)
                      and exit with status 0, as nbconvert's --allow-errors
  --timeout S         fail when one cell runs longer than S seconds (default: no limit)

As \`jupyter nbconvert --execute\`, it leaves out cells tagged skip-execution,
keeps running after a cell tagged raises-exception fails, and writes the
outputs as nbconvert stores them.
  -h, --help          show this help
`;

export interface RunOptions {
  /** Where the executed notebook is written (checked before any cell runs). */
  output?: string;
  /** Runs the cells after a failing one too. */
  allowErrors?: boolean;
  /** Prints nothing. */
  quiet?: boolean;
  /** The longest one cell may run, in milliseconds (default: no limit). */
  timeoutMs?: number;
}

/**
 * `tsgpu run`'s arguments: the notebook and its options, or "help". A usage
 * error (an unknown option, --output without its file, no notebook or more
 * than one) throws a UsageError.
 */
export function parseRunArgs(args: string[]): { file: string; options: RunOptions } | "help" {
  const options: RunOptions = {};
  const files: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "-h" || a === "--help") return "help";
    if (a === "-o" || a === "--output" || a.startsWith("--output=")) {
      const name = a.startsWith("--output=") ? "--output" : a;
      const v = a.startsWith("--output=") ? a.slice("--output=".length) : args[++i];
      if (!v || (v.startsWith("-") && !a.startsWith("--output="))) throw new UsageError(`${name} needs a file name`, "run");
      options.output = v;
    } else if (a === "--timeout" || a.startsWith("--timeout=")) {
      const v = a.startsWith("--timeout=") ? a.slice("--timeout=".length) : args[++i];
      const seconds = Number(v);
      if (!v || !(seconds > 0)) throw new UsageError(`--timeout needs a number of seconds, got ${v ?? "nothing"}`, "run");
      options.timeoutMs = seconds * 1000;
    } else if (a === "--allow-errors") options.allowErrors = true;
    else if (a.startsWith("-") && a !== "-") throw new UsageError(`unknown option ${a.replace(/=.*$/, "")}`, "run");
    else files.push(a);
  }
  if (files.length !== 1) throw new UsageError(`expected one notebook file, got ${files.length ? files.join(" ") : "none"}`, "run");
  return { file: files[0], options };
}

/**
 * Checks that the executed notebook can be written to `path` before any
 * cell runs: what checkWritableFile sees (a folder, a missing folder, no
 * permission), then a file made and removed beside it, which is what finds
 * the places that refuse writes only when tried (/sys, /proc, a read-only
 * mount as root). Throws one line naming the path and the reason.
 */
export function checkOutputWritable(path: string): void {
  checkWritableFile(path);
  const folder = dirname(resolve(path));
  const probe = join(folder, `.${basename(path)}.tsgpu-${process.pid}.tmp`);
  try {
    closeSync(openSync(probe, "wx", 0o600));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // ENOENT in a folder that exists: a file system that takes no new files (/proc).
    const why = code === "ENOENT" ? `the folder ${folder} takes no new files (ENOENT)` : `cannot make a file in ${folder}: ${describeFsError(e)}`;
    throw new Error(`cannot write ${path}: ${why}`);
  }
  rmSync(probe, { force: true });
}

/**
 * Reads a notebook for the kernel: one line naming the path when it is
 * missing, a folder, not JSON, not a notebook, or a notebook of another
 * language.
 */
export function readNotebook(path: string): any {
  const text = readTextFile(path, "notebook file (.ipynb)");
  let nb: any;
  try {
    nb = JSON.parse(text);
  } catch (e) {
    const why = (e as Error).message.replace(/\s+/g, " ");
    throw new Error(`${path} is not a notebook: it is not JSON (${why.length > 100 ? why.slice(0, 100) + "…" : why})`);
  }
  if (nb === null || typeof nb !== "object" || !Array.isArray(nb.cells)) throw new Error(`${path} is not a notebook: it has no "cells" list`);
  const spec = nb.metadata?.kernelspec;
  const language = spec?.language ?? nb.metadata?.language_info?.name;
  if (typeof language === "string" && language.toLowerCase() !== "typescript") {
    const kernel = spec?.name ? ` (kernel "${spec.name}")` : "";
    throw new Error(`${path} is a ${language} notebook${kernel}; tsgpu runs TypeScript notebooks`);
  }
  return nb;
}

function source(cell: any): string {
  return Array.isArray(cell.source) ? cell.source.join("") : String(cell.source ?? "");
}

/**
 * Python's `str.splitlines(True)`, which nbformat uses to store multiline strings as lists of lines: breaks after
 * \n, \r\n, a lone \r and the other line boundaries Python knows, each line keeping its break; "" is no lines.
 */
export function splitLines(text: string): string[] {
  return text === "" ? [] : text.split(/(?<=[\n\v\f\x1c-\x1e\x85\u2028\u2029])|(?<=\r)(?!\n)/);
}

/** An iopub message → an nbformat output (as nbformat's output_from_msg), or null for messages that are not outputs. */
export function toOutput(m: Message): any | null {
  const c = m.content;
  switch (m.header.msg_type) {
    case "stream": return { output_type: "stream", name: c.name, text: splitLines(c.text) };
    case "display_data": case "update_display_data": return { output_type: "display_data", data: c.data, metadata: c.metadata ?? {} };
    case "execute_result": return { output_type: "execute_result", data: c.data, metadata: c.metadata ?? {}, execution_count: c.execution_count };
    case "error": return { output_type: "error", ename: c.ename, evalue: c.evalue, traceback: c.traceback };
    default: return null;
  }
}

/** Text of an output as a terminal shows it. */
export function outputText(o: any): string {
  if (o.output_type === "stream") return o.text.join("");
  if (o.output_type === "error") return o.traceback.join("\n") + "\n";
  const plain = o.data?.["text/plain"];
  return plain === undefined ? "" : (Array.isArray(plain) ? plain.join("") : String(plain)) + "\n";
}

/**
 * Builds cells' outputs from their iopub messages the way nbclient (`jupyter nbconvert --execute`) does, so that
 * a notebook run here stores what a run there stores: one output per message, in order (coalesceStreams then
 * merges consecutive prints, as nbconvert does after the run); `clear_output` empties the cell's outputs at once, or, with
 * `wait`, just before its next output; a display with a `display_id` that an earlier output of any cell shows is
 * updated in place, and `update_display_data` updates those outputs without adding one.
 */
export class OutputBuilder {
  /** display_id → the outputs lists that show it → the indices there. */
  private displays = new Map<string, Map<any[], number[]>>();
  private clearBeforeNext = false;

  /** Starts a cell: its outputs list, emptied (a pending clear of the previous cell does not carry over). */
  startCell(cell: any): any[] {
    this.clearBeforeNext = false;
    cell.outputs = [];
    return cell.outputs;
  }

  /** Adds one message of the cell whose outputs list is `outs`. */
  add(outs: any[], m: Message): void {
    const type = m.header.msg_type;
    const displayId: string | undefined = m.content?.transient?.display_id;
    const isDisplay = type === "execute_result" || type === "display_data" || type === "update_display_data";
    if (displayId && isDisplay) {
      const o = toOutput(m);
      for (const [list, indices] of this.displays.get(displayId) ?? []) {
        for (const i of indices) { list[i].data = o.data; list[i].metadata = o.metadata; }
      }
    }
    if (type === "clear_output") {
      if (m.content.wait) this.clearBeforeNext = true;
      else this.clear(outs);
      return;
    }
    if (type === "update_display_data") return;
    const o = toOutput(m);
    if (!o) return;
    if (this.clearBeforeNext) { this.clear(outs); this.clearBeforeNext = false; }
    if (displayId && isDisplay) {
      const cells = this.displays.get(displayId) ?? new Map<any[], number[]>();
      this.displays.set(displayId, cells);
      cells.set(outs, [...(cells.get(outs) ?? []), outs.length]);
    }
    outs.push(o);
  }

  private clear(outs: any[]): void {
    outs.length = 0;
    for (const cells of this.displays.values()) if (cells.has(outs)) cells.set(outs, []);
  }
}

/**
 * Merges each cell's consecutive stream outputs of one name into one, and in each stream's text drops what a
 * carriage return inside a line overwrites: nbconvert's coalesce_streams, which it applies to a notebook after
 * executing it (how many messages a run of prints comes in depends on when the kernel flushed).
 */
export function coalesceStreams(nb: any): void {
  for (const cell of nb.cells ?? []) {
    if (!Array.isArray(cell.outputs) || !cell.outputs.length) continue;
    const text = (o: any) => (Array.isArray(o.text) ? o.text.join("") : String(o.text));
    const merged: any[] = [];
    for (const o of cell.outputs) {
      const last = merged[merged.length - 1];
      if (o.output_type === "stream" && last?.output_type === "stream" && last.name === o.name) last.text = splitLines(text(last) + text(o));
      else merged.push(o);
    }
    for (const o of merged) {
      if (o.output_type === "stream" && text(o).includes("\r")) o.text = splitLines(text(o).replace(/[^\n]*\r(?=[^\n])/g, ""));
    }
    cell.outputs = merged;
  }
}

/** A copy of `value` with every object's keys in sorted order (Python's json.dumps(sort_keys=True)). */
function sortKeys(value: any): any {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).sort()) out[k] = sortKeys(value[k]);
  return out;
}

/** MIME types whose string data nbformat stores as lines besides text/*. */
const kSplitMimes = new Set(["application/javascript", "image/svg+xml"]);

function splitBundle(data: Record<string, unknown> | undefined): void {
  for (const [k, v] of Object.entries(data ?? {})) if (typeof v === "string" && (k.startsWith("text/") || kSplitMimes.has(k))) data![k] = splitLines(v);
}

/**
 * A notebook's file text as nbformat writes it (and so nbconvert): multiline strings (sources, streams, text
 * data) as lists of lines, keys sorted, one space of indent, non-ASCII characters as they are, a final newline.
 */
export function notebookJson(nb: any): string {
  const copy = JSON.parse(JSON.stringify(nb));
  for (const cell of copy.cells ?? []) {
    if (typeof cell.source === "string") cell.source = splitLines(cell.source);
    for (const a of Object.values(cell.attachments ?? {})) splitBundle(a as Record<string, unknown>);
    if (cell.cell_type !== "code") continue;
    for (const o of cell.outputs ?? []) {
      if (o.output_type === "execute_result" || o.output_type === "display_data") splitBundle(o.data);
      else if (o.output_type === "stream" && typeof o.text === "string") o.text = splitLines(o.text);
    }
  }
  for (const k of ["orig_nbformat", "orig_nbformat_minor", "signature"]) delete copy.metadata?.[k];
  for (const cell of copy.cells ?? []) delete cell.metadata?.trusted;
  return JSON.stringify(sortKeys(copy), null, 1) + "\n";
}

/** The tag that leaves a cell out of a run, as nbclient's skip_cells_with_tag. */
const kSkipTag = "skip-execution";
/** The tag that lets a cell fail without stopping the run, as nbclient's. */
const kRaisesTag = "raises-exception";

/**
 * Executes a notebook's code cells in order, as `jupyter nbconvert --execute` (nbclient) does: cells whose source
 * is blank or that are tagged skip-execution are left as they are; the others get consecutive execution counts
 * from 1 and their outputs (see OutputBuilder, then coalesceStreams); a failing cell stops the run unless it is tagged
 * raises-exception or allowErrors is set (only the others count as errors); the notebook's language_info is
 * the kernel's, and a cell of an nbformat 4.5 notebook without an id gets a random one. Returns the executed notebook and the count of failures that were not allowed.
 */
export async function runNotebook(path: string, options: RunOptions = {}): Promise<{ notebook: any; errors: number }> {
  const nb = readNotebook(path);
  if (options.output) checkOutputWritable(options.output);
  // nbformat 4.5 wants an id on every cell; nbformat gives a cell without one a random id when it reads it.
  if (nb.nbformat === 4 && nb.nbformat_minor >= 5) for (const cell of nb.cells) if (typeof cell.id !== "string") cell.id = randomBytes(4).toString("hex");
  const client = await KernelClient.start({ argv: kernelArgv(), cwd: dirname(resolve(path)), env: { ...process.env, ...kernelEnv(process.env.GLIBC_TUNABLES) } });
  let errors = 0;
  const write = (s: string) => { if (!options.quiet) process.stdout.write(s); };
  const builder = new OutputBuilder();
  const timeoutMs = options.timeoutMs ?? Infinity;
  try {
    const info = await client.request("kernel_info_request", {});
    const languageInfo = info.reply.content.language_info;
    let executed = 0;
    for (const cell of nb.cells) {
      if (cell.cell_type !== "code") continue;
      const code = source(cell);
      const tags: string[] = Array.isArray(cell.metadata?.tags) ? cell.metadata.tags : [];
      if (!code.trim() || tags.includes(kSkipTag)) continue;
      const allowed = Boolean(options.allowErrors) || tags.includes(kRaisesTag);
      const outs = builder.startCell(cell);
      cell.execution_count = ++executed;
      const label = `In [${cell.execution_count}]: `;
      write(`\n${label}${code.split("\n").join("\n" + " ".repeat(label.length))}\n`);
      let reply: Message;
      try {
        const r = await client.execute(code, { allow_stdin: false, stop_on_error: !allowed }, timeoutMs);
        reply = r.reply;
        for (const m of r.outputs) builder.add(outs, m);
      } catch (e) {
        throw new Error(`cell ${cell.execution_count} did not finish: ${(e as Error).message}`);
      }
      for (const o of outs) write(outputText(o));
      if (reply.content.status !== "ok" && !allowed) {
        errors++;
        break;
      }
      if (reply.content.status !== "ok" && !tags.includes(kRaisesTag)) errors++;
    }
    coalesceStreams(nb);
    nb.metadata = { ...nb.metadata, kernelspec: nb.metadata?.kernelspec ?? { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" } };
    if (languageInfo) nb.metadata.language_info = languageInfo;
  } finally {
    await client.shutdown();
  }
  if (options.output) writeTextFile(options.output, notebookJson(nb));
  return { notebook: nb, errors };
}
