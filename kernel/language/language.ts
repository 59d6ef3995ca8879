/**
 * Language features that answer from the live session: completion and
 * inspection from the type checker, the values the cells defined, and the
 * magics. Jupyter counts cursor positions in Unicode code points.
 */
import { inspect } from "util";
import { matchNames } from "./matching";

/** Code-point offset → UTF-16 index in s. */
export function codePointToIndex(s: string, cp: number): number {
  let i = 0;
  for (let n = 0; n < cp && i < s.length; n++) i += (s.codePointAt(i)! > 0xffff) ? 2 : 1;
  return i;
}

/** UTF-16 index → code-point offset in s. */
export function indexToCodePoint(s: string, index: number): number {
  return [...s.slice(0, index)].length;
}

const NAME_BEFORE = /((?:[A-Za-z_$][\w$]*\s*\.\s*)*)([A-Za-z_$][\w$]*)?$/;

/** Follows `a.b.c` from the global scope without calling anything but getters. */
export function lookup(path: string[]): { found: boolean; value: unknown } {
  let value: any = globalThis;
  for (const key of path) {
    if (value === null || value === undefined) return { found: false, value: undefined };
    try {
      if (!(key in Object(value))) return { found: false, value: undefined };
      value = value[key];
    } catch { return { found: false, value: undefined }; }
  }
  return { found: true, value };
}

function propertyNames(value: unknown): string[] {
  const names = new Set<string>();
  for (let o: any = Object(value); o && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    for (const k of Object.getOwnPropertyNames(o)) if (k !== "constructor" && /^[A-Za-z_$][\w$]*$/.test(k)) names.add(k);
  }
  return [...names];
}

const KEYWORDS = ["await", "async", "break", "case", "catch", "class", "const", "continue", "default", "do", "else", "enum",
  "export", "extends", "finally", "for", "function", "if", "import", "interface", "let", "new", "return", "switch",
  "throw", "try", "type", "typeof", "using", "var", "while", "yield"];

export function complete(code: string, cursorPos: number, userNames: Iterable<string>) {
  const at = codePointToIndex(code, cursorPos);
  const m = NAME_BEFORE.exec(code.slice(0, at))!;
  const path = m[1] ? m[1].split(".").map((s) => s.trim()).filter(Boolean) : [];
  const prefix = m[2] ?? "";
  let candidates: string[];
  if (path.length) {
    const { found, value } = lookup(path);
    candidates = found ? propertyNames(value) : [];
  } else {
    candidates = [...new Set([...userNames, ...propertyNames(globalThis).filter((k) => !k.startsWith("__")), ...KEYWORDS])];
  }
  const matches = matchNames(candidates.sort(), prefix, (c) => c);
  return {
    status: "ok",
    matches,
    cursor_start: cursorPos - [...prefix].length,
    cursor_end: cursorPos,
    metadata: {},
  };
}

/** The dotted name under (or just before) the cursor. */
export function nameAt(code: string, cursorPos: number): string[] {
  const at = codePointToIndex(code, cursorPos);
  let end = at;
  while (end < code.length && /[\w$]/.test(code[end])) end++;
  const m = NAME_BEFORE.exec(code.slice(0, end))!;
  return [...(m[1] ? m[1].split(".").map((s) => s.trim()).filter(Boolean) : []), ...(m[2] ? [m[2]] : [])];
}

/** A plain-text description of the value a dotted name refers to, or null if there is none. */
export function describe(path: string[]): string | null {
  if (!path.length) return null;
  const { found, value } = lookup(path);
  if (!found) return null;
  const name = path.join(".");
  const type = value === null ? "null" : typeof value === "function"
    ? (/^class\b/.test(Function.prototype.toString.call(value)) ? "class" : "function") : typeof value;
  const lines = [`${name}: ${type}`];
  if (typeof value === "function") {
    const src = Function.prototype.toString.call(value);
    const sig = src.slice(0, src.indexOf("{") > 0 ? src.indexOf("{") : 200).trim();
    lines.push(`Signature: ${sig.startsWith("function") || sig.startsWith("class") || sig.startsWith("async") ? sig : `${path[path.length - 1]}${sig.startsWith("(") ? sig : `(${value.length} arguments)`}`}`);
    const doc = (value as any).__doc__ ?? (value as any).doc;
    if (typeof doc === "string") lines.push("", doc);
  } else {
    lines.push(`Value: ${inspect(value, { depth: 2, colors: false, maxArrayLength: 20 })}`);
  }
  return lines.join("\n");
}

/** How long completion and inspection wait for the type checker before answering from runtime values. */
const kLanguageWaitMs = 3000;

/** The subset of the type checker that completion and inspection use. */
export interface TypeAware {
  complete(code: string, offset: number, timeoutMs: number): Promise<import("./cell_language").CompletionResult | null>;
  inspect(code: string, offset: number, timeoutMs: number): Promise<import("./cell_language").InspectionResult | null>;
}

/**
 * The completion types JupyterLab knows (each with its own mark and color in
 * the completer): every typed completion is one of these, and a value of a
 * callable type is a "function" however it was declared (cell_language.ts).
 */
export const kCompletionTypes = ["function", "instance", "class", "module", "keyword"] as const;

