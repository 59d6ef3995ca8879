/**
 * Kernelspecs for the kernel benchmarks, written into a temporary prefix
 * (never the user's folders): tsgpu from this checkout, and the peers it is
 * measured against — ipykernel (Debian's python3-ipykernel), Deno's kernel
 * and tslab, npm packages installed outside the repository — and the floor
 * (floor_kernel.ts: a kernel that only answers, the harness's own cost). Peers:
 *   mkdir -p /tmp/peers && cd /tmp/peers && npm install deno tslab
 * (TSGPU_BENCH_PEERS names another folder). A peer that cannot run is
 * reported with the reason, never measured in its place.
 */
import { spawnSync } from "child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";

export const ROOT = join(__dirname, "..", "..");
export const PY = process.env.TSGPU_BENCH_PYTHON || "/usr/bin/python3";
export const CLI = join(ROOT, "dist", "kernel", "cli.js");
const peersDir = process.env.TSGPU_BENCH_PEERS || "/tmp/peers";

export interface Run { ok: boolean; why?: string; out?: string }

/** Runs a command to completion; `why` says how it failed. */
export function run(cmd: string, args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Run {
  const r = spawnSync(cmd, args, { encoding: "utf8", env: options.env ?? process.env });
  if (r.error) return { ok: false, why: r.error.message };
  if (r.status !== 0) return { ok: false, why: `${cmd} exited ${r.status}: ${(r.stderr || r.stdout || "").trim().split("\n").pop()}` };
  return { ok: true, out: r.stdout };
}

function firstLine(r: Run): string {
  return (r.out ?? "").trim().split("\n")[0];
}

export interface Specs {
  /** The prefix holding the kernelspecs (remove it when done). */
  prefix: string;
  /** What JUPYTER_PATH must be for the harness to find them. */
  share: string;
  /** Kernel name → version line. */
  versions: Record<string, string>;
  /** Kernel name → why it is not measured. */
  unavailable: Record<string, string>;
}

/** Installs tsgpu's kernelspec and those of the peers named in `peers` that can run here. */
export function installSpecs(peers: ("floor" | "python3" | "deno" | "tslab")[]): Specs {
  if (!existsSync(CLI)) throw new Error(`expected a built kernel at ${CLI}; run \`npm run build\` first`);
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-bench-specs-"));
  const share = join(prefix, "share", "jupyter");
  const specs: Specs = { prefix, share, versions: {}, unavailable: {} };
  let r = run(process.execPath, [CLI, "install", "--prefix", prefix, "--name", "tsgpu"]);
  if (!r.ok) throw new Error(`cannot install the tsgpu kernelspec: ${r.why}`);
  specs.versions.tsgpu = firstLine(run(process.execPath, [CLI, "--version"]));

  if (peers.includes("floor")) {
    // The harness's own cost: a kernel that only answers (floor_kernel.ts).
    const dir = join(share, "kernels", "floor");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "kernel.json"), JSON.stringify({
      argv: [process.execPath, join(ROOT, "dist", "bench", "floor_kernel.js"), "{connection_file}"],
      display_name: "floor (answers only)", language: "typescript",
    }, null, 2));
    specs.versions.floor = `answers only, Node.js ${process.version}`;
  }
  if (peers.includes("python3")) {
    r = run(PY, ["-c", "import ipykernel; print('ipykernel', ipykernel.__version__)"]);
    if (r.ok) specs.versions.python3 = firstLine(r);
    else specs.unavailable.python3 = `ipykernel is not installed for ${PY} (Debian: python3-ipykernel)`;
  }
  if (peers.includes("deno")) {
    const deno = join(peersDir, "node_modules", "deno", "deno");
    if (!existsSync(deno)) specs.unavailable.deno = `${deno} not found (npm install deno in ${peersDir})`;
    else if (!(r = run(deno, ["--version"])).ok) specs.unavailable.deno = `deno does not run: ${r.why}`;
    else {
      // What `deno jupyter --install` writes, put in our prefix (deno itself always writes to the user's folder).
      const dir = join(share, "kernels", "deno");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "kernel.json"), JSON.stringify({
        argv: [deno, "jupyter", "--kernel", "--conn", "{connection_file}"], display_name: "Deno", language: "typescript",
      }, null, 2));
      specs.versions.deno = firstLine(r);
    }
  }
  if (peers.includes("tslab")) {
    const tslab = join(peersDir, "node_modules", ".bin", "tslab");
    if (!existsSync(tslab)) specs.unavailable.tslab = `${tslab} not found (npm install tslab in ${peersDir})`;
    else if (!(r = run(tslab, ["install", "--python", PY, "--binary", tslab, "--prefix", prefix])).ok) specs.unavailable.tslab = `tslab install failed: ${r.why}`;
    else specs.versions.tslab = firstLine(run(tslab, ["--version"]));
  }
  return specs;
}

/**
 * Runs a Python harness of bench/ (SCRIPT) on the kernelspecs of `specs`
 * (JUPYTER_PATH points at them; kernels keep their history in the prefix),
 * with the arguments `args()` makes (it may add kernelspecs to the prefix),
 * the specs' versions and what is unavailable, and this command's own
 * options last; then removes the prefix. Throws if it fails.
 */
export function runHarness(script: string, specs: Specs, cwd: string, args: () => string[]): void {
  try {
    const argv = [join(ROOT, "bench", script), ...args(),
      "--versions", JSON.stringify(specs.versions), "--unavailable", JSON.stringify(specs.unavailable), ...process.argv.slice(2)];
    const env = { ...process.env, JUPYTER_PATH: specs.share, TSGPU_HISTORY_FILE: join(specs.prefix, "history.jsonl") };
    const res = spawnSync(PY, argv, { stdio: "inherit", env, cwd });
    if (res.status !== 0) throw new Error(`bench/${script} exited ${res.status}`);
  } finally {
    rmSync(specs.prefix, { recursive: true, force: true });
  }
}

/** Runs a benchmark command's main; a failure is printed as `NAME: message` and sets the exit code. */
export function runMain(name: string, main: () => void): void {
  try {
    main();
  } catch (e) {
    console.error(`${name}: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}
