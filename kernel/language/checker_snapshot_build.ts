/**
 * The background build of the checker's startup snapshot, started by
 * requestCheckerSnapshot (checker_snapshot.ts) as a process of its own:
 * builds it, then removes the build lock. Its description comes in
 * TSGPU_CHECKER_BUILD_JOB (JSON: setup, file, lock).
 */
import { rmSync, writeFileSync } from "fs";
import { buildCheckerSnapshot } from "./checker_snapshot";

const job = JSON.parse(process.env.TSGPU_CHECKER_BUILD_JOB ?? "null");
if (!job) {
  process.stderr.write("tsgpu: the checker snapshot build is started by the kernel only (TSGPU_CHECKER_BUILD_JOB)\n");
  process.exit(2);
}
try {
  buildCheckerSnapshot(job.setup, job.file);
} catch (e) {
  // Keep why beside the lock's place, for whoever looks at the cache folder.
  try { writeFileSync(`${job.file}.error`, `${(e as Error).message}\n`, { mode: 0o600 }); } catch { /* read-only cache */ }
  process.exitCode = 1;
} finally {
  rmSync(job.lock, { force: true });
}
