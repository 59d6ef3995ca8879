/**
 * `npm run bench:kernel`: start time and execute round trip of tsgpu beside
 * ipykernel, Deno's kernel and tslab, measured in one run by the same
 * jupyter_client harness (bench/kernel_bench.py). Writes
 * bench/results/kernel.json and bench/results/kernel.md. Kernelspecs and
 * peers: see peers.ts. Options are passed on to the harness: --kernels,
 * --starts, --cells, --code.
 */
import { spawnSync } from "child_process";
import { rmSync } from "fs";
import { join } from "path";
import { installSpecs, PY, ROOT } from "./peers";

function main(): void {
  const { prefix, share, versions, unavailable } = installSpecs(["floor", "python3", "deno", "tslab"]);
  try {
    const args = [join(ROOT, "bench", "kernel_bench.py"),
      "--out", join(ROOT, "bench", "results", "kernel.json"), "--md", join(ROOT, "bench", "results", "kernel.md"),
      "--versions", JSON.stringify(versions), "--unavailable", JSON.stringify(unavailable), ...process.argv.slice(2)];
    const env = { ...process.env, JUPYTER_PATH: share, TSGPU_HISTORY_FILE: join(prefix, "history.jsonl") };
    const res = spawnSync(PY, args, { stdio: "inherit", env, cwd: ROOT });
    if (res.status !== 0) throw new Error(`bench/kernel_bench.py exited ${res.status}`);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

try {
  main();
} catch (e) {
  console.error(`bench:kernel: ${(e as Error).message}`);
  process.exitCode = 1;
}
