/**
 * `tsgpu run NOTEBOOK`: executes every code cell through a real kernel
 * process over zeromq, prints the cells' text output, and writes the executed
 * notebook (nbformat 4) with its outputs and execution counts.
 */
import { readFileSync, writeFileSync } from "fs";
import { dirname, resolve } from "path";
import { KernelClient } from "./transport/client";
import type { Message } from "./protocol/message";
import { kernelArgv } from "./install";

export interface RunOptions { output?: string; quiet?: boolean; timeoutMs?: number }

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
  const nb = JSON.parse(readFileSync(path, "utf8"));
  if (!Array.isArray(nb.cells)) throw new Error(`${path} is not a notebook: it has no "cells" list`);
  const client = await KernelClient.start({ argv: kernelArgv(), cwd: dirname(resolve(path)), env: process.env });
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
      if (reply.content.status !== "ok") { errors++; break; }
    }
  } finally {
    await client.shutdown();
  }
  nb.metadata = { ...nb.metadata, kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" },
    language_info: { name: "typescript", file_extension: ".ts", mimetype: "text/x-typescript" } };
  if (options.output) writeFileSync(options.output, JSON.stringify(nb, null, 1) + "\n");
  return { notebook: nb, errors };
}
