/**
 * Cell semantics through a real kernel: redeclaration of every declaration
 * kind, top-level await, explicit resource management, results, imports of
 * ESM-only, CommonJS and built-in modules, output and errors of async work,
 * tracebacks and syntax errors on the user's lines, the cell's AbortSignal.
 */
import type { KernelClient } from "../../../kernel/transport/client";
import type { Message } from "../../../kernel/protocol/message";
import { ofType, sleep, stdout, streamContaining } from "../../helpers";
import { kernelForFile, result, stderr } from "../engine_helpers";

jest.setTimeout(60000);

let k!: KernelClient;
kernelForFile((c) => { k = c; }, { types: true });

/** Runs a cell that must succeed without type warnings; returns its outputs. */
async function ok(code: string): Promise<Message[]> {
  const { reply, outputs } = await k.execute(code);
  if (reply.content.status !== "ok") throw new Error(`cell failed: ${reply.content.ename}: ${reply.content.evalue}\n${code}`);
  expect(stderr(outputs)).toBe("");
  return outputs;
}

/** iopub messages received so far whose parent is msgId. */
function childrenOf(msgId: string): Message[] {
  return k.iopubLog.filter((m) => (m.parent_header as { msg_id?: string }).msg_id === msgId);
}

// 30 s: output that a loaded machine delays is still waited for (jest gives up at 60 s).
async function until(cond: () => boolean, ms = 30000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(20);
  }
}

describe("declarations persist and may be declared again", () => {
  test.each([
    ["let", "let a1 = 1;", "let a1 = a1Prev() + 1;\nfunction a1Prev() { return 41; }\na1"],
    ["const", "const c1 = 'first';", "const c1 = 'second';\nc1"],
    ["var", "var v1 = 1;", "var v1 = 2;\nv1 * 21"],
    ["function", "function f1() { return 1; }", "function f1(): number { return 42; }\nf1()"],
    ["class", "class K1 { v = 1 }", "class K1 { v = 42 }\nnew K1().v"],
    ["enum", "enum E1 { A, B }", "enum E1 { X = 40, Y }\nE1.Y + 1"],
    ["destructuring", "const { d1, d2: [d3] } = { d1: 1, d2: [2] };", "const { d1, d2: [d3] } = { d1: 40, d2: [2] };\nd1 + d3"],
  ])("%s", async (_kind, first, second) => {
    await ok(first);
    const out = await ok(second);
    expect(result(out)).toMatch(/^('second'|42)$/);
    // Running the same cell again never fails with "already declared".
    expect(result(await ok(second))).toBe(result(out));
  });

  test("import, declared again and used by later cells", async () => {
    await ok('import { join } from "path";');
    await ok('import { join } from "node:path/posix";');
    expect(result(await ok('join("a", "b")'))).toBe("'a/b'");
  });

  test("a declaration is visible to the next cell at run time and to the type checker", async () => {
    await ok("interface Shape { sides: number; name: string }\ntype Named = Pick<Shape, 'name'>;\nconst square: Shape = { sides: 4, name: 'square' };");
    const good = await ok("const tri: Shape = { sides: 3, name: 'tri' };\nconst n: Named = tri;\nsquare.sides + tri.sides");
    expect(result(good)).toBe("7");
    const { reply, outputs } = await k.execute("const bad: Shape = { sides: 'many', name: 'x' };");
    expect(reply.content.status).toBe("ok"); // warnings do not stop the cell
    expect(stderr(outputs)).toMatch(/^warning TS2322 at Cell In\[\d+\], line 1, column \d+: Type 'string' is not assignable to type 'number'/);
  });

  test("an interface declared again replaces the earlier one for the checker", async () => {
    await ok("interface Box1 { a: number }");
    await ok("interface Box1 { b: string }\nconst bx: Box1 = { b: 'x' };");
    const { outputs } = await k.execute("const by: Box1 = { a: 1 };");
    expect(stderr(outputs)).toMatch(/TS2353|TS2322|TS2741/);
  });

  test("a cell that declares nothing, run again, warns again; after a redeclaration it is checked anew", async () => {
    await ok("let label = 'x';");
    const warning = /warning TS\d+ at Cell In\[\d+\], line 1, column 7: Property 'toFixed' does not exist on type 'string'/;
    for (let i = 0; i < 2; i++) {
      const { reply, outputs } = await k.execute("label.toFixed(1)");
      expect(reply.content.status).toBe("error"); // it fails at run time too
      expect(stderr(outputs)).toMatch(warning);
    }
    await ok("let label = 2;");
    expect(result(await ok("label.toFixed(1)"))).toBe("'2.0'");
  });
});

