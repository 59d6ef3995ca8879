/**
 * Type checking, completion and inspection of cells over the whole notebook
 * so far: a CellProject (the compiler's view) plus a Prelude (what earlier
 * cells declared). Runs in the checker worker thread; plain and synchronous,
 * so tests can drive it directly. Offsets here are UTF-16 indices; the kernel
 * converts Jupyter's code points at the edge.
 */
import type * as TS from "typescript";
import { CellProject, ProjectSetup } from "./project";
import { CellEntry, cellNames, declarationsFromDts, importAliases, Prelude } from "./prelude";
import { matchNames } from "./matching";

export type DiagnosticCategory = "error" | "warning" | "suggestion" | "message";

/** A diagnostic in cell coordinates (1-based line and column). */
export interface CellDiagnostic {
  line: number;
  column: number;
  /** Length in UTF-16 units on the cell text (at least 1). */
  length: number;
  code: number;
  category: DiagnosticCategory;
  message: string;
}

export interface CompletionResult {
  matches: { name: string; kind: string }[];
  /** UTF-16 range of the text the matches replace. */
  start: number;
  end: number;
}

export interface InspectionResult {
  /** The symbol's signature or type, as TypeScript shows it on hover. */
  signature: string;
  /** The JSDoc text. */
  documentation: string;
  /** JSDoc tags (`@param x …`, `@returns …`, `@example …`). */
  tags: { name: string; text: string }[];
}

/** Diagnostics that say nothing to a notebook user. */
const IGNORED = new Set([
  1375, // 'await' at top level needs module es2022 (we are)
  1208, // a file that is not a module under isolatedModules
]);

/** Most cells remembered per generation of the prelude (see CellLanguage.known). */
const kKnownCells = 256;

/** What analyzing a cell found, valid while the prelude stays the same. */
interface KnownCell {
  /** Its diagnostics, once computed with them. */
  diagnostics?: CellDiagnostic[];
  /** What it declares (seq aside), once computed. */
  entry?: Omit<CellEntry, "seq">;
  /** It declares and imports nothing. */
  pure: boolean;
}

export class CellLanguage {
  readonly project: CellProject;
  private readonly ts: typeof TS;
  private readonly prelude = new Prelude();
  /**
   * The cell last analyzed, until commit: its declarations (computed when
   * asked), whether its diagnostics may be reused (it does not import: what
   * it sees then depends on the file system too) and whether it is pure
   * (declares and imports nothing, so committing it changes nothing).
   */
  private pending?: { seq: number; code: string; entry: () => CellEntry; reusable: boolean; pure: boolean };
  /**
   * Counts the changes to what a cell's diagnostics depend on: a prelude
   * chunk whose text changed, or the file system forgotten (a cell that
   * imports). Diagnostics found under one version hold until it changes.
   */
  version = 0;
  /**
   * Cells analyzed since the prelude last changed, by text. A cell's
   * diagnostics and declarations depend only on its text and on what earlier
   * cells declared (the prelude), so running a cell again without a change in
   * between needs no new program. Cells that import are left out: what they
   * see depends on the file system too.
   */
  private readonly known = new Map<string, KnownCell>();

  constructor(setup: ProjectSetup) {
    this.project = new CellProject(setup);
    this.ts = this.project.ts;
    this.applyPrelude();
  }

  /** Builds the first program (parses the libraries): the slow part of starting. */
  warmUp(): void {
    this.project.setCell("export {};\n");
    this.project.ls.getSemanticDiagnostics(this.project.cellFile);
  }

