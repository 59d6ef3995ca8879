/**
 * IPython's help lines: `?name`, `name?` and `%pinfo name` show what
 * Shift-Tab shows (the typed signature and the JSDoc); `??name`, `name??`
 * and `%pinfo2 name` add the source where there is one — a cell's own
 * TypeScript for what a cell defined, the TypeScript behind a compiled
 * package file where its source map leads to it, else the JavaScript that
 * runs. `?%memory` and `%memory?` show a magic's help.
 */
import { existsSync, readFileSync, statSync } from "fs";
import { dirname, resolve } from "path";
import { SourceMap } from "module";
import { fileURLToPath } from "url";
import type { CellRecord } from "./traceback";
import { inspectWithTypes, lookup, MagicCatalog, TypeAware } from "../language/language";

export interface HelpRequest {
  /** The dotted name asked about, or the magic's name without `%`. */
  name: string;
  /** 0: signature and documentation; 1: the source too. */
  detail: 0 | 1;
  magic: boolean;
}

const NAME = "(%{0,2}[A-Za-z_$][\\w$]*(?:\\.[A-Za-z_$][\\w$]*)*)";
const BEFORE = new RegExp(`^\\s*(\\?\\??)\\s*${NAME}\\s*$`);
const AFTER = new RegExp(`^\\s*${NAME}\\s*(\\?\\??)\\s*$`);
const PINFO = new RegExp(`^\\s*%pinfo(2?)\\s+${NAME}\\s*$`);

/** The help a line asks for, or null when it is not a help line. */
export function helpRequest(code: string): HelpRequest | null {
  let name: string, marks: string;
  let m = BEFORE.exec(code);
  if (m) [name, marks] = [m[2], m[1]];
  else if ((m = AFTER.exec(code))) [name, marks] = [m[1], m[2]];
  else if ((m = PINFO.exec(code))) [name, marks] = [m[2], m[1] ? "??" : "?"];
  else return null;
  const magic = name.startsWith("%");
  return { name: magic ? name.replace(/^%+/, "") : name, detail: marks.length === 2 ? 1 : 0, magic };
}

/** A function's source and where it is, for `??`. */
export interface SourceText { text: string; where: string }

/** Lines first..last (1-based, inclusive) of a text. */
function lineRange(text: string[], first: number, last: number): string {
  return text.slice(first - 1, Math.max(first, last)).join("\n");
}

/** 1-based line and column of a UTF-16 offset. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = (before.match(/\n/g) ?? []).length + 1;
  return { line, column: offset - before.lastIndexOf("\n") };
}

/** The cell lines a function defined by a cell came from (the latest cell whose script holds its text). */
function cellSource(fnText: string, cells: CellRecord[]): SourceText | null {
  for (const rec of [...cells].reverse()) {
    const script = rec.script;
    const at = script ? script.indexOf(fnText) : -1;
    if (!script || !rec.positions || at < 0) continue;
    const start = positionOf(script, at), end = positionOf(script, at + fnText.length - 1);
    const from = rec.positions.cellPosition(start.line, start.column);
    const to = rec.positions.cellPosition(end.line, end.column);
    if (!from) continue;
    const last = to ? to.line : from.line + (fnText.match(/\n/g) ?? []).length;
    return { text: lineRange(rec.lines, from.line, last), where: `Cell In[${rec.executionCount}], line ${from.line}` };
  }
  return null;
}

/** Files of loaded modules (not the compiler's: too large to search, and never what a user asks about). */
function loadedFiles(): string[] {
  return Object.keys(require.cache).filter((f) => /\.[cm]?js$/.test(f) && !/[\\/]node_modules[\\/]typescript[\\/]/.test(f));
}

/** The TypeScript (or other original) lines behind lines of a compiled file, through its source map, if both exist. */
function originalSource(file: string, text: string, start: number, end: number): SourceText | null {
  const mapFile = `${file}.map`;
  if (!existsSync(mapFile)) return null;
  let map: SourceMap;
  try { map = new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))); } catch { return null; }
  const a = positionOf(text, start), b = positionOf(text, end);
  const from = map.findEntry(a.line - 1, a.column - 1) as { originalSource?: string; originalLine?: number };
  const to = map.findEntry(b.line - 1, b.column - 1) as { originalSource?: string; originalLine?: number };
  if (!from?.originalSource || from.originalLine === undefined) return null;
  const source = from.originalSource.startsWith("file:") ? fileURLToPath(from.originalSource) : resolve(dirname(mapFile), from.originalSource);
  if (!existsSync(source)) return null;
  const lines = readFileSync(source, "utf8").split("\n");
  const last = to?.originalSource === from.originalSource && to.originalLine !== undefined ? to.originalLine + 1 : from.originalLine + 1;
  return { text: lineRange(lines, from.originalLine + 1, last), where: `${source}:${from.originalLine + 1}` };
}

/** The source of a function from a loaded module file that holds its text. */
function moduleSource(fnText: string): SourceText | null {
  for (const file of loadedFiles()) {
    let text: string;
    try {
      if (statSync(file).size > 4 * 1024 * 1024) continue;
      text = readFileSync(file, "utf8");
    } catch { continue; }
    const at = text.indexOf(fnText);
    if (at < 0) continue;
    return originalSource(file, text, at, at + fnText.length - 1) ?? { text: fnText, where: `${file}:${positionOf(text, at).line}` };
  }
  return null;
}

/** The source of a function or class value, or null (not a function, or built in). */
export function sourceOf(value: unknown, cells: CellRecord[]): SourceText | null {
  if (typeof value !== "function") return null;
  let fnText: string;
  try { fnText = Function.prototype.toString.call(value); } catch { return null; }
  if (/\{\s*\[native code\]\s*\}$/.test(fnText)) return null;
  return cellSource(fnText, cells) ?? moduleSource(fnText) ?? { text: fnText, where: "" };
}

/** What help needs of the kernel: types, magics, and the cells that ran. */
export interface HelpSources {
  checker: TypeAware & {
    /** Resolves once the checker is warm (or unavailable), or after timeoutMs. */
    whenReady(timeoutMs: number): Promise<boolean>;
  };
  magics: MagicCatalog;
  /** The cells run so far, oldest first. */
  cells(): CellRecord[];
}

/** How long a help line waits for the type checker to be warm (the first seconds after start). */
const kHelpWaitMs = 30000;

/** The pager's mime bundle for a help request, or null when the name is unknown. */
export async function helpPage(req: HelpRequest, sources: HelpSources): Promise<Record<string, string> | null> {
  if (req.magic) {
    const text = sources.magics.help(req.name);
    return text === null ? null : { "text/plain": text };
  }
  await sources.checker.whenReady(kHelpWaitMs);
  const shown = await inspectWithTypes(sources.checker, req.name, [...req.name].length);
  if (!shown.found) return null;
  const data = { ...shown.data } as Record<string, string>;
  if (req.detail === 1) {
    const { found, value } = lookup(req.name.split("."));
    const source = found ? sourceOf(value, sources.cells()) : null;
    if (source) {
      const where = source.where ? ` (${source.where})` : "";
      data["text/plain"] += `\n\nSource${where}:\n${source.text}`;
      if (data["text/markdown"] !== undefined) data["text/markdown"] += `\n\n**Source**${where}:\n\n\`\`\`typescript\n${source.text}\n\`\`\``;
    }
  }
  return data;
}
