/**
 * The TypeScript language service through a real kernel: completion of the
 * runtime's API and of what cells declared, positions in code points,
 * inspection with signature and JSDoc, type diagnostics as warnings or (with
 * %typecheck strict) as errors that stop the cell.
 */
import type { KernelClient } from "../../../kernel/transport/client";
import { ofType, stdout } from "../../helpers";
import { kernelForFile, result, stderr } from "../engine_helpers";
import { magicMime } from "../../../magics/mime";

jest.setTimeout(60000);

let k!: KernelClient;
kernelForFile((c) => { k = c; }, { types: true });

async function complete(code: string, cursor = [...code].length) {
  const { reply } = await k.request("complete_request", { code, cursor_pos: cursor });
  expect(reply.content.status).toBe("ok");
  return reply.content as { matches: string[]; cursor_start: number; cursor_end: number; metadata: Record<string, any> };
}

describe("complete_request", () => {
  test("torch.cuda.mem completes to the memory functions, from the runtime's types", async () => {
    const c = await complete("torch.cuda.mem");
    expect(c.matches).toEqual(expect.arrayContaining(["memoryAllocated", "memoryReserved", "memoryStats", "memorySummary"]));
    expect(c.matches.every((m) => m.startsWith("mem"))).toBe(true);
    expect([c.cursor_start, c.cursor_end]).toEqual([11, 14]);
    const types = c.metadata._jupyter_types_experimental as { text: string; type: string }[];
    expect(types.find((t) => t.text === "memoryAllocated")?.type).toBe("function");
  });

  test("completion types are those JupyterLab marks, and a function is a function however it was declared", async () => {
    await k.execute("const reluLike = (x: number) => Math.max(0, x);\nfunction reluDeclared(x: number) { return x; }\nconst reluCount = 3;\n" +
      "const reluBox = { apply: (x: number) => x, size: 2 };");
    const types = async (code: string) => Object.fromEntries(((await complete(code)).metadata._jupyter_types_experimental as { text: string; type: string }[]).map((t) => [t.text, t.type]));
    expect(await types("relu")).toMatchObject({ reluLike: "function", reluDeclared: "function", reluCount: "instance", reluBox: "instance" });
    expect(await types("reluBox.")).toEqual({ apply: "function", size: "instance" });
    // The kernel's own globals and the runtime's API, declared as constants or functions alike.
    expect(await types("displ")).toMatchObject({ display: "function" });
    expect(await types("updateDisp")).toMatchObject({ updateDisplay: "function" });
    const all = Object.values(await types("torch.")).concat(Object.values(await types("%mem")));
    expect(all.length).toBeGreaterThan(20);
    expect(all.filter((t) => !["function", "instance", "class", "module", "keyword"].includes(t))).toEqual([]);
  });

  test("members of an interface declared by an earlier cell", async () => {
    await k.execute("interface Sample { weight: number; width: number; label: string }\nconst sample: Sample = { weight: 1, width: 2, label: 's' };");
    const c = await complete("sample.w");
    expect(c.matches).toEqual(["weight", "width"]);
  });

  test("members of an interface declared earlier in the same multi-line request", async () => {
    const code = "interface Local { alpha: number; beta: string }\nconst loc: Local = { alpha: 1, beta: 'b' };\nloc.";
    const c = await complete(code);
    expect(c.matches).toEqual(["alpha", "beta"]);
    expect(c.cursor_start).toBe([...code].length);
    expect(c.cursor_end).toBe([...code].length);
  });

  test("cursor positions count code points, not UTF-16 units", async () => {
    // Each 😀 is one code point and two UTF-16 units.
    const code = "const smile = '😀😀';\nsmile.len";
    const c = await complete(code);
    expect(c.matches).toEqual(["length"]);
    const cursor = [...code].length;
    expect([c.cursor_start, c.cursor_end]).toEqual([cursor - 3, cursor]);
  });

  test("a cursor in the middle of the code, before other lines", async () => {
    const code = "const first = torch.cuda.memoryAll;\nconst second = 2;";
    const cursor = "const first = torch.cuda.memoryAll".length;
    const c = await complete(code, cursor);
    expect(c.matches).toEqual(["memoryAllocated"]);
    expect([c.cursor_start, c.cursor_end]).toEqual([cursor - "memoryAll".length, cursor]);
  });

  test("values only the runtime knows come from the runtime", async () => {
    await k.execute("(globalThis as any).dynamicThing = { zeta: 1, zebra: 2 };");
    const c = await complete("(globalThis as any).dynamicThing.ze");
    expect(c.matches).toEqual(expect.arrayContaining(["zeta", "zebra"]));
  });
});

