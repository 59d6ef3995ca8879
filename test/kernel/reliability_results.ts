/**
 * Where the reliability runs (fuzz, soak, OOM storm, interrupts, restarts)
 * put their figures: when TSGPU_RELIABILITY_RESULTS names a JSON file, each
 * run merges its section into it (bench/results/reliability.json is made
 * this way); otherwise nothing is written.
 */
import { existsSync, readFileSync, writeFileSync } from "fs";
import { cpus } from "os";

export function recordResults(section: string, figures: Record<string, unknown>): void {
  const file = process.env.TSGPU_RELIABILITY_RESULTS;
  if (!file) return;
  const all = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  all.machine = { cpus: cpus().length, cpu: cpus()[0]?.model, node: process.version };
  all[section] = { ...figures, measured: new Date().toISOString() };
  writeFileSync(file, JSON.stringify(all, null, 2) + "\n");
}

export const MiB = 1 << 20;
