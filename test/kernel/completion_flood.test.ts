/**
 * A flood of completion requests, each a new program for the type checker
 * thread, must leave the kernel's memory about where it was: the checker
 * collects its garbage as it goes and once idle (checker_service.ts). Before
 * it did, 200 requests left the process 150-210 MiB larger for good.
 * A real kernel process; the assertion is on memory, not time.
 */
import { KernelClient } from "../../kernel/transport/client";
import { sleep, startKernel } from "../helpers";
import { rssBytes } from "./fuzz_lib";
import { MiB, recordResults } from "./reliability_results";

const REQUESTS = 200;
/** Most the kernel's RSS may grow over the flood (what is live stays the same; V8's pages come and go). */
const kBoundMiB = 96;

let k: KernelClient;
beforeAll(async () => { k = await startKernel({ env: { ...process.env, TSGPU_HISTORY_FILE: "none" } }); });
afterAll(async () => { await k.shutdown(); });

/** Completion at the end of `code`; whether the type checker answered it (not the runtime fallback). */
async function complete(code: string): Promise<boolean> {
  const { reply } = await k.request("complete_request", { code, cursor_pos: code.length });
  expect(reply.content.status).toBe("ok");
  return Array.isArray(reply.content.metadata?._jupyter_types_experimental);
}

test(`${REQUESTS} completion requests, each on a new text, leave the kernel's memory within ${kBoundMiB} MiB of where it was`, async () => {
  let typed = false;
  for (let i = 0; i < 60 && !typed; i++) { typed = await complete("Math.ma"); if (!typed) await sleep(1000); }
  expect(typed).toBe(true);
  for (let i = 0; i < 20; i++) await complete(`const warm${i} = ${i};\nMath.m`);
  await sleep(3000);
  const before = rssBytes(k.proc!.pid!);
  let answeredByChecker = 0;
  for (let i = 0; i < REQUESTS; i++) {
    if (await complete(`const v${i} = ${i};\nMath.${"acefilmprst"[i % 11]}`)) answeredByChecker++;
  }
  await sleep(3000);
  const after = rssBytes(k.proc!.pid!);
  recordResults("completion_flood", { requests: REQUESTS, answered_by_checker: answeredByChecker, rss_mib: { before: before / MiB, after: after / MiB }, growth_mib: (after - before) / MiB, bound_mib: kBoundMiB });
  // The flood went through the checker (a new program each), not around it.
  expect(answeredByChecker).toBeGreaterThan(REQUESTS / 2);
  expect((after - before) / MiB).toBeLessThan(kBoundMiB);
}, 300_000);
