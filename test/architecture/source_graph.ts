/**
 * The import and include graph of the source tree, read from the files as
 * text (no compiler, no kernel): what test/architecture/layers.test.ts checks
 * the dependency rules of ARCHITECTURE.md against.
 */
import { readdirSync, readFileSync, statSync } from "fs";
import { dirname, join, relative, resolve, sep } from "path";

/** The repository's root (this file runs from dist/test/architecture). */
export const ROOT = resolve(__dirname, "..", "..", "..");

/** Folders never walked: dependencies, build outputs, generated files' consumers only. */
const SKIP = new Set(["node_modules", "dist", "build", ".git"]);

/** Every file under `dir` (relative to ROOT, with "/" separators) whose name ends with one of `exts`. */
export function sourceFiles(dir: string, exts: readonly string[]): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const name of readdirSync(abs)) {
      if (SKIP.has(name)) continue;
      const p = join(abs, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (exts.some((e) => name.endsWith(e))) out.push(relative(ROOT, p).split(sep).join("/"));
    }
  };
  walk(join(ROOT, dir));
  return out.sort();
}

/** The text of a file with its comments blanked (strings are kept: import specifiers are strings). */
export function withoutComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      // Newlines are kept so that line numbers stay those of the file.
      out += text.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** One import (TypeScript) or include (C, C++, CUDA) of a file. */
export interface Edge {
  /** The importing file, relative to ROOT. */
  from: string;
  /** 1-based line of the import. */
  line: number;
  /** The specifier as written: "zeromq", "../kernel/execution/engine", "runtime/op_list.h", "<cuda_runtime.h>". */
  spec: string;
}

const TS_IMPORT = [
  /\bimport\s+(?:type\s+)?(?:[\w$*{},\s]+?\s+from\s+)?["']([^"']+)["']/g,
  /\bexport\s+(?:type\s+)?(?:\*|\{[^}]*\})(?:\s+as\s+[\w$]+)?\s+from\s+["']([^"']+)["']/g,
  /\brequire\(\s*["']([^"']+)["']\s*\)/g,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** The imports of a TypeScript file: static, type-only, re-exports, require() and import() of a literal. */
export function tsImports(file: string): Edge[] {
  const text = withoutComments(readFileSync(join(ROOT, file), "utf8"));
  const edges: Edge[] = [];
  for (const re of TS_IMPORT) {
    for (const m of text.matchAll(re)) edges.push({ from: file, line: lineOf(text, m.index ?? 0), spec: m[1] });
  }
  return edges.sort((a, b) => a.line - b.line);
}

/** The includes of a C, C++ or CUDA file: "quoted" as written, <system> ones with their brackets. */
export function includes(file: string): Edge[] {
  const text = withoutComments(readFileSync(join(ROOT, file), "utf8"));
  const edges: Edge[] = [];
  for (const m of text.matchAll(/^[ \t]*#[ \t]*include[ \t]*(<[^>]+>|"[^"]+")/gm)) {
    const raw = m[1];
    edges.push({ from: file, line: lineOf(text, m.index ?? 0), spec: raw.startsWith("<") ? raw : raw.slice(1, -1) });
  }
  return edges;
}

/** A relative TypeScript import resolved to the file it names (relative to ROOT), or null when it names none. */
export function resolveTs(edge: Edge, files: Set<string>): string | null {
  if (!edge.spec.startsWith(".")) return null;
  const base = join(dirname(edge.from), edge.spec).split(sep).join("/");
  for (const candidate of [base + ".ts", base + "/index.ts", base]) if (files.has(candidate)) return candidate;
  return null;
}

/**
 * The cycles of a directed graph, one per strongly connected component of
 * more than one node (or a node importing itself): each given as one
 * closed path through that component, for the error message.
 */
export function cycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components, iterative over the sorted nodes.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  const strong = (v: string) => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indices.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, indices.get(w)!));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const comp: string[] = [];
      let w: string;
      do { w = stack.pop()!; onStack.delete(w); comp.push(w); } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(comp);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!indices.has(v)) strong(v);
  return components.map((comp) => closedPath(graph, new Set(comp)));
}

/** A path from the component's first node (sorted) back to it, inside the component (breadth first: a shortest one). */
function closedPath(graph: Map<string, string[]>, comp: Set<string>): string[] {
  const start = [...comp].sort()[0];
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u = v; u !== start; u = prev.get(u)!) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!prev.has(w)) { prev.set(w, v); queue.push(w); }
    }
  }
  return [start, start];
}
