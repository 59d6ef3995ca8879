/**
 * One test per way a notebook keeps GPU memory alive (the leaks behind the
 * usual "memory will not come back" reports): a variable, the output
 * history, a kept error, an interrupted cell, a closure in a timer, and a
 * tensor nothing references that the collector has not reached yet. Each:
 * the memory is held before the remedy, `%memory --tensors` names what holds
 * it, and after the remedy allocated memory is back where it was.
 */
import { KernelClient } from "../../kernel/transport/client";
import { startKernel, streamContaining } from "../helpers";
import { allocated, holders, ok } from "./magic_helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(60000);

const MiB = 2 ** 20;

describe("leak paths: held, named, then freed", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("a variable: the holder is its path; %xdel frees it", async () => {
    const base = await allocated(k);
    await ok(k, 'const model = { layers: [0, 1, 2, 3].map((i) => ({ weight: torch.zeros([256 * 1024], { device: "cpu" }) })) };');
    expect(await allocated(k)).toBe(base + 4 * MiB);
    const h = await holders(k);
    expect(h.holders.find((g) => g.label === "model.layers[3].weight")).toMatchObject({ kind: "variable", bytes: MiB, tensors: 1 });
    const freed = (await ok(k, "%xdel model")).find((m) => m.header.msg_type === "display_data")!.content.data[magicMime("xdel")];
    expect(freed).toMatchObject({ freed_tensors: 4, freed_bytes: 4 * MiB });
    expect(await allocated(k)).toBe(base);
  });

  test("the output history: Out[N] holds a result; %reset -f out frees it", async () => {
    const base = await allocated(k);
    const { reply } = await k.execute('torch.ones([512 * 1024], { device: "cpu" })');
    const n = reply.content.execution_count;
    expect(await allocated(k)).toBe(base + 2 * MiB);
    const h = await holders(k);
    expect(h.holders.find((g) => g.label === `Out[${n}]`)).toMatchObject({ kind: "output", bytes: 2 * MiB, cell: n });
    const text = (await ok(k, "%reset -f out")).find((m) => m.header.msg_type === "display_data")!.content.data["text/plain"];
    expect(text).toContain(`Out[${n}]`);
    expect(text).toContain("Freed 2.00 MiB in 1 tensor; ");
    expect(await allocated(k)).toBe(base);
  });

  test("a kept error: the error of cell N holds a tensor; %reset -f frees it", async () => {
    const base = await allocated(k);
    const { reply } = await k.execute('class ShapeError extends Error { constructor(readonly input: unknown) { super("bad shape"); } }\nthrow new ShapeError(torch.zeros([256 * 1024], { device: "cpu" }));');
    expect(reply.content.status).toBe("error");
    const n = reply.content.execution_count;
    expect(await allocated(k)).toBe(base + MiB);
    const h = await holders(k);
    expect(h.holders.find((g) => g.label === `the kept error of cell ${n} (.input)`)).toMatchObject({ kind: "error", bytes: MiB, cell: n });
    const json = (await ok(k, "%reset -f")).find((m) => m.header.msg_type === "display_data")!.content.data[magicMime("reset")];
    expect(json.kept_error_cleared).toBe(true);
    expect(await allocated(k)).toBe(base);
  });

  test("an interrupted cell: its suspended frames hold a local; %reset -f frees it", async () => {
    const base = await allocated(k);
    const from = k.iopubLog.length;
    const running = k.execute('async function work() {\n  const local = torch.zeros([256 * 1024], { device: "cpu" });\n  console.log("waiting");\n  await new Promise((r) => setTimeout(r, 600000));\n  return local.numel;\n}\nawait work();');
    await streamContaining(k, "waiting", from); // interrupted at its await, not while it is still being compiled
    await k.request("interrupt_request", {}, "control");
    const { reply } = await running;
    expect(reply.content.ename).toBe("InterruptError");
    const n = reply.content.execution_count;
    expect(await allocated(k)).toBe(base + MiB);
    const h = await holders(k);
    const g = h.holders.find((x) => x.kind === "frames")!;
    // Locals kept across an await live in the function's register file, which has no names.
    expect(g.label).toContain("the frames of `work` (Cell In[" + n + "], line 1), suspended at an await");
    expect(g.label).toContain(`interrupted cell ${n} (a pending timer keeps it waiting)`);
    expect(g.bytes).toBe(MiB);
    const json = (await ok(k, "%reset -f")).find((m) => m.header.msg_type === "display_data")!.content.data[magicMime("reset")];
    expect(json.timers_stopped).toBe(1);
    expect(await allocated(k)).toBe(base);
  });

  test("a closure in a timer: the callback's captured variable is named; %reset -f stops the timer and frees it", async () => {
    const base = await allocated(k);
    const { reply } = await k.execute('function startLogging() {\n  const weights = torch.zeros([256 * 1024], { device: "cpu" });\n  setInterval(() => weights.numel, 600000);\n}\nstartLogging();');
    const n = reply.content.execution_count;
    expect(await allocated(k)).toBe(base + MiB);
    const h = await holders(k);
    const g = h.holders.find((x) => x.kind === "timer");
    if (!g) throw new Error(JSON.stringify(h.holders));
    expect(g.label).toBe(`\`weights\`, captured by an anonymous function (Cell In[${n}], line 3), the callback of a timer started in cell ${n}`);
    expect(g.bytes).toBe(MiB);
    await ok(k, "%reset -f");
    expect(await allocated(k)).toBe(base);
  });

  test("unreachable but not yet collected: named as such; the view's heap snapshot collects it and %empty_cache returns the cache", async () => {
    await ok(k, "%empty_cache");
    const base = await allocated(k);
    // Survives minor collections (so it sits in the old generation, where only a major collection frees it)…
    await ok(k, 'const box = [torch.zeros([256 * 1024], { device: "cpu" })];\nfor (let i = 0; i < 300000; i++) new Array(8);');
    expect(await allocated(k)).toBe(base + MiB);
    // …then loses its last reference in a small cell: still live (listed, with its bytes) when the view looks.
    await ok(k, "box.pop();");
    const h = await holders(k);
    expect(h.holders.find((x) => x.kind === "unreachable") ?? h.holders).toMatchObject({ label: "unreachable, waiting for garbage collection", bytes: MiB });
    expect(await allocated(k)).toBe(base);
    const json = (await ok(k, "%empty_cache")).find((m) => m.header.msg_type === "display_data")!.content.data[magicMime("empty_cache")];
    const cpu = json.devices.find((d: any) => d.device === "cpu");
    expect(cpu.allocated).toBe(base);
    expect(cpu.released_bytes).toBeGreaterThan(0);
  });
});