/** Jupyter's completion type (one of kCompletionTypes) for a TypeScript element kind. */
function jupyterType(kind: string): string {
  switch (kind) {
    case "method": case "function": case "local function": case "construct": case "call": return "function";
    case "class": case "local class": return "class";
    case "interface": case "type": case "type parameter": case "enum": return "class";
    case "module": case "external module name": return "module";
    case "keyword": return "keyword";
    default: return "instance";
  }
}

/** The magics as completion and help see them. */
export interface MagicCatalog {
  /** Names of the line magics, without `%`. */
  names(): string[];
  /** The options a magic takes (`--summary`, `-f`), from its usage. */
  options(name: string): string[];
  /** A magic's help text, or null if there is no such magic. */
  help(name: string): string | null;
}

/** A magic name being typed at the start of a line (`%mem`), or an option after one (`%memory --s`). */
const MAGIC_NAME = /^([ \t]*)%([\w]*)$/;
const MAGIC_OPTION = /^[ \t]*%([\w]+)[ \t](?:.*[ \t])?(-{0,2}[\w-]*)$/;

/**
 * Completion on a magic line: magic names after `%`, a magic's options
 * after its name; null when the cursor is not on a magic line.
 */
export function completeMagic(code: string, cursorPos: number, magics: MagicCatalog) {
  const at = codePointToIndex(code, cursorPos);
  const lineStart = code.lastIndexOf("\n", at - 1) + 1;
  const line = code.slice(lineStart, at);
  let matches: string[], start: number;
  const name = MAGIC_NAME.exec(line);
  const option = name ? null : MAGIC_OPTION.exec(line);
  if (name) {
    matches = matchNames(magics.names(), name[2], (n) => n).map((n) => "%" + n);
    start = lineStart + name[1].length;
  } else if (option) {
    matches = matchNames(magics.options(option[1]), option[2], (o) => o);
    start = at - option[2].length;
  } else if (/^[ \t]*%/.test(line)) {
    return { status: "ok", matches: [], cursor_start: cursorPos, cursor_end: cursorPos, metadata: {} };
  } else return null;
  const cursorStart = indexToCodePoint(code, start);
  return {
    status: "ok", matches, cursor_start: cursorStart, cursor_end: cursorPos,
    metadata: { _jupyter_types_experimental: matches.map((m) => ({ start: cursorStart, end: cursorPos, text: m, type: name ? "function" : "keyword" })) },
  };
}

/**
 * complete_request: magic names and options on a magic line; elsewhere the
 * TypeScript language service over all cells so far, and runtime values when
 * it has nothing to say. Positions are code points.
 */
export async function completeWithTypes(checker: TypeAware, code: string, cursorPos: number, userNames: Iterable<string>, magics?: MagicCatalog) {
  const magic = magics ? completeMagic(code, cursorPos, magics) : null;
  if (magic) return magic;
  const typed = await checker.complete(code, codePointToIndex(code, cursorPos), kLanguageWaitMs);
  if (!typed) return complete(code, cursorPos, userNames);
  const start = indexToCodePoint(code, typed.start);
  const end = indexToCodePoint(code, typed.end);
  return {
    status: "ok",
    matches: typed.matches.map((m) => m.name),
    cursor_start: start,
    cursor_end: end,
    metadata: { _jupyter_types_experimental: typed.matches.map((m) => ({ start, end, text: m.name, type: jupyterType(m.kind) })) },
  };
}

/** The signature as shown on hover, without the alias decoration of re-exported names. */
function cleanSignature(sig: string): string {
  return sig.replace(/^\(alias\) /, "").split("\n").filter((l) => !/^(export|import) [\w$]+$/.test(l.trim())).join("\n");
}

/** The help of the magic whose line the cursor is on (Shift-Tab on `%memory`), or null. */
function inspectMagic(code: string, cursorPos: number, magics: MagicCatalog) {
  const at = codePointToIndex(code, cursorPos);
  const lineStart = code.lastIndexOf("\n", at - 1) + 1;
  const lineEnd = code.indexOf("\n", at);
  const m = /^[ \t]*%([\w]+)/.exec(code.slice(lineStart, lineEnd < 0 ? code.length : lineEnd));
  const text = m ? magics.help(m[1]) : null;
  return text === null ? null : { status: "ok", found: true, data: { "text/plain": text }, metadata: {} };
}

/**
 * inspect_request: a magic's help on a magic line; elsewhere the signature
 * and JSDoc of the symbol at the cursor (text/plain and text/markdown), else
 * a description of the runtime value.
 */
export async function inspectWithTypes(checker: TypeAware, code: string, cursorPos: number, magics?: MagicCatalog) {
  const magic = magics ? inspectMagic(code, cursorPos, magics) : null;
  if (magic) return magic;
  const info = await checker.inspect(code, codePointToIndex(code, cursorPos), kLanguageWaitMs);
  if (info) {
    const signature = cleanSignature(info.signature);
    const tags = info.tags.map((t) => `@${t.name}${t.text ? " " + t.text : ""}`);
    const plain = [signature, info.documentation, tags.join("\n")].filter(Boolean).join("\n\n");
    const markdown = ["```typescript\n" + signature + "\n```", info.documentation,
      info.tags.map((t) => `*@${t.name}*${t.text ? " — " + t.text : ""}`).join("  \n")].filter(Boolean).join("\n\n");
    return { status: "ok", found: true, data: { "text/plain": plain, "text/markdown": markdown }, metadata: {} };
  }
  const text = describe(nameAt(code, cursorPos));
  return { status: "ok", found: text !== null, data: text === null ? {} : { "text/plain": text }, metadata: {} };
}
