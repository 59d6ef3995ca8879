/** %memory's views through a real kernel on the CPU device: tables with bars, timeline, watch, %%memory, processes, history. */
import { KernelClient } from "../../kernel/transport/client";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { ofType, startKernel, stdout, waitUntil } from "../helpers";
import { bundle, expectSelfContained, ok } from "./magic_helpers";
import { magicMime } from "../../magics/mime";

jest.setTimeout(60000);

const MiB = 2 ** 20;

describe("%memory views", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel(); });
  afterAll(async () => { await k.shutdown(); });

  test("%memory: a table per device with bars, aligned text, and PyTorch's keys plus device totals", async () => {
    await ok(k, 'const a = torch.zeros([1024 * 1024], { device: "cpu" });');
    const data = bundle(await ok(k, "%memory all"));
    const cpu = data[magicMime("memory")].devices.find((d: any) => d.device === "cpu");
    expect(cpu.allocated).toBe(4 * MiB);
    expect(cpu.stats["allocated_bytes.all.current"]).toBe(4 * MiB);
    expect(cpu.stats["reserved_bytes.all.current"]).toBe(cpu.reserved);
    expect(cpu.reserved_unallocated).toBe(cpu.reserved - cpu.allocated);
    expect(cpu.non_releasable).toBe(cpu.stats["inactive_split_bytes.all.current"]);
    expect(cpu.total).toBeGreaterThan(0);
    expect(cpu.free).toBeLessThanOrEqual(cpu.total);
    const html: string = data["text/html"];
    expectSelfContained(html);
    expect(html).toContain('<caption style="text-align:left">cpu — ');
    const pct = (4 * MiB / cpu.total) * 100;
    expect(html).toContain(`data-percent="${pct.toFixed(2)}"`);
    for (const row of ["allocated", "peak allocated", "reserved but unallocated", "non-releasable (split blocks)", "device total"]) expect(html).toContain(`<td style="text-align:left">${row}</td>`);
    const text: string = data["text/plain"];
    expect(text).toMatch(/^\s+allocated\s+4\.00 MiB\s+[█░]{20}\s+1 live tensor$/m);
  });

  test("%memory --timeline: one point per executed cell, a staircase when a cell keeps memory, hover names the cell", async () => {
    const first = (await k.execute('const s1 = torch.zeros([256 * 1024], { device: "cpu" });')).reply.content.execution_count;
    const second = (await k.execute('const s2 = torch.zeros([256 * 1024], { device: "cpu" });')).reply.content.execution_count;
    const data = bundle(await ok(k, "%memory --timeline"));
    const points = data[magicMime("memory")].timeline;
    const at = (n: number) => points.find((p: any) => p.cell === n).devices.find((d: any) => d.device === "cpu");
    expect(at(second).allocated - at(first).allocated).toBe(MiB);
    expect(points.map((p: any) => p.cell)).toEqual(expect.arrayContaining([first, second]));
    const svg: string = data["text/html"];
    expectSelfContained(svg);
    expect(svg).toContain(`<g class="point" data-cell="${second}" data-allocated="${at(second).allocated}"`);
    expect(svg).toContain(`<title>Cell In[${second}]: allocated `);
    expect(data["text/plain"]).toMatch(new RegExp(`^\\s*${second}\\s+\\d`, "m"));
  });

  test("%memory --watch on: a live view updated in place after every cell and while a cell awaits; off stops it", async () => {
    const shown = await ok(k, "%memory --watch on");
    const [view] = ofType(shown, "display_data");
    const id = view.content.transient.display_id;
    expect(id).toMatch(/^tsgpu-memory-watch-[0-9a-f]+$/);
    expect(view.content.data[magicMime("memory")]).toMatchObject({ watch: true, state: "live" });
    expect(view.content.data["text/html"]).toContain('data-state="live"');

    // A later cell: no footer in its own output, an update of the view with its change and peak instead.
    const out = await ok(k, 'const w = torch.zeros([256 * 1024], { device: "cpu" });\ntorch.zeros([512 * 1024], { device: "cpu" }).dispose();');
    expect(stdout(out)).toBe("");
    const updates = ofType(out, "update_display_data");
    // One update when the cell ends. On a loaded machine the view's 1 s tick may also fire while the cell is
    // compiled (before it allocates: +0) or after the cell's update but before the kernel goes idle (the change is
    // then counted from the end of the cell: +0 again); the cell's own update is the last that shows its change.
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(new Set(updates.map((u) => u.content.transient.display_id))).toEqual(new Set([id]));
    const cpuOf = (u: any) => u.content.data[magicMime("memory")].devices.find((d: any) => d.device === "cpu");
    const end = [...updates].reverse().find((u) => cpuOf(u).delta !== 0) ?? updates[updates.length - 1];
    const cpu = cpuOf(end);
    expect(cpu.delta).toBe(MiB);
    expect(cpu.peak - (cpu.allocated - cpu.delta)).toBeGreaterThanOrEqual(3 * MiB); // w and the 2 MiB temporary together
    expect(end.content.data["text/plain"]).toMatch(/^\[memory\] cell \d+ · cpu: \+1\.00 MiB allocated \(peak \d+\.\d\d MiB\), \d+\.\d\d MiB reserved \(live\)/);
    expect(end.content.data["text/html"]).toContain('<td class="num" style="text-align:right;white-space:nowrap">+1.00 MiB</td>');

    // A cell that allocates, then awaits: the view changes while it waits, before the cell ends. It waits until the
    // test has seen two updates (it then creates the gate), or 30 s, and says which ended the wait.
    const gate = join(mkdtempSync(join(tmpdir(), "tsgpu-gate-")), "open");
    const from = k.iopubLog.length;
    const waiting = ok(k, 'import { existsSync as viewGate } from "fs";\nconst w2 = torch.zeros([256 * 1024], { device: "cpu" });\n' +
      `const gateBy = Date.now() + 30000;\nwhile (!viewGate(${JSON.stringify(gate)}) && Date.now() < gateBy) await new Promise((r) => setTimeout(r, 20));\n` +
      `viewGate(${JSON.stringify(gate)}) ? "released" : "timed out"`);
    const updatesOfView = () => ofType(k.iopubLog.slice(from), "update_display_data").filter((u) => u.content.transient?.display_id === id);
    await waitUntil(() => updatesOfView().some((u) => cpuOf(u).delta === MiB), "an update of the view with w2 while the cell waits");
    writeFileSync(gate, "");
    const awaiting = await waiting;
    expect(ofType(awaiting, "execute_result")[0].content.data["text/plain"]).toBe("'released'");
    const during = ofType(awaiting, "update_display_data");
    // One while it waited (the tick that saw w2), one when it ended.
    expect(during.filter((u) => cpuOf(u).delta === MiB).length).toBeGreaterThanOrEqual(2);

    const off = await ok(k, "%memory --watch off");
    const offUpdates = ofType(off, "update_display_data"); // (a tick may precede the last one, as above)
    expect(new Set(offUpdates.map((u) => u.content.transient.display_id))).toEqual(new Set([id]));
    const last = offUpdates[offUpdates.length - 1];
    expect(last.content.data[magicMime("memory")]).toMatchObject({ watch: false, state: "stopped", reason: "--watch off" });
    expect(last.content.data["text/html"]).toContain('data-state="stopped"');
    const quiet = await ok(k, 'const w3 = torch.zeros([256 * 1024], { device: "cpu" });');
    expect(ofType(quiet, "update_display_data")).toEqual([]);
    expect(stdout(quiet)).toBe("");
  });

  test("%%memory runs its cell and reports the allocated change and peak", async () => {
    const out = await ok(k, '%%memory\nconst kept = torch.zeros([256 * 1024], { device: "cpu" });\ntorch.zeros([1024 * 1024], { device: "cpu" }).dispose();\nkept.numel');
    const data = bundle(out);
    const cpu = data[magicMime("memory")].devices.find((d: any) => d.device === "cpu");
    expect(cpu.delta).toBe(MiB);
    expect(cpu.peak_above_start).toBe(5 * MiB);
    expect(ofType(out, "execute_result")[0].content.data["text/plain"]).toBe(String(256 * 1024));
    expect((await k.execute("kept.numel")).reply.content.status).toBe("ok"); // the body's declarations persist
  });

  test("%memory --tensors: views are counted once, with their storage", async () => {
    await ok(k, 'const base = torch.zeros([64, 1024], { device: "cpu" });\nconst row = base.select(0, 3);\nconst tr = base.t();');
    const json = bundle(await ok(k, "%memory --tensors"))[magicMime("memory")];
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
    const json = data[magicMime("memory")];
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
    const json = data[magicMime("memory")];
    if (json.available) {
      expect(json.devices.length).toBeGreaterThan(0); // a GPU machine: NVML answered
    } else {
      expect(json.reason).toMatch(/libnvidia-ml\.so\.1|NVML/);
      expect(data["text/plain"]).toContain("No GPU processes to show: ");
    }
  });

  test("--leaks is --tensors; --summary --abbreviated is PyTorch's short table", async () => {
    const leaks = bundle(await ok(k, "%memory --leaks"))[magicMime("memory")];
    const tensors = bundle(await ok(k, "%memory --tensors"))[magicMime("memory")];
    expect(leaks.holders).toEqual(tensors.holders);
    const full = bundle(await ok(k, "%memory --summary"))["text/plain"];
    const short = bundle(await ok(k, "%memory --summary --abbreviated"))["text/plain"];
    expect(short.split("\n").length).toBeLessThan(full.split("\n").length);
    expect(short).toContain("| Allocated memory      |");
  });

  test("%empty_cache names the largest holders of what stays allocated", async () => {
    await ok(k, 'const biggest = torch.zeros([2 * 1024 * 1024], { device: "cpu" });');
    const data = bundle(await ok(k, "%empty_cache cpu"));
    const cpu = data[magicMime("empty_cache")].devices[0];
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

describe("%memory --watch and a restart", () => {
  test("a restart from the frontend stops the live view, and its last update says so", async () => {
    const k = await startKernel();
    try {
      const [view] = ofType(await ok(k, "%memory --watch on"), "display_data");
      const id = view.content.transient.display_id;
      await ok(k, 'const kept = torch.zeros([256 * 1024], { device: "cpu" });');
      const reply = await k.request("shutdown_request", { restart: true }, "control");
      expect(reply.reply.content).toMatchObject({ status: "ok", restart: true });
      const stopped = () => k.iopubLog.find((m) => m.header.msg_type === "update_display_data" && m.content.transient?.display_id === id &&
        m.content.data[magicMime("memory")].state === "stopped");
      for (let i = 0; i < 100 && !stopped(); i++) await new Promise((r) => setTimeout(r, 100));
      expect(stopped()!.content.data[magicMime("memory")]).toMatchObject({ watch: false, reason: "the kernel restarted" });
      expect(stopped()!.content.data["text/plain"]).toContain("(stopped: the kernel restarted)");
    } finally {
      expect(await k.shutdown()).toBe(0);
    }
  });
});
