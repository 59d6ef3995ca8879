/**
 * Cell source (TypeScript) → one JavaScript script that runs the cell in the
 * kernel's global scope:
 *
 *   __tsgpu.declare(["a", "C", "f"]); (async function (__tsgpu_cell) { __tsgpu.define({f}); (a = 1); C = class C {…}; … })(__tsgpu.cell)
 *
 * Types go away with swc (in process, well under a millisecond; the
 * TypeScript compiler needs a type checker per call for that). Then, on the
 * JavaScript, with acorn: top-level declarations become properties of the
 * global object (declared by the kernel, so that `%reset` can delete them
 * again) plus assignments, so a later cell sees them and may declare them
 * again; imports
 * become awaited dynamic imports; every loop body checks the interrupt flag;
 * the last expression becomes the cell's result. The edits never add or
 * remove a line, so positions map back to the cell through swc's source map
 * and a per-line list of column shifts.
 */
import { SourceMap } from "module";
import { transformSync } from "@swc/core";
import * as acorn from "acorn";

export class CellSyntaxError extends Error {
  constructor(message: string, readonly line: number, readonly column: number) {
    super(message);
    this.name = "SyntaxError";
  }
}

const RUNTIME = "__tsgpu";
const CELL = "__tsgpu_cell";

/** Parsed source maps of the cells that needed one last, most recent last. */
const kParsedMaps = 16;
const parsedMaps = new Map<CellPositions, SourceMap>();

/**
 * What maps a position in a cell's script back to the cell: swc's source map
 * (as its JSON text) and the columns the kernel's own edits moved. This, not
 * the script, is what the record of every run keeps (tracebacks and `%memory`
 * need it for as long as the session lasts), so it is kept small: the
 * shifts are one flat array of numbers, `[line, column, delta, …]` in line
 * order (was a Map of objects per line), and the parsed map is made only
 * when a position is asked for (bench/soak.ts: 10,000 cells grew the main
 * heap 1.1 KB a cell with the scripts, maps and shift objects in every record).
 */
export class CellPositions {
  constructor(
    /**
     * The script's last line: where the cell's wrapper function is called.
     * A stack frame there is the kernel's call, not a line of the cell.
     */
    readonly wrapperLine: number,
    private readonly mapJson: string,
    /** Columns inserted (+) or removed (-) at a column of a line of swc's output: line, column, delta triples (an array of its exact length: one grown by push keeps spare room). */
    private readonly shifts: readonly number[],
  ) {}

  /**
   * Parsed only when an error or a memory record needs it: most cells never
   * do. The parsed form (an object per mapping) is kept for a few recent
   * cells only: a long session's failed cells would otherwise each keep
   * theirs (bench/soak.ts: 900 of them, several MiB).
   */
  private get map(): SourceMap {
    let map = parsedMaps.get(this);
    if (map) { parsedMaps.delete(this); } else map = new SourceMap(JSON.parse(this.mapJson));
    parsedMaps.set(this, map);
    if (parsedMaps.size > kParsedMaps) parsedMaps.delete(parsedMaps.keys().next().value!);
    return map;
  }

  /** A 1-based position in the script → the 1-based position in the cell, or null. */
  cellPosition(line: number, column: number): { line: number; column: number } | null {
    let col = column - 1;
    let acc = 0;
    const s = this.shifts;
    for (let i = 0; i < s.length; i += 3) {
      if (s[i] !== line - 1) continue;
      if (s[i + 1] + acc + Math.max(0, s[i + 2]) <= col) acc += s[i + 2];
    }
    col = Math.max(0, col - acc);
    const entry = this.map.findEntry(line - 1, col) as any;
    if (!entry || entry.originalLine === undefined) return null;
    return { line: entry.originalLine + 1, column: entry.originalColumn + 1 };
  }
}

export class TranspiledCell {
  constructor(
    /** The script to run. */
    readonly script: string,
    /** Top-level names the cell declares (and so defines as globals). */
    readonly names: string[],
    /** Script positions → cell positions. */
    readonly positions: CellPositions,
    /**
     * Whether the cell's text has a function or class of its own (beyond
     * the kernel's wrapper): only then can something outlive the run whose
     * source `help` looks for in the script.
     */
    readonly definesFunctions: boolean,
  ) {}

  get wrapperLine(): number { return this.positions.wrapperLine; }

  /** A 1-based position in the script → the 1-based position in the cell, or null. */
  cellPosition(line: number, column: number): { line: number; column: number } | null {
    return this.positions.cellPosition(line, column);
  }
}

