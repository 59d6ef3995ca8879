/**
 * The IPython magics people reach for, through a real kernel: %who, %whos,
 * %time/%%time, %timeit, %env, %pinfo, the output history (_ __ ___ _N),
 * %reset_selective, registerMagic, unknown magics, out-of-memory recovery
 * and %restart.
 */
import { KernelClient } from "../../kernel/transport/client";
import { ofType, startKernel, stdout } from "../helpers";
import { bundle, ok } from "./magic_helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(60000);

function result(outputs: any[]): string {
  return ofType(outputs, "execute_result")[0]?.content.data["text/plain"];
}

describe("IPython's magics", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel({ env: { ...process.env, TSGPU_CPU_MEMORY_LIMIT: "64MiB" } }); });
  afterAll(async () => { await k.shutdown(); });

  test("%who and %whos list the variables; %whos shows tensors' shape, dtype, device and bytes", async () => {
    await ok(k, 'const t = torch.zeros([10, 20], { device: "cpu" });\nconst n = 3;\nconst label = "x";');
    expect(bundle(await ok(k, "%who"))["text/plain"].split("\t")).toEqual(expect.arrayContaining(["t", "n", "label"]));
    expect(bundle(await ok(k, "%who Tensor"))[magicMime("who")].names).toEqual(["t"]);
    const whos = bundle(await ok(k, "%whos"));
    expect(whos[magicMime("whos")].variables.find((v: any) => v.name === "t")).toMatchObject({ type: "Tensor", shape: [10, 20], dtype: "float32", device: "cpu", nbytes: 800 });
    expect(whos["text/plain"]).toMatch(/^t\s+Tensor\s+\[10, 20\] float32 on cpu, 800 B$/m);
  });

  test("the output history: Out[N], _N, _, __ and ___ as in IPython", async () => {
    const a = (await k.execute("10")).reply.content.execution_count;
    await k.execute("20");
    await k.execute("30");
    expect(result((await k.execute("[_, __, ___, Out[" + a + "], _" + a + "]")).outputs)).toBe("[ 30, 20, 10, 10, 10 ]");
  });

  test("%time and %%time report CPU and wall time and keep the statement's result and declarations", async () => {
    const line = await ok(k, "%time [1, 2, 3].map((x) => x * 2).length");
    expect(stdout(line)).toMatch(/^CPU times: user .+, sys: .+, total: .+\nWall time: \d+(\.\d+)? (s|ms|µs|ns)\n$/);
    const cell = await ok(k, "%%time\nconst timed = torch.ones([4]).sum().item();\ntimed * 2");
    expect(stdout(cell)).toContain("Wall time: ");
    expect(result(cell)).toBe("8");
    expect(result(await ok(k, "timed"))).toBe("4");
  });

  test("%timeit picks 10^k loops as IPython does, or takes -n and -r", async () => {
    const auto = bundle(await ok(k, "%timeit -r 3 for (let i = 0; i < 100000; i++) {}"))[magicMime("timeit")];
    expect(Math.log10(auto.loops) % 1).toBe(0);
    // The chosen count is the first power of ten whose batch took at least 0.2 s (or 10^9).
    expect(auto.all_runs_s.every((t: number) => t > 0)).toBe(true);
    expect(auto.repeat).toBe(3);
    expect(auto.all_runs_s).toHaveLength(3);
    const fixed = bundle(await ok(k, "%timeit -n 3 -r 2 torch.zeros([8]).dispose()"));
    expect(fixed[magicMime("timeit")]).toMatchObject({ loops: 3, repeat: 2 });
    expect(fixed["text/plain"]).toMatch(/ per loop \(mean ± std\. dev\. of 2 runs, 3 loops each\)$/);
    const cell = bundle(await ok(k, "%%timeit -n 2 -r 2\nconst v = torch.zeros([4]);\nv.dispose();"))[magicMime("timeit")];
    expect(cell).toMatchObject({ loops: 2, repeat: 2 });
    expect(ofType(await ok(k, "%timeit -q -n 1 -r 1 1 + 1"), "display_data")).toHaveLength(0);
    const bad = await k.execute("%timeit -n zero 1");
    expect(bad.reply.content.evalue).toContain("expected a positive integer for -n, got zero");
  });

  test("%env shows and sets environment variables", async () => {
    expect(stdout(await ok(k, "%env TSGPU_TEST_VAR=hello world"))).toBe("env: TSGPU_TEST_VAR=hello world\n");
    expect(stdout(await ok(k, "%env TSGPU_TEST_VAR"))).toBe("hello world\n");
    expect(bundle(await ok(k, "%env"))[magicMime("env")].TSGPU_TEST_VAR).toBe("hello world");
    expect(result(await ok(k, "process.env.TSGPU_TEST_VAR"))).toBe("'hello world'");
  });

  test("%pinfo describes a name", async () => {
    await ok(k, "function scale(x: number, by = 2) { return x * by; }");
    expect(bundle(await ok(k, "const unused = 0;\n%pinfo scale"))["text/plain"]).toContain("scale: function");
  });

  test("%reset_selective -f drops the variables matching a regular expression and says what it freed", async () => {
    // Garbage that earlier tests left (%timeit's undisposed tensors) is collected first, so that what the
    // magic reports is what the two variables held.
    await ok(k, "%reset_selective -f ^no_such_name$");
    await ok(k, 'const tmp_a = torch.zeros([1024], { device: "cpu" });\nconst tmp_b = torch.zeros([1024], { device: "cpu" });\nconst keepMe = 1;');
    const json = bundle(await ok(k, "%reset_selective -f ^tmp_"))[magicMime("reset_selective")];
    expect(json.dropped.sort()).toEqual(["tmp_a", "tmp_b"]);
    expect(json).toMatchObject({ freed_tensors: 2, freed_bytes: 8192 });
    expect(result(await ok(k, "keepMe"))).toBe("1");
    const bad = await k.execute("%reset_selective -f (");
    expect(bad.reply.content.evalue).toContain("expected a regular expression for REGEX, got (");
  });

  test("registerMagic adds line and cell magics written in TypeScript", async () => {
    await ok(k, 'registerMagic("shout", (args: string) => args.toUpperCase());\nregisterMagic("count_lines", (args: string, body: string) => body.split("\\n").filter(Boolean).length, { cell: true });');
    expect(result(await ok(k, '%shout hello "there"'))).toBe("'HELLO \"THERE\"'");
    expect(result(await ok(k, "%%count_lines\na\nb\nc"))).toBe("3");
    expect(bundle(await ok(k, "%lsmagic"))[magicMime("lsmagic")].cell).toContain("count_lines");
    const bad = await k.execute('registerMagic("no spaces allowed", () => 1)');
    expect(bad.reply.content.evalue).toContain('expected a name of letters, digits and _ for name, got "no spaces allowed"');
  });

  test("an unknown magic is an error that names the known ones; the kernel keeps its state", async () => {
    const line = await k.execute("%memroy");
    expect(line.reply.content.evalue).toMatch(/`%memroy` not found\. Known magics: .*%memory.*%timeit/);
    const cell = await k.execute("%%nothing\nx");
    expect(cell.reply.content.evalue).toMatch(/`%%nothing` not found\. Known cell magics: %%count_lines, %%memory, %%time, %%timeit/);
    expect(result(await ok(k, "n"))).toBe("3");
  });

  test("after out of memory, %reset -f and %empty_cache make room and the same allocation succeeds", async () => {
    await ok(k, 'const hog = torch.zeros([12 * 1024 * 1024], { device: "cpu" }); // 48 MiB of 64');
    const oom = await k.execute('const big = torch.zeros([8 * 1024 * 1024], { device: "cpu" }); // 32 MiB more');
    expect(oom.reply.content.ename).toBe("OutOfMemoryError");
    const reset = bundle(await ok(k, "%reset -f"))[magicMime("reset")];
    expect(reset.freed_bytes).toBeGreaterThanOrEqual(48 * 2 ** 20);
    await ok(k, "%empty_cache");
    expect((await k.execute('const big = torch.zeros([8 * 1024 * 1024], { device: "cpu" });')).reply.content.status).toBe("ok");
  });
});

describe("%restart", () => {
  test("says what it does, answers the cell, then the kernel exits for its manager to start a fresh one", async () => {
    const k = await startKernel();
    const exited = new Promise<number | null>((r) => (k as any).proc.once("exit", (code: number | null) => r(code)));
    const { reply, outputs } = await k.execute("%restart");
    expect(reply.content.status).toBe("ok");
    expect(stdout(outputs)).toContain("Restarting: this kernel releases its device memory and exits");
    expect(await exited).toBe(0);
    k.close();
  });
});
