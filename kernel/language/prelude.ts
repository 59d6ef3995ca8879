/**
 * What earlier cells declared, as the type checker sees it: global
 * declarations in a few prelude files.
 *
 * After a cell ran, its declaration output (the compiler's `.d.ts` of the
 * cell, which writes out inferred types) becomes statements inside
 * `declare global { … }`, so the next cell sees `v0: Item0`, `make0(n)`,
 * `interface Item0` as the runtime does: as globals. The cell's imports
 * become global aliases (`export import v4 = __i7_0.v4`) of module-level
 * imports with names of their own. A name declared again by a later cell
 * drops every earlier declaration of that name, so redeclaring never clashes.
 *
 * The statements are grouped in chunks (files) of bounded size: a new cell
 * changes only the last chunk (and those it redeclares names of), so the
 * compiler parses little for each new program.
 */
import type * as TS from "typescript";

/** One global declaration: the names it declares and its text inside `declare global`. */
export interface Declaration { names: string[]; text: string }

/** What one cell added. */
export interface CellEntry {
  seq: number;
  /** Module-level import statements the cell's aliases refer to. */
  imports: string[];
  declarations: Declaration[];
}

/** A chunk is closed to new cells once its text is this long. */
const kChunkChars = 8 * 1024;

/** The top-level names a cell declares, and its imports, from its syntax tree. */
export interface CellNames {
  /** Names to export from the cell module so that its declaration output includes them. */
  exportable: string[];
  /** Names the cell's import statements bind. */
  imported: string[];
}

export function cellNames(ts: typeof TS, sf: TS.SourceFile): CellNames {
  const exportable = new Set<string>();
  const alreadyExported = new Set<string>();
  const imported: string[] = [];
  const isExported = (n: TS.Node) => ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const st of sf.statements) {
    if (ts.isVariableStatement(st)) {
      const flags = st.declarationList.flags;
      if (flags & ts.NodeFlags.Using || (flags & ts.NodeFlags.AwaitUsing) === ts.NodeFlags.AwaitUsing) continue;
      const target = isExported(st) ? alreadyExported : exportable;
      for (const d of st.declarationList.declarations) bindingNames(ts, d.name, target);
    } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) ||
                ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) {
      (isExported(st) ? alreadyExported : exportable).add(st.name.text);
    } else if (ts.isModuleDeclaration(st) && ts.isIdentifier(st.name) && !(st.flags & ts.NodeFlags.GlobalAugmentation)) {
      (isExported(st) ? alreadyExported : exportable).add(st.name.text);
    } else if (ts.isImportDeclaration(st) && st.importClause) {
      const c = st.importClause;
      if (c.name) imported.push(c.name.text);
      if (c.namedBindings && ts.isNamespaceImport(c.namedBindings)) imported.push(c.namedBindings.name.text);
      if (c.namedBindings && ts.isNamedImports(c.namedBindings)) for (const e of c.namedBindings.elements) imported.push(e.name.text);
    } else if (ts.isImportEqualsDeclaration(st)) {
      imported.push(st.name.text);
    } else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause) && !st.moduleSpecifier) {
      for (const e of st.exportClause.elements) alreadyExported.add((e.propertyName ?? e.name).getText(sf));
    }
  }
  for (const n of alreadyExported) exportable.delete(n);
  for (const n of imported) exportable.delete(n);
  return { exportable: [...exportable], imported };
}

function bindingNames(ts: typeof TS, name: TS.BindingName, into: Set<string>): void {
  if (ts.isIdentifier(name)) { into.add(name.text); return; }
  for (const el of name.elements) if (!ts.isOmittedExpression(el)) bindingNames(ts, el.name, into);
}

/** The names a declaration-file statement declares. */
function declaredNames(ts: typeof TS, st: TS.Statement): string[] {
  if (ts.isVariableStatement(st)) {
    const s = new Set<string>();
    for (const d of st.declarationList.declarations) bindingNames(ts, d.name, s);
    return [...s];
  }
  const name = (st as { name?: TS.Node }).name;
  return name && ts.isIdentifier(name) ? [name.text] : [];
}