/** swc's message: "  x Expression expected\n   ,-[cell.ts:1:1]\n 1 | let x = ;\n   :         ^" */
function swcSyntaxError(e: unknown, fileName: string): CellSyntaxError {
  const text = String((e as Error)?.message ?? e);
  const message = (/^\s*(?:x|×)\s+(.+)$/m.exec(text)?.[1] ?? text.split("\n")[0]).trim();
  // The caret line shows the column under the numbered source line it follows.
  const lines = text.split("\n");
  let line = 1, column = 1;
  for (let i = 0; i < lines.length; i++) {
    const src = /^\s*(\d+)\s\|/.exec(lines[i]);
    const caret = lines[i + 1] !== undefined ? /^(\s*:\s*)(\s*)\^/.exec(lines[i + 1]) : null;
    if (src && caret) {
      line = Number(src[1]);
      const bar = lines[i].indexOf("|");
      column = Math.max(1, lines[i + 1].indexOf("^") - bar - 1);
      break;
    }
  }
  if (line === 1 && column === 1) {
    const m = new RegExp(`\\[${fileName.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:(\\d+):(\\d+)\\]`).exec(text);
    if (m) { line = Number(m[1]); column = Number(m[2]); }
  }
  return new CellSyntaxError(message, line, column);
}

function stripTypes(source: string, fileName: string): { code: string; map: string } {
  try {
    const out = transformSync(source, {
      filename: fileName,
      isModule: true,
      sourceMaps: true,
      inlineSourcesContent: false,
      swcrc: false,
      configFile: false,
      jsc: {
        parser: { syntax: "typescript", decorators: true },
        target: "es2022",
        transform: { verbatimModuleSyntax: true, decoratorVersion: "2022-03", useDefineForClassFields: true },
        keepClassNames: true,
      },
    });
    return { code: out.code, map: out.map! };
  } catch (e) {
    throw swcSyntaxError(e, fileName);
  }
}

interface Edit { start: number; end: number; text: string }

type Node = acorn.Node & Record<string, any>;

/** Calls visit on every node below root, with whether it sits inside a function. */
function walk(root: Node, visit: (n: Node, inFunction: boolean, parent: Node | null) => void): void {
  const stack: [Node, boolean, Node | null][] = [[root, false, null]];
  while (stack.length) {
    const [n, inFn, parent] = stack.pop()!;
    visit(n, inFn, parent);
    const fnHere = inFn || /Function/.test(n.type) || n.type === "StaticBlock" || n.type === "PropertyDefinition";
    for (const key of Object.keys(n)) {
      if (key === "type" || key === "start" || key === "end") continue;
      const v = n[key];
      if (Array.isArray(v)) { for (const c of v) if (c && typeof c.type === "string") stack.push([c, fnHere, n]); }
      else if (v && typeof v.type === "string") stack.push([v, fnHere, n]);
    }
  }
}

function bindingNames(p: Node, into: string[]): void {
  switch (p.type) {
    case "Identifier": into.push(p.name); break;
    case "ObjectPattern": for (const prop of p.properties) bindingNames(prop.type === "RestElement" ? prop.argument : prop.value, into); break;
    case "ArrayPattern": for (const el of p.elements) if (el) bindingNames(el, into); break;
    case "RestElement": bindingNames(p.argument, into); break;
    case "AssignmentPattern": bindingNames(p.left, into); break;
  }
}

