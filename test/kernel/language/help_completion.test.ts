/**
 * Help lines and completion through a real kernel: `?name` shows what
 * Shift-Tab shows, `??name` adds the source, `%magic?` the magic's help;
 * completion of magic names and options, and matching by camelCase
 * abbreviation and substring; the runtime's namespace holds public names.
 */
import type { KernelClient } from "../../../kernel/transport/client";
import { kernelForFile, result } from "../engine_helpers";

jest.setTimeout(60000);

let k!: KernelClient;
kernelForFile((c) => { k = c; }, { types: true });

/** The pager page a help line answers with. */
async function page(code: string): Promise<Record<string, string>> {
  const { reply } = await k.execute(code);
  expect(reply.content.status).toBe("ok");
  expect(reply.content.payload).toHaveLength(1);
  expect(reply.content.payload[0]).toMatchObject({ source: "page", start: 0 });
  return reply.content.payload[0].data;
}

/** What Shift-Tab shows for the name that ends at the end of code. */
async function shiftTab(code: string): Promise<Record<string, string>> {
  const { reply } = await k.request("inspect_request", { code, cursor_pos: [...code].length, detail_level: 0 });
  expect(reply.content.found).toBe(true);
  return reply.content.data;
}

async function complete(code: string, cursor = [...code].length) {
  const { reply } = await k.request("complete_request", { code, cursor_pos: cursor });
  expect(reply.content.status).toBe("ok");
  return reply.content as { matches: string[]; cursor_start: number; cursor_end: number };
}

describe("help lines", () => {
  test.each(["?torch.randn", "torch.randn?", "%pinfo torch.randn"])("%s shows the typed signature and JSDoc, as Shift-Tab does", async (code) => {
    const data = await page(code);
    expect(data["text/plain"]).toMatch(/^function randn\(\.\.\.size: RandomSizeAndOptions\): Tensor\n\n.*normal/i);
    expect(data).toEqual(await shiftTab("torch.randn"));
  });

  test("?name of a cell's function: its declared types and JSDoc", async () => {
    await k.execute("/** Scales a length. */\nfunction scaled(length: number, factor = 2): number {\n  return length * factor;\n}");
    expect((await page("?scaled"))["text/plain"]).toBe("function scaled(length: number, factor?: number): number\n\nScales a length.");
  });

  test("??name of a cell's function shows the TypeScript the cell holds, and where", async () => {
    const { reply } = await k.execute("const before = 1;\n/** Adds one. */\nfunction plusOne(n: number): number {\n  return n + 1;\n}");
    const text = (await page("plusOne??"))["text/plain"];
    expect(text).toBe(`function plusOne(n: number): number\n\nAdds one.\n\nSource (Cell In[${reply.content.execution_count}], line 3):\n`
      + "function plusOne(n: number): number {\n  return n + 1;\n}");
  });

  test("??obj.method: a method of a class a cell declared", async () => {
    await k.execute("class Counter {\n  count = 0;\n  /** Adds to the count. */\n  bump(by: number): number {\n    return this.count += by;\n  }\n}\nconst counter = new Counter();");
    const text = (await page("??counter.bump"))["text/plain"];
    expect(text).toMatch(/^\(method\) Counter\.bump\(by: number\): number\n\nAdds to the count\./);
    expect(text).toContain(":\n  bump(by: number): number {\n    return this.count += by;\n  }");
  });

  test("??torch.randn shows the runtime's TypeScript source through its source map", async () => {
    const text = (await page("??torch.randn"))["text/plain"];
    expect(text).toMatch(/\n\nSource \(\/.*\.ts:\d+\):\nexport function randn\(\.\.\.size: RandomSizeAndOptions\): Tensor \{\n/);
  });

  test("??name of a built-in shows what ?name shows: there is no source", async () => {
    expect(await page("??Math.max")).toEqual(await page("?Math.max"));
  });

  test.each(["%memory?", "?%memory", "%pinfo %memory", "??%memory"])("%s shows the magic's help", async (code) => {
    const text = (await page(code))["text/plain"];
    expect(text).toMatch(/^%memory /);
    expect(text).toContain("--summary");
  });

  test("Shift-Tab on a magic line shows the same help", async () => {
    const code = "const a = 1;\n%memory --summary";
    const { reply } = await k.request("inspect_request", { code, cursor_pos: "const a = 1;\n%mem".length, detail_level: 0 });
    expect(reply.content.found).toBe(true);
    expect(reply.content.data).toEqual(await page("%memory?"));
  });

  test("help on a magic that does not exist says so", async () => {
    expect((await page("?%nosuchmagic"))["text/plain"]).toBe("Object `%nosuchmagic` not found.");
  });
});

describe("completion", () => {
  test("%mem completes to the magic's name, at the start of any line", async () => {
    expect(await complete("%mem")).toEqual(expect.objectContaining({ matches: ["%memory"], cursor_start: 0, cursor_end: 4 }));
    const code = "const a = 1;\n  %empty";
    expect(await complete(code)).toEqual(expect.objectContaining({ matches: ["%empty_cache"], cursor_start: 15, cursor_end: 21 }));
    expect((await complete("%")).matches).toEqual(expect.arrayContaining(["%memory", "%reset", "%empty_cache", "%typecheck", "%lsmagic"]));
  });

  test("%memory --<Tab> offers the magic's options; a typed option narrows them", async () => {
    const all = await complete("%memory --");
    expect(all.matches).toEqual(expect.arrayContaining(["--summary", "--where", "--history", "--abbreviated"]));
    expect(all.matches.every((m) => m.startsWith("--"))).toBe(true);
    expect([all.cursor_start, all.cursor_end]).toEqual([8, 10]);
    expect((await complete("%memory cpu --su")).matches).toEqual(["--summary"]);
    expect((await complete("%reset -")).matches).toEqual(["-f"]);
  });

  test("torch.cuda.memS offers memoryStats and memorySummary (camelCase abbreviation)", async () => {
    const c = await complete("torch.cuda.memS");
    expect(c.matches).toEqual(["memoryStats", "memorySummary"]);
    expect([c.cursor_start, c.cursor_end]).toEqual([11, 15]);
  });

  test("prefix matches come alone; else abbreviations from a later word and substrings", async () => {
    expect((await complete("torch.cuda.memoryS")).matches).toEqual(["memoryStats", "memorySummary"]);
    expect((await complete("torch.cuda.Stats")).matches).toEqual(expect.arrayContaining(["memoryStats", "resetPeakMemoryStats"]));
    expect((await complete("torch.cuda.Stats")).matches[0]).toBe("memoryStats");
  });

  test("values only the runtime knows are matched the same way", async () => {
    await k.execute("(globalThis as any).runtimeOnly = { alphaBeta: 1, gammaDelta: 2 };");
    expect((await complete("(globalThis as any).runtimeOnly.aB")).matches).toEqual(["alphaBeta"]);
  });

  test("the runtime's namespace holds public names only: no codedError", async () => {
    expect((await complete("torch.")).matches).not.toContain("codedError");
    expect((await complete("torch.co")).matches).not.toContain("codedError");
    const { outputs } = await k.execute("Object.keys(torch).includes('codedError')");
    expect(result(outputs)).toBe("false");
  });
});
