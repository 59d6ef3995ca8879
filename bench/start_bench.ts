/**
 * `npm run bench:start`: start, first cell and restart time of tsgpu beside
 * Deno's kernel and tslab, in one run through jupyter_client (bench/start_bench.py). Writes
 * bench/results/start.json and bench/results/start.md. Kernelspecs and the
 * Deno peer: see peers.ts. Options go on to the harness: --rounds, --restarts.
 */
import { join } from "path";
import { installSpecs, ROOT, runHarness, runMain } from "./peers";

runMain("bench:start", () => {
  const specs = installSpecs(["deno", "tslab"]);
  runHarness("start_bench.py", specs, ROOT, () => [
    "--out", join(ROOT, "bench", "results", "start.json"), "--md", join(ROOT, "bench", "results", "start.md"),
  ]);
});
