/**
 * The memory panel's comm target (kernel/memory_panel.ts) through a real
 * kernel and zeromq client, as JupyterLab's panel uses it: no comm traffic
 * before a panel opens a comm; a snapshot on request whose numbers are the
 * runtime's own and whose holders are the variables `%memory --tensors`
 * names; an update pushed after a cell changes memory, none when nothing
 * changed, never two closer than the interval; `empty_cache` and `reset`
 * run the magics and send their data back; nothing after the comm closes.
 */
import { KernelClient } from "../../kernel/transport/client";
import { Message } from "../../kernel/protocol/message";
import { kPanelIntervalMs, kPanelTarget } from "../../kernel/memory_panel";
import { magicMime } from "../../magics/mime";
import { ofType, sleep, startKernel, stdout } from "../helpers";

jest.setTimeout(60000);

const MiB = 2 ** 20;
let k: KernelClient;
beforeAll(async () => { k = await startKernel(); });
afterAll(async () => { await k.shutdown(); });

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await sleep(20);
  }
}

/** comm_msg data the kernel sent on `commId` after iopub index `from`. */
function commData(from: number, commId: string): Record<string, any>[] {
  return ofType(k.iopubLog.slice(from), "comm_msg").filter((m) => m.content.comm_id === commId).map((m) => m.content.data);
}

/** The value of an expression in the kernel (through JSON). */
async function value(expr: string): Promise<any> {
  const { reply, outputs } = await k.execute(`console.log(JSON.stringify(${expr}));`);
  expect(reply.content.status).toBe("ok");
  return JSON.parse(stdout(outputs));
}

/** Sends a request on the panel's comm and waits for its reply. */
async function ask(commId: string, request: string, id: number): Promise<Record<string, any>> {
  const from = k.iopubLog.length;
  await k.send(k.shell, "comm_msg", { comm_id: commId, data: { request, id } });
  await until(() => commData(from, commId).some((d) => d.reply === request && d.id === id), 20000);
  return commData(from, commId).find((d) => d.reply === request && d.id === id)!;
}

const cpu = (snap: any) => snap.devices.find((d: any) => d.device === "cpu");

