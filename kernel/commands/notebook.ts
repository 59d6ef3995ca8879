/**
 * `tsgpu run NOTEBOOK`: executes every code cell through a real kernel
 * process over zeromq, prints the cells' text output, and writes the executed
 * notebook (nbformat 4) with its outputs and execution counts.
 */
import { closeSync, openSync, rmSync } from "fs";
import { basename, dirname, join, resolve } from "path";
import { KernelClient } from "../transport/client";
import type { Message } from "../protocol/message";
import { kernelArgv, kernelEnv } from "./install";
import { checkWritableFile, describeFsError, readTextFile, writeTextFile } from "../paths";
import { UsageError } from "./usage_error";

export const RUN_HELP = `usage: tsgpu run NOTEBOOK [--output FILE] [--allow-errors]

Executes every code cell of a TypeScript notebook (.ipynb) through the kernel,
prints the cells' text output, and exits with status 1 when a cell fails.

options:
  -o, --output FILE   write the executed notebook (outputs, execution counts) to FILE
  --allow-errors      keep running after a cell fails (the failure is kept in its output)
                      and exit with status 0, as nbconvert's --allow-errors
  -h, --help          show this help
`;

export interface RunOptions {
  /** Where the executed notebook is written (checked before any cell runs). */
  output?: string;
  /** Runs the cells after a failing one too. */
  allowErrors?: boolean;
  /** Prints nothing. */
  quiet?: boolean;
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

/** nbformat's multiline strings: a list of lines that keep their newlines. */
function lines(text: string): string[] {
  return text.split(/(?<=\n)/);
}

/** An iopub message → an nbformat output, or null for messages that are not outputs. */
export function toOutput(m: Message): any | null {
  const c = m.content;
  switch (m.header.msg_type) {
    case "stream": return { output_type: "stream", name: c.name, text: lines(c.text) };
    case "display_data": return { output_type: "display_data", data: c.data, metadata: c.metadata ?? {} };
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

/** Merges consecutive stream outputs of the same name, as nbconvert does. */
function coalesce(outputs: any[]): any[] {
  const out: any[] = [];
  for (const o of outputs) {
    const last = out[out.length - 1];
    if (o.output_type === "stream" && last?.output_type === "stream" && last.name === o.name) last.text = lines(last.text.join("") + o.text.join(""));
    else out.push(o);
  }
  return out;
}

export async function runNotebook(path: string, options: RunOptions = {}): Promise<{ notebook: any; errors: number }> {
  const nb = readNotebook(path);
  if (options.output) checkOutputWritable(options.output);
  const client = await KernelClient.start({ argv: kernelArgv(), cwd: dirname(resolve(path)), env: { ...process.env, ...kernelEnv(process.env.GLIBC_TUNABLES) } });
  let errors = 0;
  const write = (s: string) => { if (!options.quiet) process.stdout.write(s); };
  try {
    for (const cell of nb.cells) {
      if (cell.cell_type !== "code") continue;
      const code = source(cell);
      const { reply, outputs } = await client.execute(code, { allow_stdin: false });
      cell.execution_count = reply.content.execution_count ?? null;
      const label = `In [${cell.execution_count ?? " "}]: `;
      write(`\n${label}${code.split("\n").join("\n" + " ".repeat(label.length))}\n`);
      cell.outputs = coalesce(outputs.map(toOutput).filter(Boolean));
      for (const o of cell.outputs) write(outputText(o));
      if (reply.content.status !== "ok") {
        errors++;
        if (!options.allowErrors) break;
      }
    }
  } finally {
    await client.shutdown();
  }
  nb.metadata = { ...nb.metadata, kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" },
    language_info: { name: "typescript", file_extension: ".ts", mimetype: "text/x-typescript" } };
  if (options.output) writeTextFile(options.output, JSON.stringify(nb, null, 1) + "\n");
  return { notebook: nb, errors };
}
