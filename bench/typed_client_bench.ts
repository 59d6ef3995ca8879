/**
 * The typed-cell figures of bench:typed for tsgpu alone, through the kernel's
 * own Jupyter client (kernel/transport/client.ts) instead of jupyter_client:
 * for machines without Python's Jupyter packages (the GPU machine).
 *
 *   node dist/bench/typed_client_bench.js [--cells 510] [--out FILE.json] [--md FILE.md]
 *
 * Same series as bench/typed_bench.py: after a warm-up, the typed cell --cells
 * times (median of cells 11..210, cells 5..15 against 495..505), `1+1` 210
 * times, and 100 completions of `v0.na`, each with type checking on and off.
 */
import { readFileSync, writeFileSync } from "fs";
import { cpus, tmpdir } from "os";
import { join, resolve } from "path";
import { mkdtempSync, rmSync } from "fs";
import { KernelClient } from "../kernel/transport/client";

const root = join(__dirname, "..", "..");
const cli = join(root, "dist", "kernel", "cli.js");
const cellFile = resolve(process.env.TSGPU_TYPED_CELL || join(root, "..", "shared", "bench", "typed_cell.ts"));

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const window = (xs: number[], center: number) => median(xs.slice(Math.max(0, center - 6), center + 5));
const round = (v: number) => Math.round(v * 1000) / 1000;

async function cells(k: KernelClient, code: string, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const { reply } = await k.execute(code);
    out.push(performance.now() - t0);
    if (reply.content.status !== "ok") throw new Error(`cell ${i + 1}: ${reply.content.ename}: ${reply.content.evalue}`);
  }
  return out;
}

async function measure(mode: "on" | "off", typed: string, n: number, dir: string) {
  const k = await KernelClient.start({
    argv: [process.execPath, cli, "kernel", "{connection_file}"], cwd: dir,
    env: { ...process.env, TSGPU_TYPECHECK: mode, TSGPU_HISTORY_FILE: join(dir, "history.jsonl") },
  });
  try {
    await cells(k, "1+1", 3);
    await cells(k, typed, 1);
    await new Promise((r) => setTimeout(r, 5000));
    const series = await cells(k, typed, n);
    const one = await cells(k, "1+1", 210);
    const complete: number[] = [];
    let found = true;
    for (let i = 0; i < 100; i++) {
      const t0 = performance.now();
      const { reply } = await k.request("complete_request", { code: "v0.na", cursor_pos: 5 });
      complete.push(performance.now() - t0);
      found &&= (reply.content.matches as string[]).includes("name");
    }
    const c10 = window(series, 10);
    const c500 = n >= 505 ? window(series, 500) : null;
    return {
      typed_ms: round(median(series.slice(10, 210))), cell10_ms: round(c10), cell500_ms: c500 === null ? null : round(c500),
      growth_500_vs_10: c500 === null ? null : Math.round((c500 / c10) * 100) / 100,
      one_ms: round(median(one.slice(10))), complete_ms: round(median(complete)), complete_found: found,
    };
  } finally {
    await k.shutdown();
  }
}

function markdown(r: Record<string, any>): string {
  const f = (v: number | null) => (v === null ? "—" : v.toFixed(2));
  const rows = Object.entries(r.kernels as Record<string, any>).map(([name, k]) =>
    `| ${name} | ${f(k.typed_ms)} | ${f(k.cell10_ms)} | ${f(k.cell500_ms)} | ${f(k.growth_500_vs_10)} | ${f(k.one_ms)} | ${f(k.complete_ms)} | ${k.complete_found ? "yes" : "no"} |`);
  return [
    `Typed cells through the kernel's own client, ${r.date} on ${r.machine.cpu} (${r.machine.cores} cores), Node ${r.machine.node}; ` +
      `the 50-line typed cell run ${r.cells} times in one session.`,
    "",
    "| kernel | typed cell RTT (ms, median) | cell 10 | cell 500 | 500 / 10 | `1+1` RTT | completion RTT | completion found `name` |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ...rows,
    "",
    "Goals: typed cell ≤ 3 ms with checking off, ≤ 25 ms with checking on; completion ≤ 25 ms; cell 500 ≤ 1.2 × cell 10.",
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const typed = readFileSync(cellFile, "utf8");
  const n = Number(arg("cells", "510"));
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-typed-"));
  const result: Record<string, unknown> = {
    date: new Date().toISOString().slice(0, 10), client: "tsgpu KernelClient (kernel/transport/client.ts)",
    machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version }, cells: n, kernels: {},
  };
  try {
    for (const mode of ["off", "on"] as const) {
      (result.kernels as Record<string, unknown>)[`tsgpu-check-${mode}`] = await measure(mode, typed, n, dir);
      console.log(mode, JSON.stringify((result.kernels as Record<string, unknown>)[`tsgpu-check-${mode}`]));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const out = arg("out", "");
  if (out) writeFileSync(out, JSON.stringify(result, null, 2));
  const md = arg("md", "");
  if (md) writeFileSync(md, markdown(result));
  console.log(JSON.stringify(result, null, 2));
}

main().catch((e) => { console.error(`typed_client_bench: ${(e as Error).message}`); process.exitCode = 1; });