describe("await", () => {
  test("top-level await", async () => {
    const out = await ok("const late = await new Promise<number>((r) => setTimeout(() => r(42), 30));\nlate");
    expect(result(out)).toBe("42");
  });

  test("for await over an async generator", async () => {
    const out = await ok("async function* count(n: number) { for (let i = 0; i < n; i++) { await null; yield i; } }\nlet total = 0;\nfor await (const i of count(5)) total += i;\ntotal");
    expect(result(out)).toBe("10");
  });

  test("the cell ends only when its top-level promise settles", async () => {
    const out = await ok("await new Promise((r) => setTimeout(r, 100));\nconsole.log('after the wait');");
    expect(stdout(out)).toBe("after the wait\n");
  });
});

describe("explicit resource management", () => {
  test("using and await using dispose at the end of the cell, in reverse order", async () => {
    const out = await ok([
      "using first = { [Symbol.dispose]() { console.log('dispose first'); } };",
      "await using second = { async [Symbol.asyncDispose]() { await null; console.log('dispose second'); } };",
      "console.log('body');",
    ].join("\n"));
    expect(stdout(out)).toBe("body\ndispose second\ndispose first\n");
  });
});

describe("results", () => {
  test("the last expression is the execute_result, in util.inspect style", async () => {
    expect(result(await ok("({ a: 1, b: [1, 2] })"))).toBe("{ a: 1, b: [ 1, 2 ] }");
  });

  test("a trailing semicolon suppresses the result", async () => {
    expect(ofType(await ok("40 + 2;"), "execute_result")).toEqual([]);
    expect(result(await ok("40 + 2 // no semicolon, a comment"))).toBe("42");
  });

  test("an object with Symbol.for('Jupyter.mimebundle') gives that bundle", async () => {
    const out = await ok("({ [Symbol.for('Jupyter.mimebundle')]() { return { 'text/html': '<b>rich</b>' }; } })");
    expect(ofType(out, "execute_result")[0].content.data["text/html"]).toBe("<b>rich</b>");
  });
});

describe("modules", () => {
  test("an ESM-only package (exports with only an import condition)", async () => {
    const out = await ok('import { greet, kind } from "esm-only-fixture";\nimport esm from "esm-only-fixture";\n[greet("ts"), kind, esm.kind]');
    expect(result(out)).toBe("[ 'hello, ts!', 'esm', 'esm' ]");
    // Its types reach the next cell.
    const { outputs } = await k.execute("const g: number = greet('x');");
    expect(stderr(outputs)).toMatch(/^warning TS2322 at Cell In\[\d+\], line 1, column 7: Type 'string' is not assignable to type 'number'/);
  });

  test("a CommonJS package: named, default and namespace imports, and require", async () => {
    const out = await ok([
      'import { add } from "cjs-fixture";',
      'import cjs from "cjs-fixture";',
      'import * as cjsNs from "cjs-fixture";',
      'const viaRequire = require("cjs-fixture");',
      "[add(40, 2), cjs.kind, cjsNs.add(1, 1), viaRequire.add(2, 2)]",
    ].join("\n"));
    expect(result(out)).toBe("[ 42, 'cjs', 2, 4 ]");
  });

  test("node built-ins, with and without the node: prefix", async () => {
    const out = await ok('import * as os from "node:os";\nimport fs from "fs";\nimport { createHash } from "crypto";\n[typeof os.cpus, typeof fs.readFileSync, createHash("sha1").update("").digest("hex").length]');
    expect(result(out)).toBe("[ 'function', 'function', 40 ]");
  });

  test('import * as torch from "tsgpu" is the global torch', async () => {
    expect(result(await ok('import * as torch2 from "tsgpu";\ntorch2 === torch'))).toBe("true");
  });

  test("a package that is not installed is a clear error", async () => {
    const { reply } = await k.execute('import { nothing } from "no-such-package-here";');
    expect(reply.content.status).toBe("error");
    expect(reply.content.evalue).toMatch(/no-such-package-here/);
  });
});