/** A statement's text (with its doc comment) without `export`, `declare` and `default`. */
function ambientText(ts: typeof TS, st: TS.Statement, sf: TS.SourceFile): string {
  const full = st.getFullText(sf);
  const base = st.getFullStart();
  const cut = new Set([ts.SyntaxKind.ExportKeyword, ts.SyntaxKind.DeclareKeyword, ts.SyntaxKind.DefaultKeyword]);
  const mods = ts.canHaveModifiers(st) ? (ts.getModifiers(st) ?? []).filter((m) => cut.has(m.kind)) : [];
  let out = "";
  let pos = 0;
  for (const m of mods) {
    const start = m.getStart(sf) - base;
    let end = m.getEnd() - base;
    while (end < full.length && /\s/.test(full[end])) end++;
    out += full.slice(pos, start);
    pos = end;
  }
  return (out + full.slice(pos)).replace(/^\s*\n/, "");
}

/** Turns a cell's declaration output into global declarations. */
export function declarationsFromDts(ts: typeof TS, dts: string): Declaration[] {
  const sf = ts.createSourceFile("cell.d.ts", dts, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: Declaration[] = [];
  const visit = (statements: readonly TS.Statement[]) => {
    for (const st of statements) {
      if (ts.isImportDeclaration(st) || ts.isImportEqualsDeclaration(st) || ts.isExportDeclaration(st) || ts.isExportAssignment(st)) continue;
      if (ts.isModuleDeclaration(st) && st.flags & ts.NodeFlags.GlobalAugmentation) {
        if (st.body && ts.isModuleBlock(st.body)) visit(st.body.statements);
        continue;
      }
      if (ts.isVariableStatement(st)) {
        const kind = st.declarationList.flags & ts.NodeFlags.Const ? "const" : st.declarationList.flags & ts.NodeFlags.Let ? "let" : "var";
        const doc = st.getFullText(sf).slice(0, st.getStart(sf) - st.getFullStart()).replace(/^\s*\n/, "");
        for (const d of st.declarationList.declarations) {
          const names = new Set<string>();
          bindingNames(ts, d.name, names);
          out.push({ names: [...names], text: `${doc}${kind} ${d.getText(sf)};` });
        }
        continue;
      }
      const names = declaredNames(ts, st);
      if (names.length) out.push({ names, text: ambientText(ts, st, sf) });
    }
  };
  visit(sf.statements);
  return out;
}

/**
 * Global aliases for a cell's imports, named after the cell (`__i{seq}_{n}`)
 * so that two cells importing the same name never clash. A named import goes
 * through a namespace import (`export import v4 = __i3_0.v4` keeps the value,
 * the type and the namespace meaning); a default or `require` import, which
 * can only be aliased by its own name, as what its target is.
 */
export function importAliases(ts: typeof TS, sf: TS.SourceFile, checker: TS.TypeChecker, seq: number): { imports: string[]; declarations: Declaration[] } {
  const imports: string[] = [];
  const declarations: Declaration[] = [];
  let n = 0;
  const fresh = () => `__i${seq}_${n++}`;
  const byTarget = (local: TS.Identifier, u: string) => {
    const name = local.text;
    const sym = checker.getSymbolAtLocation(local);
    const target = sym && sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
    const flags = target?.flags ?? ts.SymbolFlags.Value;
    if (flags & (ts.SymbolFlags.Module | ts.SymbolFlags.Enum)) { declarations.push({ names: [name], text: `export import ${name} = ${u};` }); return; }
    const parts: string[] = [];
    if (flags & ts.SymbolFlags.Value || flags & ts.SymbolFlags.Alias) parts.push(`const ${name}: typeof ${u};`);
    const generic = target && flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface)
      ? ((checker.getDeclaredTypeOfSymbol(target) as TS.InterfaceType).typeParameters?.length ?? 0) > 0 : false;
    if (flags & ts.SymbolFlags.Type && !generic) parts.push(`type ${name} = ${u};`);
    if (parts.length) declarations.push({ names: [name], text: parts.join(" ") });
  };
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && st.importClause && ts.isStringLiteral(st.moduleSpecifier)) {
      const spec = JSON.stringify(st.moduleSpecifier.text);
      const c = st.importClause;
      if (c.name) {
        const u = fresh();
        imports.push(`import ${u} from ${spec};`);
        byTarget(c.name, u);
      }
      const nb = c.namedBindings;
      if (nb && ts.isNamespaceImport(nb)) {
        const u = fresh();
        imports.push(`import * as ${u} from ${spec};`);
        declarations.push({ names: [nb.name.text], text: `export import ${nb.name.text} = ${u};` });
      } else if (nb && nb.elements.length) {
        let ns: string | undefined;
        for (const e of nb.elements) {
          const imported = e.propertyName ? e.propertyName.text : e.name.text;
          if (imported === "default" || !/^[A-Za-z_$][\w$]*$/.test(imported)) {
            const u = fresh();
            const quoted = /^[A-Za-z_$][\w$]*$/.test(imported) ? imported : JSON.stringify(imported);
            imports.push(`import { ${quoted} as ${u} } from ${spec};`);
            byTarget(e.name, u);
            continue;
          }
          if (!ns) { ns = fresh(); imports.push(`import * as ${ns} from ${spec};`); }
          declarations.push({ names: [e.name.text], text: `export import ${e.name.text} = ${ns}.${imported};` });
        }
      }
    } else if (ts.isImportEqualsDeclaration(st) && ts.isExternalModuleReference(st.moduleReference) &&
               ts.isStringLiteral(st.moduleReference.expression)) {
      const u = fresh();
      imports.push(`import ${u} = require(${JSON.stringify(st.moduleReference.expression.text)});`);
      byTarget(st.name, u);
    }
  }
  return { imports, declarations };
}