describe("inspect_request", () => {
  test("torch.randn: signature and JSDoc as text/plain and text/markdown", async () => {
    const code = "torch.randn([2, 3])";
    const { reply } = await k.request("inspect_request", { code, cursor_pos: "torch.randn".length, detail_level: 0 });
    expect(reply.content.found).toBe(true);
    const plain: string = reply.content.data["text/plain"];
    expect(plain).toMatch(/^randn\(\.\.\.size: RandomSizeAndOptions\): Tensor/);
    expect(plain).toMatch(/normal/i);
    expect(reply.content.data["text/markdown"]).toMatch(/^```typescript\nrandn\(/);
  });

  test("a function a cell declared, with its JSDoc", async () => {
    await k.execute("/** Doubles a number. */\nfunction twice(n: number): number { return 2 * n; }");
    const { reply } = await k.request("inspect_request", { code: "twice(4)", cursor_pos: 3, detail_level: 0 });
    expect(reply.content.data["text/plain"]).toBe("function twice(n: number): number\n\nDoubles a number.");
  });
});

describe("type diagnostics", () => {
  test("by default a warning on stderr with the cell's line, and the cell runs", async () => {
    const { reply, outputs } = await k.execute("console.log('ran');\nconst count: number = 'three';\ncount");
    expect(reply.content.status).toBe("ok");
    expect(stdout(outputs)).toBe("ran\n");
    expect(result(outputs)).toBe("'three'");
    const n = reply.content.execution_count;
    expect(stderr(outputs)).toContain(`warning TS2322 at Cell In[${n}], line 2, column 7: Type 'string' is not assignable to type 'number'.`);
    expect(stderr(outputs)).toContain("const count: number = 'three';");
  });

  test("a correct cell has no warnings; names declared again are no error", async () => {
    const { outputs } = await k.execute("const count = 3;\nlet again = count + 1;\nlet again2 = again;");
    expect(stderr(outputs)).toBe("");
    const second = await k.execute("let again = 'now a string';\nagain.toUpperCase()");
    expect(stderr(second.outputs)).toBe("");
  });

  test("%typecheck strict: a type error stops the cell before it runs", async () => {
    await k.execute("%typecheck strict");
    const { reply, outputs } = await k.execute("console.log('must not run');\nconst wrong: string = 42;");
    expect(reply.content.status).toBe("error");
    expect(reply.content.ename).toBe("TSError");
    expect(reply.content.evalue).toContain("Type 'number' is not assignable to type 'string'. (line 2, column 7)");
    expect(stdout(outputs)).toBe("");
    const fine = await k.execute("const right: string = 'yes';\nright");
    expect(result(fine.outputs)).toBe("'yes'");
    await k.execute("%typecheck on");
  });

  test("%typecheck off: no diagnostics; %typecheck shows the mode; a bad mode is a usage error", async () => {
    await k.execute("%typecheck off");
    const { outputs } = await k.execute("const quiet: number = 'no warning';");
    expect(stderr(outputs)).toBe("");
    const shown = await k.execute("%typecheck");
    expect(ofType(shown.outputs, "display_data")[0].content.data[magicMime("typecheck")].mode).toBe("off");
    // Completion still knows what cells declared with checking off.
    await k.execute("interface Quiet { hushed: boolean }\nconst q1: Quiet = { hushed: true };");
    expect((await complete("q1.hu")).matches).toEqual(["hushed"]);
    const bad = await k.execute("%typecheck loud");
    expect(bad.reply.content.ename).toBe("UsageError");
    expect(bad.reply.content.evalue).toContain("expected one of on, strict, off");
    await k.execute("%typecheck on");
  });

  test("the kernel's globals are typed: display, input, cell, torch", async () => {
    const { outputs } = await k.execute("display.markdown('**x**');\nconst s: AbortSignal = cell.signal;\nconst n: number = torch.cuda.memoryAllocated();\ntypeof input");
    expect(stderr(outputs)).toBe("");
  });
});