describe("async output and errors go to the cell that started them", () => {
  test("a timer's output after its cell returned", async () => {
    const first = await k.execute("setTimeout(() => console.log('late from the first cell'), 300);");
    const second = await k.execute("await new Promise((r) => setTimeout(r, 600));\nconsole.log('second');");
    expect(stdout(second.outputs)).toBe("second\n");
    await until(() => stdout(childrenOf(first.reply.parent_header.msg_id)).includes("late from the first cell"));
  });

  test("an error thrown in a timer", async () => {
    const first = await k.execute("setTimeout(() => { throw new RangeError('timer failed'); }, 200);");
    await k.execute("await new Promise((r) => setTimeout(r, 400));");
    await until(() => ofType(childrenOf(first.reply.parent_header.msg_id), "error").length > 0);
    const [err] = ofType(childrenOf(first.reply.parent_header.msg_id), "error");
    expect(err.content.ename).toBe("RangeError");
    expect(err.content.evalue).toBe("timer failed");
    expect(err.content.traceback.join("\n")).toMatch(/Cell In\[\d+\], line 1/);
    // The kernel is still there.
    expect(result(await ok("1 + 1"))).toBe("2");
  });

  test("an unhandled promise rejection", async () => {
    const first = await k.execute("Promise.reject(new TypeError('nobody caught me'));\n0;");
    await until(() => ofType(childrenOf(first.reply.parent_header.msg_id), "error").length > 0);
    const [err] = ofType(childrenOf(first.reply.parent_header.msg_id), "error");
    expect(err.content.ename).toBe("TypeError");
    expect(err.content.evalue).toBe("nobody caught me");
    expect(result(await ok("2 + 2"))).toBe("4");
  });
});

