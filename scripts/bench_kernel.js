#!/usr/bin/env node
// `npm run bench:kernel`: start time and execute round trip of tsgpu beside
// ipykernel, Deno's kernel and tslab, measured in one run by the same
// jupyter_client harness (bench/kernel_bench.py). Writes
// bench/results/kernel.json and bench/results/kernel.md.
//
// Kernelspecs go into a temporary prefix (JUPYTER_PATH), never the user's.
// The peers are npm packages installed outside the repository:
//   mkdir -p /tmp/peers && cd /tmp/peers && npm install deno tslab
// (TSGPU_BENCH_PEERS names another folder). A peer that is not there is
// reported as not measured, with the reason.
//
// Options are passed on to the harness: --kernels, --starts, --cells, --code.
"use strict";
const { spawnSync } = require("child_process");
const { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } = require("fs");
const { tmpdir } = require("os");
const { join } = require("path");

const root = join(__dirname, "..");
const PY = process.env.TSGPU_BENCH_PYTHON || "/usr/bin/python3";
const peers = process.env.TSGPU_BENCH_PEERS || "/tmp/peers";
const cli = join(root, "dist", "kernel", "cli.js");

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...opts });
  if (r.error) return { ok: false, why: r.error.message };
  if (r.status !== 0) return { ok: false, why: `${cmd} exited ${r.status}: ${(r.stderr || r.stdout || "").trim().split("\n").pop()}` };
  return { ok: true, out: r.stdout };
}

function main() {
  if (!existsSync(cli)) throw new Error(`expected a built kernel at ${cli}; run \`npm run build\` first`);
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-bench-specs-"));
  const share = join(prefix, "share", "jupyter");
  const unavailable = {};
  const versions = { tsgpu: [process.execPath, cli, "--version"], python3: [PY, "-c", "import ipykernel; print('ipykernel', ipykernel.__version__)"] };
  try {
    let r = run(process.execPath, [cli, "install", "--prefix", prefix, "--name", "tsgpu"]);
    if (!r.ok) throw new Error(`cannot install the tsgpu kernelspec: ${r.why}`);

    if (!run(PY, ["-c", "import ipykernel"]).ok) unavailable.python3 = `ipykernel is not installed for ${PY} (Debian: python3-ipykernel)`;

    const deno = join(peers, "node_modules", "deno", "deno");
    if (!existsSync(deno)) unavailable.deno = `${deno} not found (npm install deno in ${peers})`;
    else if (!(r = run(deno, ["--version"])).ok) unavailable.deno = `deno does not run: ${r.why}`;
    else {
      // What `deno jupyter --install` writes, put in our prefix (deno itself always writes to the user's folder).
      const dir = join(share, "kernels", "deno");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "kernel.json"), JSON.stringify({
        argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"], display_name: "Deno", language: "typescript",
      }, null, 2));
      versions.deno = [deno, "--version"];
    }

    const tslab = join(peers, "node_modules", ".bin", "tslab");
    if (!existsSync(tslab)) unavailable.tslab = `${tslab} not found (npm install tslab in ${peers})`;
    else if (!(r = run(tslab, ["install", "--python", PY, "--binary", tslab, "--prefix", prefix])).ok) unavailable.tslab = `tslab install failed: ${r.why}`;
    else versions.tslab = [tslab, "--version"];

    const args = [join(root, "bench", "kernel_bench.py"),
      "--out", join(root, "bench", "results", "kernel.json"), "--md", join(root, "bench", "results", "kernel.md"),
      "--versions", JSON.stringify(versions), "--unavailable", JSON.stringify(unavailable), ...process.argv.slice(2)];
    const env = { ...process.env, JUPYTER_PATH: share, TSGPU_HISTORY_FILE: join(prefix, "history.jsonl") };
    const res = spawnSync(PY, args, { stdio: "inherit", env, cwd: root });
    if (res.status !== 0) throw new Error(`bench/kernel_bench.py exited ${res.status}`);
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
}

try {
  main();
} catch (e) {
  console.error(`bench:kernel: ${e.message}`);
  process.exitCode = 1;
}
