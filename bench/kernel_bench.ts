/**
 * `npm run bench:kernel`: start time and execute round trip of tsgpu beside
 * ipykernel, Deno's kernel and tslab, measured in one run by the same
 * jupyter_client harness (bench/kernel_bench.py). Writes
 * bench/results/kernel.json and bench/results/kernel.md. Kernelspecs and
 * peers: see peers.ts. Options are passed on to the harness: --kernels,
 * --starts, --cells, --code.
 */
import { join } from "path";
import { installSpecs, ROOT, runHarness, runMain } from "./peers";

runMain("bench:kernel", () => {
  const specs = installSpecs(["floor", "python3", "deno", "tslab"]);
  runHarness("kernel_bench.py", specs, ROOT, () => [
    "--out", join(ROOT, "bench", "results", "kernel.json"), "--md", join(ROOT, "bench", "results", "kernel.md"),
  ]);
});