export function transpileCell(source: string, fileName: string, keepResult: boolean): TranspiledCell {
  const { code, map } = stripTypes(source, fileName + ".ts");
  let ast: Node;
  try {
    ast = acorn.parse(code, { ecmaVersion: "latest", sourceType: "module", allowAwaitOutsideFunction: true, locations: false }) as Node;
  } catch (e) {
    throw new CellSyntaxError(String((e as Error).message).replace(/\s*\(\d+:\d+\)$/, ""), 1, 1);
  }
  const inSource = (name: string) => new RegExp(`(^|[^\\w$])${name.replace(/\$/g, "\\$")}($|[^\\w$])`).test(source);
  const edits: Edit[] = [];
  const names = new Set<string>();
  const hoisted: string[] = [];
  const body: Node[] = ast.body;
  const last = body[body.length - 1];

  // Declarations: top-level let/const/class/function, and var anywhere outside functions.
  let definesFunctions = false;
  walk(ast, (n, inFn, parent) => {
    if (/Function|Class/.test(n.type)) definesFunctions = true;
    if (n.type === "VariableDeclaration" && !inFn && (n.kind === "var" || body.includes(n))) {
      const declared: string[] = [];
      for (const d of n.declarations) bindingNames(d.id, declared);
      if (!declared.every(inSource)) return; // compiler-made (e.g. the `using` stack): stays local
      for (const name of declared) names.add(name);
      const inForHead = parent && /^For/.test(parent.type) && parent.body !== n;
      if (inForHead) { edits.push({ start: n.start, end: n.declarations[0].start, text: "" }); return; }
      edits.push({ start: n.start, end: n.declarations[0].start, text: "(" });
      for (const d of n.declarations) {
        if (!d.init) edits.push({ start: d.id.end, end: d.id.end, text: n.kind === "var" ? ` = ${code.slice(d.id.start, d.id.end)}` : " = void 0" });
      }
      const lastDecl = n.declarations[n.declarations.length - 1];
      edits.push({ start: lastDecl.end, end: lastDecl.end, text: ")" });
      return;
    }
    if (n.type === "FunctionDeclaration" && body.includes(n) && n.id && inSource(n.id.name)) {
      names.add(n.id.name);
      hoisted.push(n.id.name);
    }
    if (n.type === "ClassDeclaration" && body.includes(n) && n.id && inSource(n.id.name)) {
      names.add(n.id.name);
      edits.push({ start: n.start, end: n.start, text: `${n.id.name} = ` });
      edits.push({ start: n.end, end: n.end, text: ";" });
    }
    if (/^(For|ForIn|ForOf|While|DoWhile)Statement$/.test(n.type)) {
      const b = n.body;
      if (b.type === "BlockStatement") edits.push({ start: b.start + 1, end: b.start + 1, text: ` ${RUNTIME}.check();` });
      else {
        edits.push({ start: b.start, end: b.start, text: `{ ${RUNTIME}.check(); ` });
        edits.push({ start: b.end, end: b.end, text: " }" });
      }
    }
  });

  for (const st of body) {
    if (st.type === "ImportDeclaration") { edits.push(importEdit(code, st, names)); continue; }
    if (st.type === "ExportNamedDeclaration") {
      if (st.declaration) edits.push({ start: st.start, end: st.declaration.start, text: "" });
      else edits.push({ start: st.start, end: st.end, text: keepLines(code.slice(st.start, st.end), "") });
      continue;
    }
    if (st.type === "ExportDefaultDeclaration") {
      edits.push({ start: st.start, end: st.declaration.start, text: "" });
      continue;
    }
  }
  if (keepResult && last && last.type === "ExpressionStatement" && !last.directive) {
    edits.push({ start: last.expression.start, end: last.expression.start, text: `${CELL}.result = (` });
    edits.push({ start: last.expression.end, end: last.expression.end, text: ")" });
  }

  const declared = names.size ? `${RUNTIME}.declare(${JSON.stringify([...names])}); ` : "";
  const define = hoisted.length ? `${RUNTIME}.define({ ${hoisted.join(", ")} }); ` : "";
  const prefix = `${declared}(async function (${CELL}) { ${define}`;
  const { text, shifts } = applyEdits(code, edits, prefix.length);
  const script = `${prefix}${text}\n})(${RUNTIME}.cell);`;
  const wrapperLine = (script.match(/\n/g) ?? []).length + 1;
  return new TranspiledCell(script, [...names], new CellPositions(wrapperLine, map, shifts.slice()), definesFunctions);
}

/** Replacement text for `original` that keeps its line breaks. */
function keepLines(original: string, text: string): string {
  return text + "\n".repeat((original.match(/\n/g) ?? []).length);
}

/** `import d, { a as b } from "m"` → `d = __tsgpu.defaultOf(await __tsgpu.import("m")); ({ a: b } = await …);` */
function importEdit(code: string, st: Node, names: Set<string>): Edit {
  const spec = JSON.stringify(st.source.value);
  const load = `await ${RUNTIME}.import(${spec})`;
  const parts: string[] = [];
  const named: string[] = [];
  for (const s of st.specifiers) {
    names.add(s.local.name);
    if (s.type === "ImportDefaultSpecifier") parts.push(`${s.local.name} = ${RUNTIME}.defaultOf(${load});`);
    else if (s.type === "ImportNamespaceSpecifier") parts.push(`${s.local.name} = ${load};`);
    else {
      const imported = s.imported.type === "Identifier" ? s.imported.name : JSON.stringify(s.imported.value);
      named.push(imported === s.local.name ? imported : `${imported}: ${s.local.name}`);
    }
  }
  if (named.length) parts.push(`({ ${named.join(", ")} } = ${load});`);
  if (!st.specifiers.length) parts.push(`${load};`);
  return { start: st.start, end: st.end, text: keepLines(code.slice(st.start, st.end), parts.join(" ")) };
}

/** Applies edits (no two overlap) and records how columns moved: line, column, delta triples in line order. */
function applyEdits(code: string, edits: Edit[], firstLineShift: number): { text: string; shifts: number[] } {
  edits.sort((a, b) => a.start - b.start || a.end - b.end);
  const shifts: number[] = [];
  const record = (line: number, column: number, delta: number) => {
    if (delta) shifts.push(line, column, delta);
  };
  record(0, 0, firstLineShift);
  let out = "";
  let pos = 0;
  let line = 0;
  let lineStart = 0;
  const advance = (to: number) => {
    for (let i = pos; i < to; i++) if (code.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
  };
  for (const e of edits) {
    if (e.start < pos) continue; // overlapped by an earlier, larger edit
    advance(e.start);
    out += code.slice(pos, e.start);
    const removed = code.slice(e.start, e.end);
    const removedBreaks = (removed.match(/\n/g) ?? []).length;
    if (removedBreaks === 0 && !e.text.includes("\n")) record(line, e.start - lineStart, e.text.length - removed.length);
    out += e.text;
    pos = e.start;
    advance(e.end);
    pos = e.end;
  }
  out += code.slice(pos);
  return { text: out, shifts };
}