/** The declarations of all cells so far, in chunks. */
export class Prelude {
  private entries: (CellEntry & { chunk: number })[] = [];
  private chunkCount = 1;
  private readonly dirty = new Set<number>([0]);

  /** Adds a cell's declarations; earlier declarations of the same names are dropped. */
  add(entry: CellEntry): void {
    const names = new Set(entry.declarations.flatMap((d) => d.names));
    if (names.size) {
      for (const e of this.entries) {
        const kept = e.declarations.filter((d) => !d.names.some((n) => names.has(n)));
        if (kept.length !== e.declarations.length) { e.declarations = kept; this.dirty.add(e.chunk); }
      }
      this.entries = this.entries.filter((e) => e.declarations.length > 0);
    }
    if (!entry.declarations.length) return;
    let chunk = this.chunkCount - 1;
    if (this.chunkSize(chunk) > kChunkChars) chunk = this.chunkCount++;
    this.entries.push({ ...entry, chunk });
    this.dirty.add(chunk);
  }

  /** Forgets every declaration (after %reset). */
  clear(): void {
    for (const e of this.entries) this.dirty.add(e.chunk);
    this.entries = [];
  }

  /** Whether a name is declared by some earlier cell. */
  has(name: string): boolean {
    return this.entries.some((e) => e.declarations.some((d) => d.names.includes(name)));
  }

  private chunkSize(chunk: number): number {
    let n = 0;
    for (const e of this.entries) if (e.chunk === chunk) for (const d of e.declarations) n += d.text.length;
    return n;
  }

  /** The chunks whose text changed since the last call, with their new text. */
  takeChanged(): { index: number; text: string }[] {
    const out = [...this.dirty].sort((a, b) => a - b).map((index) => ({ index, text: this.render(index) }));
    this.dirty.clear();
    return out;
  }

  private render(chunk: number): string {
    const imports: string[] = [];
    const body: string[] = [];
    for (const e of this.entries) {
      if (e.chunk !== chunk) continue;
      imports.push(...e.imports);
      body.push(...e.declarations.map((d) => d.text));
    }
    return `${imports.join("\n")}\ndeclare global {\n${body.join("\n")}\n}\nexport {};\n`;
  }
}
