/** %memory, %reset and %empty_cache through a real kernel, on the CPU device. */
import { KernelClient } from "../../kernel/transport/client";
import { ofType, startKernel, stdout } from "../helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(60000);

/** The data of the one display_data a magic showed, under the type named after the magic. */
function json(outputs: any[], magic: string): any {
  const d = ofType(outputs, "display_data");
  expect(d).toHaveLength(1);
  return d[0].content.data[magicMime(magic)];
}

function cpu(mem: any): any {
  return mem.devices.find((d: any) => d.device === "cpu");
}

describe("magics", () => {
  let k: KernelClient;
  beforeEach(async () => { k = await startKernel(); });
  afterEach(async () => { await k.shutdown(); });

  test("%memory shows a table, text and PyTorch-named statistics", async () => {
    await k.execute('const a = torch.randn([1000, 1000], { device: "cpu" });\nconst b = torch.zeros([100], { device: "cpu" });');
    const { reply, outputs } = await k.execute("%memory");
    expect(reply.content.status).toBe("ok");
    const [d] = ofType(outputs, "display_data");
    expect(d.content.data["text/html"]).toContain("<table");
    expect(d.content.data["text/plain"]).toContain("cpu");
    const mem = cpu(d.content.data[magicMime("memory")]);
    expect(mem.allocated).toBe(4000256 + 512);
    expect(mem.stats["allocation.all.current"]).toBe(2);
    expect(mem.stats["allocation.small_pool.current"]).toBe(1);
    expect(mem.stats["allocation.large_pool.current"]).toBe(1);
    expect(mem.stats["segment.all.current"]).toBe(2);
    expect(mem.reserved).toBe(20 * 2 ** 20 + 2 * 2 ** 20);
    expect(d.content.data[magicMime("memory")].tensors.map((t: any) => t.shape)).toEqual(expect.arrayContaining([[1000, 1000], [100]]));
  });

  test("%memory --summary shows PyTorch's table layout", async () => {
    await k.execute('const a = torch.randn([1000, 1000], { device: "cpu" });');
    const { outputs } = await k.execute("%memory --summary");
    const text: string = ofType(outputs, "display_data")[0].content.data["text/plain"];
    const lines = text.split("\n").filter(Boolean);
    expect(lines.every((l) => l.length === 77)).toBe(true);
    expect(text).toContain("| Allocated memory      |");
  });

  test("%reset -f drops variables and output history, and frees their tensors", async () => {
    await k.execute('const x = torch.randn([1000, 1000], { device: "cpu" });');
    // A result kept in the output history holds its tensor too, as IPython's Out does.
    await k.execute('torch.ones([500, 500], { device: "cpu" })');
    const before = cpu(json((await k.execute("%memory")).outputs, "memory"));
    expect(before.allocated).toBe(4000256 + 1000448);
    const { reply, outputs } = await k.execute("%reset -f");
    expect(reply.content.status).toBe("ok");
    const report = json(outputs, "reset");
    expect(report.dropped).toContain("x");
    const dev = report.devices.find((d: any) => d.device === "cpu");
    expect(dev.freed).toBe(4000256 + 1000448);
    expect(dev.after).toBe(0);
    const after = await k.execute("typeof x");
    expect(ofType(after.outputs, "execute_result")[0].content.data["text/plain"]).toBe("'undefined'");
    // The kernel keeps working, and names can be declared again.
    const again = await k.execute("const x = 5; x");
    expect(ofType(again.outputs, "execute_result")[0].content.data["text/plain"]).toBe("5");
  });

  test("%reset -f does not list a const whose cell threw before assigning it", async () => {
    await k.execute("const kept = 1;");
    await k.execute('const boom = (() => { throw new Error("no"); })();');
    const report = json((await k.execute("%reset -f")).outputs, "reset");
    expect(report.dropped).toContain("kept");
    expect(report.dropped).not.toContain("boom");
  });

  test("after %reset -f the names it removed are undeclared, as names never declared are", async () => {
    await k.execute("let y = 5;\nfunction fy() { return 1; }\nclass Cy {}\nenum Ey { A }\nconst display = 'a cell shadows a kernel global';");
    expect((await k.execute("%reset -f")).reply.content.status).toBe("ok");
    const value = async (code: string) => ofType((await k.execute(code)).outputs, "execute_result")[0]?.content.data["text/plain"];
    expect(await value("typeof y")).toBe("'undefined'");
    expect(await value("[typeof fy, typeof Cy, typeof Ey, 'y' in globalThis]")).toBe("[ 'undefined', 'undefined', 'undefined', false ]");
    for (const name of ["y", "fy", "Cy", "Ey", "neverDeclared"]) {
      const used = await k.execute(`${name};`);
      expect(used.reply.content.ename).toBe("ReferenceError");
      expect(used.reply.content.evalue).toBe(`${name} is not defined`);
    }
    // A kernel global that a cell declared again is back as it was.
    expect(await value("typeof display")).toBe("'function'");
    expect(await value("let y = 'declared again';\ny")).toBe("'declared again'");
  });

  test("%reset without -f asks on stdin, and does nothing when it cannot ask", async () => {
    await k.execute("const kept = 1;");
    const noStdin = await k.execute("%reset", { allow_stdin: false });
    expect(stdout(noStdin.outputs)).toContain("Nothing done");
    k.onStdinRequest = () => "n";
    const no = await k.execute("%reset");
    expect(stdout(no.outputs)).toContain("Nothing done.");
    k.onStdinRequest = () => "y";
    const yes = await k.execute("%reset");
    expect(json(yes.outputs, "reset").dropped).toContain("kept");
    k.onStdinRequest = undefined;
  });

  test("%empty_cache releases cached segments and says what it kept and why", async () => {
    await k.execute('const keep = torch.randn([1000, 1000], { device: "cpu" });\nconst tmp = torch.randn([5000, 1000], { device: "cpu" });\ntmp.dispose();');
    const { outputs } = await k.execute("%empty_cache");
    const r = json(outputs, "empty_cache").devices.find((d: any) => d.device === "cpu");
    expect(r.released_bytes).toBe(20 * 2 ** 20); // 20,000,000 bytes: a segment of its own, rounded to 2 MiB
    expect(r.reserved_after).toBe(20 * 2 ** 20);
    expect(r.kept_segments).toBe(1);
    expect(r.reason).not.toBe("");
    expect(ofType(outputs, "display_data")[0].content.data["text/plain"]).toContain("cpu");
  });

  test("an unknown magic or option is a clear error and the kernel keeps its state", async () => {
    await k.execute("const survivor = 42;");
    const unknown = await k.execute("%memroy");
    expect(unknown.reply.content.ename).toBe("UsageError");
    expect(unknown.reply.content.evalue).toContain("%memory");
    const badOpt = await k.execute("%memory --bogus");
    expect(badOpt.reply.content.evalue).toContain("unknown option --bogus");
    const badDev = await k.execute("%empty_cache cuda:7");
    expect(badDev.reply.content.ename).toBe("UsageError");
    const { outputs } = await k.execute("survivor");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("42");
  });

  test("a magic line among TypeScript lines keeps the cell's line numbers", async () => {
    const { reply } = await k.execute('const q = 1;\n%memory\nthrow new Error("on line 3")');
    const tb = reply.content.traceback.join("\n");
    expect(tb).toContain("line 3");
  });
});