describe("errors on the user's lines", () => {
  test("a traceback after a multi-line type-only prelude", async () => {
    const code = [
      "interface Point {",
      "  x: number;",
      "  y: number;",
      "}",
      "type Labelled<T> = T & {",
      "  label: string;",
      "};",
      "const p: Labelled<Point> = { x: 1, y: 2, label: 'p' };",
      "function explode(q: Labelled<Point>): never {",
      "  throw new Error(`bad point ${q.label}`);",
      "}",
      "explode(p);",
    ].join("\n");
    const { reply, outputs } = await k.execute(code);
    expect(reply.content.status).toBe("error");
    const tb = ofType(outputs, "error")[0].content.traceback.join("\n");
    const n = reply.content.execution_count;
    expect(tb).toContain(`Cell In[${n}], line 10`);
    expect(tb).toContain("---> 10   throw new Error(`bad point ${q.label}`);");
    expect(tb).toContain(`Cell In[${n}], line 12`);
    expect(tb).not.toMatch(/dist[\\/]kernel|node:internal/);
  });

  test("a traceback shows the user's frames only, innermost last, each once", async () => {
    const { reply } = await k.execute('const q = JSON.parse("{bad");\nconst r = 2;\nq');
    const n = reply.content.execution_count;
    expect(reply.content.traceback).toEqual([
      expect.stringMatching(/^-+\nSyntaxError +Traceback \(most recent call last\)$/),
      `Cell In[${n}], line 1\n----> 1 const q = JSON.parse("{bad");\n      2 const r = 2;\n      3 q`,
      `SyntaxError: ${reply.content.evalue}`,
    ]);
  });

  test("frames through a function of an earlier cell: the caller first, the place that threw last", async () => {
    const first = await k.execute("function failDeep(n: number): number {\n  if (n === 0) throw new RangeError('at the bottom');\n  return failDeep(n - 1);\n}");
    const { reply } = await k.execute("const depth = 2;\nfailDeep(depth);\nconst after = 1;");
    const [m, n] = [first.reply.content.execution_count, reply.content.execution_count];
    const blocks = reply.content.traceback.slice(1, -1).map((b: string) => b.split("\n")[0]);
    // The two recursive calls on line 3 are one place: shown once.
    expect(blocks).toEqual([`Cell In[${n}], line 2`, `Cell In[${m}], line 3`, `Cell In[${m}], line 2`]);
  });

  test("the runtime's own frames are left out: the user's line shows where the bad call is", async () => {
    const { reply } = await k.execute("const shape = [2, -1];\ntorch.zeros(shape);");
    expect(reply.content.evalue).toBe("zeros: Dimension size must be non-negative, got -1 in [2, -1]");
    const tb: string[] = reply.content.traceback;
    expect(tb.slice(1, -1)).toEqual([`Cell In[${reply.content.execution_count}], line 2\n      1 const shape = [2, -1];\n----> 2 torch.zeros(shape);`]);
  });

  test("a cell run again unchanged runs with the state of now, and its errors name the new run", async () => {
    await k.execute("let reruns = 0;");
    const again = "reruns += 1;\nif (reruns === 3) throw new Error(`third run`);\nreruns";
    for (const expected of ["1", "2"]) expect(result((await k.execute(again)).outputs)).toBe(expected);
    const { reply, outputs } = await k.execute(again);
    const n = reply.content.execution_count;
    const tb = ofType(outputs, "error")[0].content.traceback.join("\n");
    expect(tb).toContain(`Cell In[${n}], line 2`);
    expect(tb).toContain("---> 2 if (reruns === 3) throw new Error(`third run`);");
    expect(result((await k.execute(again)).outputs)).toBe("4");
    // The same text with a trailing `;` shows no result: it is a different cell.
    expect(result((await k.execute(again + ";")).outputs)).toBeUndefined();
  });

  test("a syntax error names line and column, and nothing of the cell runs", async () => {
    const { reply, outputs } = await k.execute("console.log('must not print');\nconst ok1 = 1;\nconst broken = (1 + ;");
    expect(reply.content.status).toBe("error");
    expect(reply.content.ename).toBe("SyntaxError");
    expect(reply.content.evalue).toMatch(/line 3, column \d+/);
    expect(stdout(outputs)).toBe("");
    const tb = ofType(outputs, "error")[0].content.traceback.join("\n");
    expect(tb).toContain("const broken = (1 + ;");
  });

  test("the error's name and message are ename and evalue", async () => {
    const { reply } = await k.execute("class MyError extends Error { name = 'MyError' }\nthrow new MyError('custom failure');");
    expect(reply.content.ename).toBe("MyError");
    expect(reply.content.evalue).toBe("custom failure");
  });
});

describe("the cell's AbortSignal", () => {
  test("cell.signal fires when the cell is interrupted", async () => {
    const from = k.iopubLog.length;
    const running = k.execute([
      "console.log(cell.signal.aborted);",
      "await new Promise<void>((resolve) => cell.signal.addEventListener('abort', () => { console.log('aborted'); resolve(); }));",
    ].join("\n"));
    await streamContaining(k, "false\n", from); // interrupted once it waits, not while it is still being compiled
    await k.request("interrupt_request", {}, "control");
    const { outputs } = await running;
    await until(() => stdout(k.iopubLog.filter((m) => m.header.msg_type === "stream")).includes("aborted\n"));
    expect(stdout(outputs)).toMatch(/^false\n/);
    expect(result(await ok("cell.signal.aborted"))).toBe("false");
  });
});
