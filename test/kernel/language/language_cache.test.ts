/**
 * Cells run again: the checker answers a cell it analyzed before, with no
 * change to what earlier cells declared in between, without building a new
 * program, and with exactly what a fresh analysis finds. Driven directly on
 * CellLanguage (the checker thread's object), so the program can be watched.
 */
import { mkdirSync, writeFileSync } from "fs";
import { join } from "path";
import { CellDiagnostic } from "../../../kernel/language/cell_language";
import { cellLanguageForFile } from "../engine_helpers";

jest.setTimeout(60000);

const fixture = cellLanguageForFile();
let seq = 0;


/** Analyzes a cell with diagnostics, runs it (commit) and returns its diagnostics and whether a new program was built. */
function run(code: string): { diagnostics: CellDiagnostic[]; newProgram: boolean } {
  const before = fixture.language().project.ls.getProgram();
  const s = ++seq;
  const diagnostics = fixture.language().analyze(code, s, true);
  const newProgram = fixture.language().project.ls.getProgram() !== before;
  fixture.language().prepare();
  fixture.language().commit(s);
  return { diagnostics, newProgram };
}

const messages = (d: CellDiagnostic[]) => d.map((x) => `${x.line}:${x.column} ${x.message}`);

test("a cell run again is answered without a new program, with the same diagnostics", () => {
  const code = "const wrongOnce: number = 'x';\n1 + 1";
  const first = run(code);
  expect(first.newProgram).toBe(true);
  expect(messages(first.diagnostics)).toEqual(["1:7 Type 'string' is not assignable to type 'number'."]);
  // The first run declared wrongOnce: the prelude changed, so the second run is analyzed again.
  const second = run(code);
  expect(messages(second.diagnostics)).toEqual(messages(first.diagnostics));
  const third = run(code);
  expect(third.newProgram).toBe(false);
  expect(messages(third.diagnostics)).toEqual(messages(first.diagnostics));
});

test("a cell that declares nothing is answered from memory from its second run on", () => {
  run("let total = 0;");
  expect(run("total + 1").newProgram).toBe(true);
  for (let i = 0; i < 3; i++) {
    const again = run("total + 1");
    expect(again.newProgram).toBe(false);
    expect(again.diagnostics).toEqual([]);
  }
});

test("what is remembered is dropped when an earlier declaration changes", () => {
  run("let shape: number = 1;");
  const use = "shape.toFixed(1)";
  expect(run(use).diagnostics).toEqual([]);
  expect(run(use).newProgram).toBe(false);
  run("let shape = 'now text';");
  const after = run(use);
  expect(after.newProgram).toBe(true);
  expect(messages(after.diagnostics)).toHaveLength(1);
  expect(messages(after.diagnostics)[0]).toContain("1:7 Property 'toFixed' does not exist on type 'string'.");
});

test("declarations of a remembered cell still reach later cells", () => {
  const decl = "interface Point3 { x: number; y: number; z: number }\nfunction norm3(p: Point3): number { return Math.hypot(p.x, p.y, p.z); }";
  run(decl);
  run(decl);
  expect(run(decl).newProgram).toBe(false);
  expect(run("norm3({ x: 1, y: 2, z: 3 })").diagnostics).toEqual([]);
  expect(messages(run("norm3({ x: 1, y: 2 })").diagnostics)).toEqual([
    "1:7 Argument of type '{ x: number; y: number; }' is not assignable to parameter of type 'Point3'.\n  Property 'z' is missing in type '{ x: number; y: number; }' but required in type 'Point3'.",
  ]);
});

test("cells that import are always analyzed again (what they see depends on the file system)", () => {
  const code = "import { later } from 'installed-later';\nlater(1)";
  expect(messages(run(code).diagnostics).join()).toContain("Cannot find module 'installed-later'");
  const pkg = join(fixture.dir(), "node_modules", "installed-later");
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "installed-later", version: "1.0.0", types: "index.d.ts", main: "index.js" }));
  writeFileSync(join(pkg, "index.d.ts"), "export declare function later(n: number): number;\n");
  writeFileSync(join(pkg, "index.js"), "exports.later = (n) => n;\n");
  expect(run(code).diagnostics).toEqual([]);
});

test("with checking off (no diagnostics asked), a remembered cell still gives its declarations", () => {
  const decl = "const offDecl = { a: 1 };";
  run(decl);
  run(decl);
  const s = ++seq;
  const before = fixture.language().project.ls.getProgram();
  expect(fixture.language().analyze(decl, s, false)).toEqual([]);
  expect(fixture.language().project.ls.getProgram()).toBe(before);
  fixture.language().prepare();
  fixture.language().commit(s);
  expect(run("offDecl.a.toFixed()").diagnostics).toEqual([]);
});