describe("the tsgpu.memory comm target", () => {
  const commId = "panel-1";

  test("no comm traffic while no panel is open", async () => {
    const from = k.iopubLog.length;
    expect((await k.execute('const weights = torch.zeros([1024 * 1024], { device: "cpu" });')).reply.content.status).toBe("ok");
    await sleep(3 * kPanelIntervalMs);
    expect(ofType(k.iopubLog.slice(from), "comm_msg")).toEqual([]);
    expect((await k.request("comm_info_request", {})).reply.content.comms).toEqual({});
  });

  test("a snapshot has the runtime's numbers per device and the holders %memory --tensors names", async () => {
    await k.send(k.shell, "comm_open", { comm_id: commId, target_name: kPanelTarget, data: {} });
    const { snapshot } = await ask(commId, "snapshot", 1);
    const expected = await value('{ a: torch.memory.allocated("cpu"), r: torch.memory.reserved("cpu"), p: torch.memory.maxAllocated("cpu") }');
    expect(snapshot.version).toBe(1);
    expect(snapshot.runtime_loaded).toBe(true);
    expect(snapshot.busy).toBe(false);
    expect(cpu(snapshot)).toMatchObject({ allocated: expected.a, reserved: expected.r, peak: expected.p });
    expect(cpu(snapshot).total).toBeGreaterThan(0);
    expect(snapshot.holders[0]).toEqual({ label: "weights", kind: "variable", bytes: 4 * MiB, tensors: 1 });
    // The same names as %memory --tensors.
    const { outputs } = await k.execute("%memory --tensors");
    const data = ofType(outputs, "display_data")[0].content.data[magicMime("memory")];
    expect(data.holders.map((g: any) => g.label)).toEqual(snapshot.holders.map((h: any) => h.label));
    expect((await k.request("comm_info_request", {})).reply.content.comms).toEqual({ [commId]: { target_name: kPanelTarget } });
  });

  test("a cell that allocates brings one update; nothing changed brings none", async () => {
    await sleep(3 * kPanelIntervalMs);
    let from = k.iopubLog.length;
    expect((await k.execute('const big = torch.ones([2 * 1024 * 1024], { device: "cpu" });')).reply.content.status).toBe("ok");
    await until(() => commData(from, commId).some((d) => d.update && d.update.holders.some((h: any) => h.label === "big")));
    const update = commData(from, commId).filter((d) => d.update).pop()!.update;
    expect(cpu(update).allocated).toBe(await value('torch.memory.allocated("cpu")'));
    expect(update.holders[0]).toEqual({ label: "big", kind: "variable", bytes: 8 * MiB, tensors: 1 });
    await sleep(kPanelIntervalMs);
    from = k.iopubLog.length;
    await sleep(4 * kPanelIntervalMs);
    expect(commData(from, commId).filter((d) => d.update)).toEqual([]);
  });

  test("while a cell awaits, updates carry the devices' numbers, busy, and come at most once an interval", async () => {
    const from = k.iopubLog.length;
    const started = Date.now();
    const { reply } = await k.execute([
      "const steps: unknown[] = [];",
      "for (let i = 0; i < 30; i++) { steps.push(torch.zeros([64 * 1024], { device: 'cpu' })); await new Promise((r) => setTimeout(r, 50)); }",
    ].join("\n"));
    const elapsed = Date.now() - started;
    expect(reply.content.status).toBe("ok");
    const updates = ofType(k.iopubLog.slice(from), "comm_msg").filter((m) => m.content.comm_id === commId && m.content.data.update);
    const busy = updates.filter((m) => m.content.data.update.busy);
    expect(busy.length).toBeGreaterThan(0);
    expect(updates.length).toBeLessThanOrEqual(Math.ceil(elapsed / kPanelIntervalMs) + 2);
    // While busy, the holders are still those of the last time between cells: no namespace walk inside the cell.
    for (const m of busy) expect(m.content.data.update.holders.some((h: any) => h.label.startsWith("steps"))).toBe(false);
    await until(() => commData(from, commId).some((d) => d.update && !d.update.busy && d.update.holders.some((h: any) => h.label.startsWith("steps["))));
  });

  test("empty_cache runs %empty_cache and sends its data and a fresh snapshot back", async () => {
    expect((await k.execute("big.dispose(); steps.length = 0;")).reply.content.status).toBe("ok");
    const before = await value('torch.memory.reserved("cpu")');
    const answer = await ask(commId, "empty_cache", 2);
    expect(answer.error).toBeUndefined();
    const dev = answer.result.devices.find((d: any) => d.device === "cpu");
    expect(dev.reserved_before).toBe(before);
    expect(dev.released_bytes).toBeGreaterThan(0);
    expect(cpu(answer.snapshot).reserved).toBe(dev.reserved_after);
    expect(cpu(answer.snapshot).reserved).toBeLessThan(before);
    expect(cpu(answer.snapshot).reserved).toBe(await value('torch.memory.reserved("cpu")'));
    expect(answer.text).toMatch(/released/);
  });

  test("reset runs %reset -f: the variables are dropped and their memory freed", async () => {
    const answer = await ask(commId, "reset", 3);
    expect(answer.error).toBeUndefined();
    expect(answer.result.dropped).toEqual(expect.arrayContaining(["weights", "big", "steps"]));
    expect(answer.result.freed_bytes).toBeGreaterThanOrEqual(4 * MiB);
    expect(cpu(answer.snapshot).allocated).toBe(await value('torch.memory.allocated("cpu")'));
    expect(answer.snapshot.holders.some((h: any) => h.label === "weights")).toBe(false);
    const { reply } = await k.execute("weights");
    expect(reply.content.evalue).toMatch(/weights is not defined/);
  });

  test("an unknown request gets an error that names it", async () => {
    const answer = await ask(commId, "explode", 4);
    expect(answer.error).toBe('expected "snapshot", "empty_cache" or "reset" for request, got "explode"');
  });

  test("after the comm closes, nothing more is sent", async () => {
    await k.send(k.shell, "comm_close", { comm_id: commId, data: {} });
    expect((await k.request("comm_info_request", {})).reply.content.comms).toEqual({});
    const from = k.iopubLog.length;
    expect((await k.execute('const again = torch.zeros([1024 * 1024], { device: "cpu" });')).reply.content.status).toBe("ok");
    await sleep(3 * kPanelIntervalMs);
    expect(ofType(k.iopubLog.slice(from), "comm_msg") as Message[]).toEqual([]);
  });

  test("a kernel shutdown closes an open panel's comm", async () => {
    const k2 = await startKernel();
    try {
      await k2.send(k2.shell, "comm_open", { comm_id: "panel-2", target_name: kPanelTarget, data: {} });
        expect((await k2.request("comm_info_request", {})).reply.content.comms).toEqual({ "panel-2": { target_name: kPanelTarget } });
    } finally {
      await k2.shutdown(true);
    }
    const closed = ofType(k2.iopubLog, "comm_close").find((m) => m.content.comm_id === "panel-2");
    expect(closed?.content.data).toEqual({ reason: "the kernel restarted" });
  });
});
