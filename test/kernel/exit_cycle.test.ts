/**
 * The kernel's normal way out, many times: a plain launch, one cell that uses
 * the tensor runtime (the CPU thread pool, autograd, tensors left alive for the
 * process's teardown), a shutdown_request, and the process's exit through
 * Node's own teardown (worker threads, the addons' cleanup hooks, static
 * destructors, atexit handlers). A heap corrupted anywhere earlier shows here as
 * an abort ("malloc(): unsorted double linked list corrupted") or, in the
 * sanitizer build (scripts/sanitize.js), as a report that ends the process.
 * Every exit must be status 0 with no signal and nothing of the kind on stderr.
 *
 * TSGPU_EXIT_CYCLES sets the number of exits (50 by default); they run two at a
 * time, one per core of a CI machine.
 */
import * as zmq from "zeromq";
import { randomBytes } from "crypto";
import { startKernel } from "../helpers";
import type { KernelClient } from "../../kernel/transport/client";

const kCycles = Number(process.env.TSGPU_EXIT_CYCLES || 50);
const kLanes = 2;

/** A cell that leaves the runtime with work to tear down: pool threads, a graph, live storages. */
const CELL = `
const a = torch.randn([192, 192]);
const w = torch.randn([192], { requiresGrad: true });
const loss = a.matmul(w).relu().sum();
loss.backward();
const kept = [a.matmul(a).softmax(1), torch.arange(0, 4096).reshape([64, 64]).float().exp()];
[kept.length, w.grad!.shape[0]]`;

/** What an exit that went wrong leaves on stderr: glibc's heap checks, the sanitizers' reports, a fatal signal. */
const kCorruption = /malloc\(\)|free\(\)|corrupted|double free|AddressSanitizer|LeakSanitizer|runtime error:|Segmentation fault|Aborted/;

interface Exit { code: number | null; signal: NodeJS.Signals | null; stderr: string; replied: boolean; cell: string }

/** Sends the kernel's heartbeat one ping of `bytes` binary bytes (not UTF-8) and checks its echo. */
async function binaryPing(k: KernelClient, bytes: number): Promise<void> {
  const hb = new zmq.Request({ linger: 0 });
  try {
    hb.connect(`tcp://127.0.0.1:${k.info.hb_port}`);
    const ping = randomBytes(bytes);
    ping[0] = 0xff;
    await hb.send(ping);
    const [echo] = await hb.receive();
    expect(echo.equals(ping)).toBe(true);
  } finally {
    hb.close();
  }
}

async function oneExit(before?: (k: KernelClient) => Promise<void>, env?: NodeJS.ProcessEnv): Promise<Exit> {
  const k: KernelClient = await startKernel(env ? { env: { ...process.env, ...env } } : {});
  const proc = k.proc!;
  const exited = new Promise<void>((r) => { if (proc.exitCode !== null || proc.signalCode !== null) r(); else proc.once("exit", () => r()); });
  let cell = "";
  let replied = false;
  try {
    if (before) await before(k);
    const { reply, outputs } = await k.execute(CELL);
    const result = outputs.find((m) => m.header.msg_type === "execute_result");
    cell = reply.content.status === "ok" ? `ok ${result?.content.data["text/plain"] ?? ""}`
      : `${reply.content.status} ${reply.content.ename}: ${reply.content.evalue}`;
    const shut = await k.request("shutdown_request", { restart: false }, "control", 20000);
    replied = shut.reply.content.status === "ok";
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20000))]);
  } finally {
    k.close();
  }
  await exited;
  return { code: proc.exitCode, signal: proc.signalCode, stderr: k.stderr, replied, cell };
}

test(`${kCycles} kernel exits through the normal shutdown path: each one status 0, no signal, no heap report`, async () => {
  const exits: Exit[] = [];
  let next = 0;
  const lane = async () => { while (next < kCycles) { next++; exits.push(await oneExit()); } };
  await Promise.all(Array.from({ length: kLanes }, lane));
  const bad = exits.filter((e) => e.code !== 0 || e.signal !== null || kCorruption.test(e.stderr));
  // The first bad exit whole (its stderr is the report), and how many of all there were.
  expect(bad.length === 0 ? "" : `${bad.length} of ${exits.length} exits went wrong; the first: status ${bad[0].code}, `
    + `signal ${bad[0].signal}\n${bad[0].stderr.slice(-4000)}`).toBe("");
  expect(exits.length).toBe(kCycles);
  expect(exits.every((e) => e.replied)).toBe(true);
  expect(new Set(exits.map((e) => e.cell))).toEqual(new Set(["ok [ 2, 192 ]"]));
// A cycle takes 2-4 s on an idle 2-core machine and several times that on a loaded one (a kernel start with its
// type checker, a cell, a shutdown); the limit is for a hang, not a speed check.
}, Math.max(120000, kCycles * 24000));

test("a kernel whose socket thread sent a binary frame without a copy ends without the teardown, status 0", async () => {
  // A 4 KiB binary ping: its echo goes to zeromq as the Buffer itself (frames.ts), which makes the teardown unsafe.
  const e = await oneExit((k) => binaryPing(k, 4096), { TSGPU_LOG_LEVEL: "debug" });
  expect([e.code, e.signal, e.replied, e.cell]).toEqual([0, null, true, "ok [ 2, 192 ]"]);
  expect(e.stderr).toContain("exit without teardown: the socket thread sent 1 frame(s) without a copy");
  const plain = await oneExit(undefined, { TSGPU_LOG_LEVEL: "debug" });
  expect([plain.code, plain.signal, plain.replied]).toEqual([0, null, true]);
  expect(plain.stderr).toContain("exit through Node's teardown");
}, 120000);
