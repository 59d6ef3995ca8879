/**
 * A flood of completion requests, each a new program for the type checker,
 * must leave the kernel's memory (its process and the checker's, which runs
 * from its startup snapshot here) about where it was: the checker collects
 * its garbage as it goes and once idle (checker_service.ts), and keeps glibc
 * from holding on to the compiler's large freed blocks (kCheckerMallocTunable
 * in checker_snapshot.ts). Before the first, 200 requests left the process
 * 150-210 MiB larger for good; before the second, 600 left the checker
 * about 200 MiB larger, most of it between the 300th and the 600th.
 * A real kernel process; the assertion is on memory, not time.
 */
import { KernelClient } from "../../../kernel/transport/client";
import { sleep, startKernel } from "../../helpers";
import { rssBytes } from "../fuzz_lib";
import { MiB, recordResults } from "../reliability_results";

const REQUESTS = 600;
/**
 * Most the kernel's and its checker's RSS may grow over the flood (what is live stays the same; V8's pages come
 * and go). Measured here: +45 to +60 MiB, most of it the checker's first few hundred programs; the regressions this
 * guards against were +200 MiB. The goal of 64 MiB over 10,000 requests is the benchmark's (npm run bench:flood):
 * on a machine shared with other test files the figure moves too much for that bound here.
 */
const kBoundMiB = 100;

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
