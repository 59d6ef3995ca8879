/** Which cell an interrupt is for (kernel/interrupts.ts), without a kernel: the flag is a real shared Int32Array. */
import { InterruptTarget } from "../../kernel/interrupts";
import { isoMicros, isoNow } from "../../kernel/protocol/message";
import type { Message } from "../../kernel/protocol/message";

function setup(state: { running?: boolean; queued?: boolean } = {}, graceMs = 50) {
  const flag = new Int32Array(new SharedArrayBuffer(8));
  const calls: string[] = [];
  const target = new InterruptTarget({
    flag, running: () => Boolean(state.running), executeQueued: () => Boolean(state.queued),
    interrupt: () => { calls.push("interrupt"); },
  }, graceMs);
  /** What the socket thread does: set the flag, then the main thread hears of it. */
  const interrupt = (date?: string) => { Atomics.store(flag, 0, 1); target.onInterrupt(date); };
  const execute = (date: string) => target.onExecuteRequest({ header: { msg_type: "execute_request", date } } as unknown as Message);
  return { flag, calls, target, interrupt, execute };
}

describe("isoNow and isoMicros", () => {
  test("dates carry microseconds, later each time within a process, and read back", () => {
    const dates = Array.from({ length: 50 }, () => isoNow());
    for (const d of dates) expect(d).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const micros = dates.map(isoMicros);
    for (let i = 1; i < micros.length; i++) expect(micros[i]).toBeGreaterThanOrEqual(micros[i - 1]);
    expect(isoMicros("2026-12-02T05:50:00.123456Z")).toBe(Date.parse("2026-12-02T05:50:00Z") * 1000 + 123456);
    expect(isoMicros("2026-12-02T05:50:00.1+01:00")).toBe(Date.parse("2026-12-02T05:50:00+01:00") * 1000 + 100000);
    expect(isoMicros("2026-12-02T05:50:00Z")).toBe(Date.parse("2026-12-02T05:50:00Z") * 1000);
    expect(isoMicros("yesterday")).toBeNaN();
    expect(isoMicros(undefined)).toBeNaN();
  });
});

describe("InterruptTarget", () => {
  test("a running cell is interrupted", () => {
    const s = setup({ running: true });
    s.interrupt(isoNow());
    expect(s.calls).toEqual(["interrupt"]);
    expect(s.flag[0]).toBe(1);
  });

  test("a queued cell keeps the flag set, so it stops as it begins", () => {
    const s = setup({ queued: true });
    s.interrupt(isoNow());
    expect(s.calls).toEqual(["interrupt"]);
    expect(s.flag[0]).toBe(1);
  });

  test("a flag already cleared (its cell stopped by itself) stops nothing", () => {
    const s = setup({ running: true });
    s.target.onInterrupt(isoNow());
    expect(s.calls).toEqual([]);
  });

  test("idle: an execute request sent before the interrupt, read after it, is the one it stops", () => {
    const s = setup();
    const sent = isoNow();
    s.interrupt(isoNow());
    s.execute(sent);
    expect(s.flag[0]).toBe(1);
  });

  test("idle: an execute request sent after the interrupt runs", () => {
    const s = setup();
    s.interrupt(isoNow());
    s.execute(isoNow());
    expect(s.flag[0]).toBe(0);
    expect(s.calls).toEqual([]);
  });

  test("idle: a SIGINT (no date) stops the execute request read within the grace", () => {
    const s = setup();
    s.interrupt(undefined);
    s.execute(isoNow());
    expect(s.flag[0]).toBe(1);
  });

  test("idle: with no request within the grace, the flag is cleared", async () => {
    const s = setup({}, 20);
    s.interrupt(isoNow());
    expect(s.flag[0]).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect(s.flag[0]).toBe(0);
    // A request after the grace is not compared with anything: it runs.
    s.execute(isoNow());
    expect(s.flag[0]).toBe(0);
  });
});
