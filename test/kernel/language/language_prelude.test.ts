/**
 * The prelude (what earlier cells declared, as global declarations) on its
 * own: which names a cell declares, declaration output turned into global
 * statements, redeclared names replacing earlier ones, chunks.
 */
import * as ts from "typescript";
import { cellNames, declarationsFromDts, Prelude } from "../../../kernel/language/prelude";

function parse(code: string): ts.SourceFile {
  return ts.createSourceFile("cell.ts", code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

describe("cellNames", () => {
  test("every top-level declaration kind, destructuring included; imports apart; using and exported names left out", () => {
    const names = cellNames(ts, parse([
      "let a = 1; const { b, c: [d] } = { b: 1, c: [2] }; var e;",
      "function f() {} class G {} interface H {} type I = 1; enum J { X } namespace K {}",
      "import { L, M as N } from 'm'; import O from 'o'; import * as P from 'p'; import Q = require('q');",
      "using r = null as any; export const s = 1; const t = 2; export { t };",
      "declare global { interface Window2 {} }",
    ].join("\n")));
    expect(names.exportable.sort()).toEqual(["G", "H", "I", "J", "K", "a", "b", "d", "e", "f"].sort());
    expect(names.imported.sort()).toEqual(["L", "N", "O", "P", "Q"].sort());
  });
});

describe("declarationsFromDts", () => {
  test("statements lose export/declare but keep other modifiers and their doc comments; variables are split", () => {
    const decls = declarationsFromDts(ts, [
      "import { X } from 'x';",
      "/** The count. */",
      "export declare const a: number, b: string;",
      "export declare abstract class C { m(): void; }",
      "export default function d(): void;",
      "declare global { interface Extra { e: 1 } }",
      "export { a };",
    ].join("\n"));
    expect(decls.map((d) => d.names)).toEqual([["a"], ["b"], ["C"], ["d"], ["Extra"]]);
    expect(decls[0].text).toBe("/** The count. */\nconst a: number;");
    expect(decls[2].text).toBe("abstract class C { m(): void; }");
    expect(decls[3].text).toBe("function d(): void;");
  });
});

describe("Prelude", () => {
  const decl = (name: string, text = `const ${name}: number;`) => ({ names: [name], text });

  test("a name declared again drops the earlier declaration; other names stay", () => {
    const p = new Prelude();
    p.add({ seq: 1, imports: ["import * as __i1_0 from \"m\";"], declarations: [decl("x"), decl("y")] });
    p.add({ seq: 2, imports: [], declarations: [decl("x", "const x: string;")] });
    const [chunk] = p.takeChanged();
    expect(chunk.text).toContain("const y: number;");
    expect(chunk.text).toContain("const x: string;");
    expect(chunk.text).not.toContain("const x: number;");
    expect(chunk.text).toMatch(/^import \* as __i1_0 from "m";\ndeclare global \{/);
    expect(p.has("x") && p.has("y")).toBe(true);
  });

  test("a cell whose every name was declared again disappears with its imports", () => {
    const p = new Prelude();
    p.add({ seq: 1, imports: ["import * as __i1_0 from \"m\";"], declarations: [decl("x")] });
    p.add({ seq: 2, imports: [], declarations: [decl("x")] });
    expect(p.takeChanged()[0].text).not.toContain("__i1_0");
  });

  test("chunks: a new one once the last is full; only changed chunks are given back", () => {
    const p = new Prelude();
    const big = "/* " + "x".repeat(9000) + " */ const big: number;";
    p.add({ seq: 1, imports: [], declarations: [decl("big", big)] });
    p.takeChanged();
    p.add({ seq: 2, imports: [], declarations: [decl("small")] });
    const changed = p.takeChanged();
    expect(changed.map((c) => c.index)).toEqual([1]);
    p.add({ seq: 3, imports: [], declarations: [decl("big")] });
    expect(p.takeChanged().map((c) => c.index)).toEqual([0, 1]);
    p.clear();
    expect(p.has("big") || p.has("small")).toBe(false);
  });
});
