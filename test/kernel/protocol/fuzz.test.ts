/**
 * Malformed input, at volume: 100,000 random and mutated multipart messages
 * (see fuzz_lib.ts) on shell, control and stdin of one running kernel. After
 * them the kernel answers kernel_info, runs a cell correctly, and its memory
 * has stopped growing: the resident set, measured after a warm-up of 10,000
 * messages, after 50,000 and after 100,000, grows by less than 50 MiB, and
 * by less than 25 MiB between the last two (the figure moves by about
 * ±15 MiB between samples, with the garbage collectors of three threads).
 */
import { KernelClient } from "../../../kernel/transport/client";
import { ofType, sleep, startKernel } from "../../helpers";
import { rssBytes, runFuzz } from "../fuzz_lib";
import { MiB, recordResults } from "../reliability_results";
import { kDropIntervalMs, kFullDropsPerInterval } from "../../../kernel/protocol/drop_log";

const TOTAL = 100_000;
const WARMUP = 10_000;
/**
 * Where the 64 MiB frames come (each takes a while to send and check): one of
 * each form within the warm-up (the first of each raises the process's
 * high-water mark once), then more of them later, which must not.
 */
const HUGE_AT = [2000, 4000, 6000, 40_000, 70_000, 95_000];

let k: KernelClient;
beforeAll(async () => { k = await startKernel({ env: { ...process.env, TSGPU_HISTORY_FILE: "none" } }); });
afterAll(async () => { await k.shutdown(); });

test("100,000 malformed messages: nothing breaks, memory stops growing", async () => {
  await k.execute("const before = 6;");
  // The type checker (a process from its snapshot, or a thread) loads in the background after start (~150 MiB): let it finish first.
  await k.request("complete_request", { code: "Math.ma", cursor_pos: 7 });
  await sleep(5000);
  // Memory is measured once the kernel has answered a request and collected its garbage.
  const settle = async () => {
    await k.request("kernel_info_request", {});
    await k.execute("gc()", { silent: true, store_history: false });
    await sleep(300);
  };
  await settle();
  const fresh = rssBytes(k.proc!.pid!);
  const run = await runFuzz(k, 20261201, TOTAL, HUGE_AT, [WARMUP, TOTAL / 2, TOTAL], settle);
  const at = (n: number) => run.rss.find((r) => r.after === n)!.bytes;
  const info = await k.request("kernel_info_request", {});
  expect(info.reply.content).toMatchObject({ status: "ok", implementation: "tsgpu" });
  const { reply, outputs } = await k.execute("before * 7");
  expect(reply.content.status).toBe("ok");
  expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("42");
  // Every kind of malformation was sent.
  for (const kind of ["random frames", "no delimiter", "too few frames", "bad signature", "not JSON", "invalid UTF-8",
    "huge JSON", "wrong header types", "unknown msg_type", "wrong content types", "64 MiB frame"]) {
    expect([kind, run.counts[kind] > 0]).toEqual([kind, true]);
  }
  const figures = {
    messages: TOTAL, huge_frames_64mib: HUGE_AT.length, seconds: run.seconds, counts: run.counts,
    rss_mib: { fresh: fresh / MiB, after_warmup: at(WARMUP) / MiB, after_50k: at(TOTAL / 2) / MiB, after_100k: at(TOTAL) / MiB },
    growth_after_warmup_mib: { at_50k: (at(TOTAL / 2) - at(WARMUP)) / MiB, at_100k: (at(TOTAL) - at(WARMUP)) / MiB },
    growth_50k_to_100k_mib: (at(TOTAL) - at(TOTAL / 2)) / MiB,
    stderr_lines: k.stderr.split("\n").length,
  };
  recordResults("fuzz", figures);
  expect(at(TOTAL / 2) - at(WARMUP)).toBeLessThan(50 * MiB);
  expect(at(TOTAL) - at(WARMUP)).toBeLessThan(50 * MiB);
  expect(at(TOTAL) - at(TOTAL / 2)).toBeLessThan(25 * MiB);
  // The drop log stays short: per interval, each of its two logs (the socket thread's, the main thread's) writes
  // at most its full entries and one summary line, whatever the number of messages. The bound follows the run's
  // length (about 200 s idle, 500 s on a loaded machine), with room for the kernel's other lines.
  const intervals = Math.ceil((run.seconds * 1000) / kDropIntervalMs) + 1;
  expect(figures.stderr_lines).toBeLessThan(2 * (kFullDropsPerInterval + 1) * intervals + 50);
}, 600_000);
