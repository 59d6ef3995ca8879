/** %memory's views through a real kernel on the CPU device: tables with bars, timeline, watch, %%memory, processes, history. */
import { KernelClient } from "../../kernel/transport/client";
import { ofType, startKernel, stdout } from "../helpers";
import { bundle, expectSelfContained, ok } from "./magic_helpers";

jest.setTimeout(60000);

const MiB = 2 ** 20;

describe("%memory views", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("%memory: a table per device with bars, aligned text, and PyTorch's keys plus device totals", async () => {
    await ok(k, 'const a = torch.zeros([1024 * 1024], { device: "cpu" });');
    const data = bundle(await ok(k, "%memory all"));
    const cpu = data["application/json"].devices.find((d: any) => d.device === "cpu");
    expect(cpu.allocated).toBe(4 * MiB);
    expect(cpu.stats["allocated_bytes.all.current"]).toBe(4 * MiB);
    expect(cpu.stats["reserved_bytes.all.current"]).toBe(cpu.reserved);
    expect(cpu.reserved_unallocated).toBe(cpu.reserved - cpu.allocated);
    expect(cpu.non_releasable).toBe(cpu.stats["inactive_split_bytes.all.current"]);
    expect(cpu.total).toBeGreaterThan(0);
    expect(cpu.free).toBeLessThanOrEqual(cpu.total);
    const html: string = data["text/html"];
    expectSelfContained(html);
    expect(html).toContain("<caption>cpu — ");
    const pct = (4 * MiB / cpu.total) * 100;
    expect(html).toContain(`data-percent="${pct.toFixed(2)}"`);
    for (const row of ["allocated", "peak allocated", "reserved but unallocated", "non-releasable (split blocks)", "device total"]) expect(html).toContain(`<td>${row}</td>`);
    const text: string = data["text/plain"];
    expect(text).toMatch(/^\s+allocated\s+4\.00 MiB\s+[█░]{20}\s+1 live tensor$/m);
  });

  test("%memory --timeline: one point per executed cell, a staircase when a cell keeps memory, hover names the cell", async () => {
    const first = (await k.execute('const s1 = torch.zeros([256 * 1024], { device: "cpu" });')).reply.content.execution_count;
    const second = (await k.execute('const s2 = torch.zeros([256 * 1024], { device: "cpu" });')).reply.content.execution_count;
    const data = bundle(await ok(k, "%memory --timeline"));
    const points = data["application/json"].timeline;
    const at = (n: number) => points.find((p: any) => p.cell === n).devices.find((d: any) => d.device === "cpu");
    expect(at(second).allocated - at(first).allocated).toBe(MiB);
    expect(points.map((p: any) => p.cell)).toEqual(expect.arrayContaining([first, second]));
    const svg: string = data["text/html"];
    expectSelfContained(svg);
    expect(svg).toContain(`<g class="point" data-cell="${second}" data-allocated="${at(second).allocated}"`);
    expect(svg).toContain(`<title>Cell In[${second}]: allocated `);
    expect(data["text/plain"]).toMatch(new RegExp(`^\\s*${second}\\s+\\d`, "m"));
  });

  test("%memory --watch on prints a footer after every cell with its change, peak and reserved; off stops it", async () => {
    await ok(k, "%memory --watch on");
    const out = await ok(k, 'const w = torch.zeros([256 * 1024], { device: "cpu" });\ntorch.zeros([512 * 1024], { device: "cpu" }).dispose();');
    expect(stdout(out)).toMatch(/\[memory\] cell \d+ · cpu: \+1\.00 MiB allocated \(peak \d+\.\d\d MiB\), \d+\.\d\d MiB reserved/);
    const peak = Number(/peak (\d+\.\d\d) MiB/.exec(stdout(out))![1]);
    expect(peak).toBeGreaterThanOrEqual(3); // w (1 MiB) and the 2 MiB temporary together, above what was there
    await ok(k, "%memory --watch off");
    expect(stdout(await ok(k, "1 + 1"))).not.toContain("[memory]");
  });

  test("%%memory runs its cell and reports the allocated change and peak", async () => {
    const out = await ok(k, '%%memory\nconst kept = torch.zeros([256 * 1024], { device: "cpu" });\ntorch.zeros([1024 * 1024], { device: "cpu" }).dispose();\nkept.numel');
    const data = bundle(out);
    const cpu = data["application/json"].devices.find((d: any) => d.device === "cpu");
    expect(cpu.delta).toBe(MiB);
    expect(cpu.peak_above_start).toBe(5 * MiB);
    expect(ofType(out, "execute_result")[0].content.data["text/plain"]).toBe(String(256 * 1024));
    expect((await k.execute("kept.numel")).reply.content.status).toBe("ok"); // the body's declarations persist
  });

  test("%memory --tensors: views are counted once, with their storage", async () => {
    await ok(k, 'const base = torch.zeros([64, 1024], { device: "cpu" });\nconst row = base.select(0, 3);\nconst tr = base.t();');
    const json = bundle(await ok(k, "%memory --tensors"))["application/json"];
    const rows = json.tensors.filter((t: any) => t.holders.includes("base"));
    // One row for the storage, whose holders are the base and both of its views; its bytes counted once.
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ nbytes: 64 * 1024 * 4, shape: [64, 1024] });
    expect([...rows[0].holders].sort()).toEqual(expect.arrayContaining(["base", "row", "tr"]));
    expect(json.tensors.filter((t: any) => t.id === rows[0].id)).toHaveLength(1);
  });

  test("%memory --tensors: nested variable paths, largest first, and by cell and line with history on", async () => {
    await ok(k, "%memory cpu --history on");
    const made = (await k.execute('const net = { layers: [1, 2, 3, 4].map((i) => ({ weight: torch.zeros([i * 1024], { device: "cpu" }) })) };')).reply.content.execution_count;
    const data = bundle(await ok(k, "%memory --tensors"));
    const json = data["application/json"];
    expect(json.holders.find((g: any) => g.label === "net.layers[3].weight")).toMatchObject({ kind: "variable", bytes: 16384 });
    const bytes = json.tensors.map((t: any) => t.nbytes);
    expect(bytes).toEqual([...bytes].sort((x: number, y: number) => y - x));
    expect(json.sites.find((s: any) => s.cell === made)).toMatchObject({ site: `Cell In[${made}], line 1`, line: 1, tensors: 4, bytes: 40960 });
    expectSelfContained(data["text/html"]);
    expect(data["text/html"]).toContain("<b>net.layers[3].weight</b>");
    await ok(k, "%memory --history off");
  });

  test("%memory --processes says why there is nothing to show without a GPU", async () => {
    const data = bundle(await ok(k, "%memory --processes"));
    const json = data["application/json"];
    if (json.available) {
      expect(json.devices.length).toBeGreaterThan(0); // a GPU machine: NVML answered
    } else {
      expect(json.reason).toMatch(/libnvidia-ml\.so\.1|NVML/);
      expect(data["text/plain"]).toContain("No GPU processes to show: ");
    }
  });

  test("--leaks is --tensors; --summary --abbreviated is PyTorch's short table", async () => {
    const leaks = bundle(await ok(k, "%memory --leaks"))["application/json"];
    const tensors = bundle(await ok(k, "%memory --tensors"))["application/json"];
    expect(leaks.holders).toEqual(tensors.holders);
    const full = bundle(await ok(k, "%memory --summary"))["text/plain"];
    const short = bundle(await ok(k, "%memory --summary --abbreviated"))["text/plain"];
    expect(short.split("\n").length).toBeLessThan(full.split("\n").length);
    expect(short).toContain("| Allocated memory      |");
  });

  test("%empty_cache names the largest holders of what stays allocated", async () => {
    await ok(k, 'const biggest = torch.zeros([2 * 1024 * 1024], { device: "cpu" });');
    const data = bundle(await ok(k, "%empty_cache cpu"));
    const cpu = data["application/json"].devices[0];
    expect(cpu.holders[0]).toEqual({ label: "biggest", bytes: 8 * MiB, tensors: 1 });
    expect(data["text/plain"]).toContain("cpu: largest holders: biggest (8.00 MiB)");
  });

  test("bad options are usage errors naming what was expected", async () => {
    const bad = await k.execute("%memory --watch maybe");
    expect(bad.reply.content.evalue).toContain("expected on or off for --watch, got maybe");
    const dev = await k.execute("%memory cuda:9");
    expect(dev.reply.content.evalue).toContain('no allocator for device "cuda:9"');
  });
});
