/**
 * The main thread's memory of diagnostics: a cell run again, with nothing
 * changed in between that its diagnostics depend on, is answered without a
 * message to the checker thread, with what the checker said before. A commit
 * that changes the prelude, a cell that imports and %reset make the main
 * thread ask again. Driven on TypeChecker with its real thread.
 */
import { TypeChecker } from "../../../kernel/language/checker";
import type { CellDiagnostic } from "../../../kernel/language/cell_language";
import { notebookFolder } from "../engine_helpers";

jest.setTimeout(90000);

let folder: ReturnType<typeof notebookFolder>;
let checker: TypeChecker;
let posted: { kind: string }[] = [];

beforeAll(async () => {
  folder = notebookFolder();
  checker = new TypeChecker();
  checker.mode = "on";
  checker.start(folder.dir);
  expect(await checker.whenReady(80000)).toBe(true);
  // Watch what goes to the checker (a thread, or a process started from its snapshot).
  const channel = (checker as unknown as { channel: { post(m: { kind: string }): void } }).channel;
  const original = channel.post.bind(channel);
  channel.post = (m) => { posted.push(m); original(m); };
});
afterAll(async () => {
  await checker.stop();
  folder.remove();
});

/** Analyzes and commits a cell as the engine does; returns its messages and what went to the thread. */
async function run(code: string): Promise<{ messages: string[]; sent: string[] }> {
  posted = [];
  const check = checker.analyze(code);
  checker.commit(check.seq);
  const diags: CellDiagnostic[] = await check.diagnostics;
  expect(await checker.settled(20000)).toBe(true);
  return { messages: diags.map((d) => `${d.line}:${d.column} ${d.message}`), sent: posted.map((m) => m.kind) };
}

test("a cell run again is answered on the main thread with the same diagnostics", async () => {
  await run("let word = 'a';");
  const first = await run("word.toFixed(2)");
  expect(first.sent).toEqual(["analyze"]); // it declares nothing: there is nothing to commit
  expect(first.messages.join("\n")).toMatch(/toFixed.*does not exist on type 'string'/);
  const again = await run("word.toFixed(2)");
  expect(again.sent).toEqual([]);
  expect(again.messages).toEqual(first.messages);
});

test("arithmetic on number literals never reaches the checker", async () => {
  const r = await run("(2 + 3) * 4");
  expect(r).toEqual({ messages: [], sent: [] });
});

test("a cell that declares is asked again until its declarations stop changing anything, then answered here", async () => {
  const cell = "interface Pair { a: number; b: number }\nfunction sum(p: Pair): number { return p.a + p.b; }\nconst pair: Pair = { a: 1, b: '2' };";
  const first = await run(cell);
  expect(first.messages.join("\n")).toMatch(/Type 'string' is not assignable to type 'number'/);
  expect((await run(cell)).sent).toEqual(["analyze", "commit"]); // its first commit changed the prelude
  const third = await run(cell);
  expect(third.sent).toEqual([]);
  expect(third.messages).toEqual(first.messages);
});

test("a changed declaration makes other cells be asked again", async () => {
  await run("let count = 'x';");
  const before = await run("count.toFixed(2)");
  expect(before.messages).toHaveLength(1);
  expect((await run("count.toFixed(2)")).sent).toEqual([]);
  const redeclare = await run("let count = 3;");
  expect(redeclare.sent).toEqual(["analyze", "commit"]);
  const after = await run("count.toFixed(2)");
  expect(after.sent).toEqual(["analyze"]);
  expect(after.messages).toEqual([]);
});

test("a type-only declaration counts as a declaration", async () => {
  await run("interface Shape { w: number }\nconst unit: Shape = { w: 1 };");
  const read = await run("unit.w.toFixed(1)");
  expect(read.messages).toEqual([]);
  expect((await run("unit.w.toFixed(1)")).sent).toEqual([]);
  await run("interface Shape { w: string }");
  const after = await run("unit.w.toFixed(1)");
  expect(after.sent).toEqual(["analyze"]);
});

test("a cell that imports is always asked, and makes others be asked again; so does %reset", async () => {
  await run("Math.abs(-1)");
  expect((await run("Math.abs(-1)")).sent).toEqual([]);
  const imp = "import { readFileSync } from 'fs';";
  await run(imp);
  await run(imp);
  expect((await run(imp)).sent).toEqual(["analyze", "commit"]);
  expect((await run("Math.abs(-1)")).sent).toEqual(["analyze"]);
  expect((await run("Math.abs(-1)")).sent).toEqual([]);
  checker.reset();
  expect((await run("Math.abs(-1)")).sent).toEqual(["analyze"]);
});

test("a cell handed over before the previous one was answered sees its declarations (the held commit goes first)", async () => {
  posted = [];
  const first = checker.analyze("let early = 'x';");
  checker.commit(first.seq); // the checker has not answered yet: this commit is held
  const second = checker.analyze("early.toFixed(1)");
  checker.commit(second.seq);
  const [, diagnostics] = await Promise.all([first.diagnostics, second.diagnostics]);
  expect(await checker.settled(20000)).toBe(true);
  expect(posted.map((m) => m.kind)).toEqual(["analyze", "commit", "analyze"]);
  expect(diagnostics.map((d) => d.message).join("\n")).toMatch(/toFixed.*does not exist on type 'string'/);
});
