/**
 * `npm run bench:typed`: round trips of the 50-line typed cell (with tsgpu's
 * type checking on and off), of `1+1` and of completion, beside Deno's kernel
 * and tslab, measured in one run by one jupyter_client harness
 * (bench/typed_bench.py). Writes bench/results/typed.json and typed.md.
 *
 * Kernelspecs go into a temporary prefix (JUPYTER_PATH), never the user's.
 * The peers are npm packages installed outside the repository:
 *   mkdir -p /tmp/peers && cd /tmp/peers && npm install deno tslab
 * (TSGPU_BENCH_PEERS names another folder). A peer that is not there is
 * reported as not measured, with the reason. The cell is
 * ../shared/bench/typed_cell.ts unless TSGPU_TYPED_CELL names another file.
 * Options go to the harness (--kernels, --cells, --settle).
 */
import { spawnSync } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join, resolve } from "path";

const root = join(__dirname, "..", "..");
const PY = process.env.TSGPU_BENCH_PYTHON || "/usr/bin/python3";
const peers = process.env.TSGPU_BENCH_PEERS || "/tmp/peers";
const cli = join(root, "dist", "kernel", "cli.js");
const cell = resolve(process.env.TSGPU_TYPED_CELL || join(root, "..", "shared", "bench", "typed_cell.ts"));

function run(cmd: string, args: string[]): { ok: boolean; why?: string; out?: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.error) return { ok: false, why: r.error.message };
  if (r.status !== 0) return { ok: false, why: `${cmd} exited ${r.status}: ${(r.stderr || r.stdout || "").trim().split("\n").pop()}` };
  return { ok: true, out: r.stdout };
}

/** Writes a kernelspec that runs tsgpu with TSGPU_TYPECHECK=mode. */
function tsgpuVariant(share: string, base: Record<string, unknown>, mode: "on" | "off"): string {
  const name = `tsgpu-check-${mode}`;
  const dir = join(share, "kernels", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "kernel.json"), JSON.stringify({
    ...base, display_name: `tsgpu (type checking ${mode})`, env: { ...(base.env as object ?? {}), TSGPU_TYPECHECK: mode },
  }, null, 2));
  return name;
}

function main(): void {
  if (!existsSync(cli)) throw new Error(`expected a built kernel at ${cli}; run \`npm run build\` first`);
  if (!existsSync(cell)) throw new Error(`expected the typed cell at ${cell}; set TSGPU_TYPED_CELL to its path`);
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-typed-specs-"));
  const share = join(prefix, "share", "jupyter");
  const unavailable: Record<string, string> = {};
  const versions: Record<string, string> = {};
  const notes: Record<string, string> = {};
  try {
    let r = run(process.execPath, [cli, "install", "--prefix", prefix, "--name", "tsgpu"]);
    if (!r.ok) throw new Error(`cannot install the tsgpu kernelspec: ${r.why}`);
    const base = JSON.parse(readFileSync(join(share, "kernels", "tsgpu", "kernel.json"), "utf8"));
    for (const mode of ["on", "off"] as const) notes[tsgpuVariant(share, base, mode)] = mode === "on" ? "on (warnings)" : "off";
    versions.tsgpu = (run(process.execPath, [cli, "--version"]).out ?? "").trim();

    const deno = join(peers, "node_modules", "deno", "deno");
    notes.deno = "none";
    if (!existsSync(deno)) unavailable.deno = `${deno} not found (npm install deno in ${peers})`;
    else if (!(r = run(deno, ["--version"])).ok) unavailable.deno = `deno does not run: ${r.why}`;
    else {
      // What `deno jupyter --install` writes, put in our prefix (deno itself always writes to the user's folder).
      const dir = join(share, "kernels", "deno");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "kernel.json"), JSON.stringify({
        argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"], display_name: "Deno", language: "typescript",
      }, null, 2));
      versions.deno = (r.out ?? "").trim().split("\n")[0];
    }

    const tslab = join(peers, "node_modules", ".bin", "tslab");
    notes.tslab = "always on";
    if (!existsSync(tslab)) unavailable.tslab = `${tslab} not found (npm install tslab in ${peers})`;
    else if (!(r = run(tslab, ["install", "--python", PY, "--binary", tslab, "--prefix", prefix])).ok) unavailable.tslab = `tslab install failed: ${r.why}`;
    else versions.tslab = (run(tslab, ["--version"]).out ?? "").trim();

    const args = [join(root, "bench", "typed_bench.py"),
      "--kernels", "tsgpu-check-off,tsgpu-check-on,deno,tslab", "--cell", cell,
      "--out", join(root, "bench", "results", "typed.json"), "--md", join(root, "bench", "results", "typed.md"),
      "--versions", JSON.stringify(versions), "--unavailable", JSON.stringify(unavailable), "--notes", JSON.stringify(notes),
      ...process.argv.slice(2)];
    const env = { ...process.env, JUPYTER_PATH: share, TSGPU_HISTORY_FILE: join(prefix, "history.jsonl") };
    const res = spawnSync(PY, args, { stdio: "inherit", env, cwd: prefix });
    if (res.status !== 0) throw new Error(`bench/typed_bench.py exited ${res.status}`);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

try {
  main();
} catch (e) {
  console.error(`bench:typed: ${(e as Error).message}`);
  process.exitCode = 1;
}