  /**
   * Puts the cell in the project and returns its type diagnostics (when asked).
   * What the cell declares is kept aside until commit(seq) says the cell ran.
   */
  analyze(code: string, seq: number, withDiagnostics: boolean): CellDiagnostic[] {
    const hit = this.known.get(code);
    if (hit?.entry && (hit.diagnostics || !withDiagnostics)) {
      const entry = { seq, ...hit.entry };
      this.pending = { seq, code, entry: () => entry, reusable: true, pure: hit.pure };
      return hit.diagnostics ?? [];
    }
    const ts = this.ts;
    const parsed = ts.createSourceFile(this.project.cellFile, code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const names = cellNames(ts, parsed);
    const imports = names.imported.length > 0 || /\bimport\s*\(|\brequire\s*\(/.test(code);
    if (imports) { this.project.forgetFileSystem(); this.known.clear(); this.version++; }
    const tail = names.exportable.length ? `\nexport { ${names.exportable.join(", ")} };\n` : "\nexport {};\n";
    const sf = this.project.setCell(code + tail, imports);
    const out: CellDiagnostic[] = [];
    if (withDiagnostics) {
      const ls = this.project.ls;
      const file = this.project.cellFile;
      for (const d of [...ls.getSyntacticDiagnostics(file), ...ls.getSemanticDiagnostics(file)]) {
        if (d.start === undefined || d.start >= code.length || IGNORED.has(d.code)) continue;
        const { line, character } = sf.getLineAndCharacterOfPosition(d.start);
        out.push({
          line: line + 1, column: character + 1, length: Math.max(1, Math.min(d.length ?? 1, code.length - d.start)),
          code: d.code, category: categoryName(ts, d.category), message: ts.flattenDiagnosticMessageText(d.messageText, "\n"),
        });
      }
    }
    // A cell that declares and imports nothing adds nothing to the prelude: skip its declaration output.
    const declaresNothing = !names.exportable.length && !names.imported.length;
    this.pending = {
      seq, code, entry: declaresNothing ? () => ({ seq, imports: [], declarations: [] }) : () => this.entryOfCell(seq),
      reusable: !imports, pure: declaresNothing && !imports,
    };
    if (!imports) this.remember(code, { diagnostics: withDiagnostics ? out : hit?.diagnostics, pure: declaresNothing });
    return out;
  }

  /**
   * Whether the diagnostics of the cell last analyzed hold for the same text
   * for as long as `version` stays the same (false for cells that import:
   * what they see depends on the file system too).
   */
  pendingIsReusable(): boolean { return this.pending?.reusable ?? false; }

  /** Whether the cell last analyzed declares and imports nothing: committing it would change nothing. */
  pendingIsPure(): boolean { return this.pending?.pure ?? false; }

  /** The declarations of the cell last analyzed, from the compiler's declaration output. */
  private entryOfCell(seq: number): CellEntry {
    const ls = this.project.ls;
    const emitted = ls.getEmitOutput(this.project.cellFile, true, true);
    const dts = emitted.outputFiles.find((f) => f.name.endsWith(".d.ts"))?.text ?? "";
    const program = ls.getProgram()!;
    const sf = program.getSourceFile(this.project.cellFile)!;
    const aliases = importAliases(this.ts, sf, program.getTypeChecker(), seq);
    return { seq, imports: aliases.imports, declarations: [...aliases.declarations, ...declarationsFromDts(this.ts, dts)] };
  }

  /** Computes the pending cell's declarations now (while nothing else waits), so commit is quick. */
  prepare(): void {
    const p = this.pending;
    if (!p) return;
    const entry = p.entry();
    this.pending = { ...p, entry: () => entry };
    const known = this.known.get(p.code);
    if (known && !known.entry) known.entry = { imports: entry.imports, declarations: entry.declarations };
  }

  private remember(code: string, cell: KnownCell): void {
    this.known.delete(code);
    if (this.known.size >= kKnownCells) this.known.delete(this.known.keys().next().value!);
    this.known.set(code, cell);
  }

  /** The cell analyzed as `seq` ran: its declarations join the prelude. */
  commit(seq: number): void {
    const p = this.pending;
    if (!p || p.seq !== seq) return;
    this.pending = undefined;
    this.prelude.add(p.entry());
    this.applyPrelude();
  }

  /** Forgets every earlier declaration (after %reset). */
  reset(): void {
    this.pending = undefined;
    this.prelude.clear();
    this.applyPrelude();
  }

  /** Puts changed prelude chunks in the project; what was known about cells holds only if none changed. */
  private applyPrelude(): void {
    let changed = false;
    for (const c of this.prelude.takeChanged()) if (this.project.setChunk(c.index, c.text)) changed = true;
    if (changed) { this.known.clear(); this.version++; }
  }

  /** Completions at a UTF-16 offset of code; null when the compiler has none. */
  complete(code: string, offset: number): CompletionResult | null {
    const ts = this.ts;
    this.project.setCell(code + "\nexport {};\n");
    const info = this.project.ls.getCompletionsAtPosition(this.project.cellFile, offset, {
      includeCompletionsWithInsertText: true, includeCompletionsWithSnippetText: false, includeCompletionsForModuleExports: false,
    });
    if (!info || !info.entries.length) return null;
    const before = code.slice(0, offset);
    const prefix = /[\p{ID_Continue}$\u200c\u200d]*$/u.exec(before)?.[0] ?? "";
    // A prefix that starts with a digit is not a name (`1.`): complete nothing.
    if (/^\d/.test(prefix)) return null;
    let start = offset - prefix.length;
    let end = offset;
    while (end < code.length && /[\p{ID_Continue}$]/u.test(code[end])) end++;
    const usable = info.entries.filter((e) => e.kind !== ts.ScriptElementKind.warning && !e.name.startsWith("__"));
    usable.sort((a, b) => a.sortText.localeCompare(b.sortText) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const matches = matchNames(usable, prefix, (e) => e.name);
    if (!matches.length) return null;
    if (info.optionalReplacementSpan && info.optionalReplacementSpan.start === start) end = Math.max(end, offset);
    if (start > offset) start = offset;
    const callable = this.callableNames(matches, start);
    return { matches: matches.map((e) => ({ name: e.name, kind: callable.has(e.name) ? ts.ScriptElementKind.functionElement : e.kind })), start, end };
  }

  /**
   * Which of these completions are values of a callable type though declared
   * as a variable or property (`const relu = (x) => …`, `memory: { allocated(d) }`
   * members typed as function properties): they complete as functions, as
   * those declared with `function` do. One look at the type checker for the
   * whole list: the object before the dot, or the names in scope.
   */
  private callableNames(entries: readonly TS.CompletionEntry[], start: number): Set<string> {
    const ts = this.ts;
    const kinds = new Set<string>([ts.ScriptElementKind.constElement, ts.ScriptElementKind.letElement, ts.ScriptElementKind.variableElement,
      ts.ScriptElementKind.localVariableElement, ts.ScriptElementKind.memberVariableElement, ts.ScriptElementKind.alias, ts.ScriptElementKind.parameterElement]);
    const wanted = entries.filter((e) => kinds.has(e.kind)).map((e) => e.name);
    const out = new Set<string>();
    if (!wanted.length) return out;
    const program = this.project.ls.getProgram();
    const file = program?.getSourceFile(this.project.cellFile);
    if (!program || !file) return out;
    const checker = program.getTypeChecker();
    // The innermost node that ends at or after the start of the name being typed.
    const find = (node: TS.Node): TS.Node => {
      for (const child of node.getChildren(file)) if (child.getStart(file) < start && child.getEnd() >= start) return find(child);
      return node;
    };
    const at = find(file);
    const access = ts.isPropertyAccessExpression(at) ? at : at.parent && ts.isPropertyAccessExpression(at.parent) ? at.parent : undefined;
    const callableSymbol = (sym: TS.Symbol | undefined, where: TS.Node) => {
      if (!sym) return false;
      const target = sym.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(sym) : sym;
      return checker.getTypeOfSymbolAtLocation(target, where).getCallSignatures().length > 0;
    };
    if (access && access.name.getStart(file) >= start - 1) {
      const type = checker.getTypeAtLocation(access.expression);
      for (const name of wanted) if (callableSymbol(checker.getPropertyOfType(checker.getApparentType(type), name), access.expression)) out.add(name);
    } else {
      const inScope = new Map(checker.getSymbolsInScope(at, ts.SymbolFlags.Value | ts.SymbolFlags.Alias).map((sym) => [sym.name, sym]));
      for (const name of wanted) if (callableSymbol(inScope.get(name), at)) out.add(name);
    }
    return out;
  }

  /** The signature and documentation of the symbol at (or just before) a UTF-16 offset. */
  inspect(code: string, offset: number): InspectionResult | null {
    const ts = this.ts;
    this.project.setCell(code + "\nexport {};\n");
    const ls = this.project.ls;
    for (const at of [offset, offset - 1]) {
      if (at < 0 || at > code.length) continue;
      const q = ls.getQuickInfoAtPosition(this.project.cellFile, at);
      // An unknown kind is a name the compiler could not resolve (shown as `any`): nothing to say.
      if (!q || !q.displayParts?.length || q.kind === ts.ScriptElementKind.unknown) continue;
      return {
        signature: ts.displayPartsToString(q.displayParts),
        documentation: ts.displayPartsToString(q.documentation ?? []),
        tags: (q.tags ?? []).map((t) => ({ name: t.name, text: ts.displayPartsToString(t.text ?? []) })),
      };
    }
    return null;
  }
}

function categoryName(ts: typeof TS, c: TS.DiagnosticCategory): DiagnosticCategory {
  switch (c) {
    case ts.DiagnosticCategory.Error: return "error";
    case ts.DiagnosticCategory.Warning: return "warning";
    case ts.DiagnosticCategory.Suggestion: return "suggestion";
    default: return "message";
  }
}
