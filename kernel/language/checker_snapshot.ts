/**
 * The kernel's side of the checker's startup snapshot (see
 * checker_snapshot_entry.ts): where the snapshot lives, building it, and
 * starting a checker process from it.
 *
 * Parsing and binding the libraries a cell is checked against (about 3 MB of
 * declarations, most of them @types/node) costs about 1.5 s of CPU; a
 * process started from a snapshot of the parsed files is ready in about a
 * quarter of that, so a kernel's first cell gets its type warnings sooner.
 * The snapshot belongs to one Node binary and one build of the kernel; it is
 * kept in the cache folder under a name made of both, built once per machine
 * (by `tsgpu install`, or in the background by the first kernel that finds
 * none, which meanwhile checks on a worker thread as before; a build that
 * failed leaves FILE.error saying why, and is not tried again).
 * TSGPU_CHECKER_SNAPSHOT=0 turns snapshots off.
 */
import { ChildProcess, spawn, spawnSync } from "child_process";
import { createHash } from "crypto";
import {
  chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync,
  unlinkSync, writeFileSync,
} from "fs";
import { setPriority, tmpdir } from "os";
import { basename, join } from "path";
import { cacheDir } from "./code_cache";
import type { ProjectSetup } from "./project";
import type { SnapshotBuild } from "./checker_protocol";

/**
 * Node's options for the checker process, the same when the snapshot is
 * built and when it is started (Node refuses a snapshot made under other
 * V8 options). A large young generation, large from the start: each cell
 * builds a new type checker, and scavenges dominate otherwise (starting at
 * V8's 1 MB, the first program alone took about 0.015 s more, most of it in
 * scavenges, measured on Node 20). No rehashing of the snapshot's
 * strings at start (about 0.03 s of the 0.25 s its loading costs): the
 * process keeps the hash seed its snapshot was built with, random once per
 * build instead of once per process, which matters little for a process
 * that hashes only the user's own cells. No memory reducer: V8 runs it on
 * a heap whose allocation rate falls, as this one's does when cells stop
 * reaching it, and each of its rounds (two or three full collections, 8 s
 * after a collection and again later) marked the ~75 MiB of parsed
 * libraries for 0.2-0.5 s of CPU while the checker had nothing to do; the
 * checker collects its own garbage (checker_service.ts).
 */
const kCheckerNodeFlags = ["--max-semi-space-size=32", "--min-semi-space-size=16", "--no-rehash-snapshot", "--no-memory-reducer"];
/** The compiled modules the snapshot holds: a change to one makes a new snapshot. */
const kSnapshotModules = ["checker_snapshot_entry.js", "checker_service.js", "cell_language.js", "project.js", "prelude.js", "matching.js"];
/** A build lock older than this is left from a build that died. */
const kStaleLockMs = 5 * 60_000;
/** Snapshots kept in a cache folder (the newest; see pruneSnapshots). */
const kSnapshotsKept = 3;
/** Lowest scheduling priority: a background build must not slow the user's cells. */
const kBuildNice = 19;

/** Whether checker snapshots are used and built (TSGPU_CHECKER_SNAPSHOT=0: not). */
export function snapshotsEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.TSGPU_CHECKER_SNAPSHOT !== "0";
}

/**
 * The snapshot file for this Node, this kernel build and this setup's libraries, in the cache folder:
 * checker-VERSION-BUILD.snapshot, VERSION naming the Node, the kernel's folder (and its declarations') and its package version
 * (rebuilds of one version share it: a new one replaces the older), BUILD the compiled files and libraries.
 */
export function checkerSnapshotFile(setup: ProjectSetup, dir = cacheDir()): string {
  let version = "";
  try { version = JSON.parse(readFileSync(join(setup.kernelRoot, "package.json"), "utf8")).version; } catch { /* none: the folder names it */ }
  const v = createHash("sha256").update([process.execPath, process.version, process.arch, setup.kernelRoot, setup.runtimeTypes, version].join("\0"));
  const h = createHash("sha256");
  h.update([process.execPath, process.version, process.arch, ...kCheckerNodeFlags, setup.kernelRoot, setup.runtimeTypes, setup.ambient].join("\0"));
  for (const file of [...kSnapshotModules.map((m) => join(__dirname, m)), require.resolve("typescript")]) {
    const s = statSync(file);
    h.update(`\0${file}\0${s.size}\0${s.mtimeMs}`);
  }
  return join(dir, `checker-${v.digest("hex").slice(0, 12)}-${h.digest("hex").slice(0, 24)}.snapshot`);
}

/**
 * glibc's malloc setting for the checker's processes. V8 compiles the
 * compiler's hottest functions with zones of tens of MiB from malloc; glibc
 * raises its mmap threshold to the largest block freed (up to 32 MiB), so
 * later zones come from the heap, whose freed pages it keeps: a flood of
 * completion requests left the checker 205 MiB larger for good (its V8 heap
 * stayed at 78 MiB live). A fixed threshold of 128 KiB (glibc's default
 * start) keeps large blocks in mappings of their own, returned when freed:
 * +57 MiB over the same flood. kernel/launch/early_checker.c sets the same.
 */
export const kCheckerMallocTunable = "glibc.malloc.mmap_threshold=131072";

/** GLIBC_TUNABLES with the checker's malloc setting added (unless the user set a threshold of their own). */
export function checkerTunables(current: string | undefined): string {
  if (!current) return kCheckerMallocTunable;
  return current.includes("glibc.malloc.mmap_threshold=") ? current : `${current}:${kCheckerMallocTunable}`;
}

/** Node's environment for the checker's processes: NODE_OPTIONS could change V8's options, so it is left out. */
function checkerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, GLIBC_TUNABLES: checkerTunables(process.env.GLIBC_TUNABLES) };
  delete env.NODE_OPTIONS;
  return env;
}

/**
 * Builds the snapshot for `setup` into `file` (written under a temporary
 * name, then renamed, so a reader sees the whole file or none). Throws with
 * Node's output when the build fails.
 */
export function buildCheckerSnapshot(setup: ProjectSetup, file: string): void {
  mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
  const folder = mkdtempSync(join(tmpdir(), "tsgpu-snapshot-"));
  const partial = `${file}.${process.pid}.tmp`;
  try {
    const build: SnapshotBuild = { setup: { ...setup, cwd: folder }, distDir: __dirname, typescriptFile: require.resolve("typescript") };
    const r = spawnSync(process.execPath,
      [...kCheckerNodeFlags, "--no-warnings", "--snapshot-blob", partial, "--build-snapshot", join(__dirname, "checker_snapshot_entry.js")],
      { cwd: folder, env: checkerEnv({ TSGPU_CHECKER_BUILD: JSON.stringify(build) }), encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    if (r.status !== 0 || !existsSync(partial)) {
      const why = r.error ? r.error.message : `exit code ${r.status}${r.signal ? `, signal ${r.signal}` : ""}`;
      throw new Error(`building the checker snapshot ${file} failed (${why}): ${(r.stderr || r.stdout || "").trim().slice(-2000)}`);
    }
    chmodSync(partial, 0o600);
    renameSync(partial, file);
    pruneSnapshots(join(file, ".."), file);
  } finally {
    rmSync(partial, { force: true });
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * After `kept` was written: removes the other snapshots of its version (earlier builds of the same
 * version of the kernel under the same Node), then all but the kSnapshotsKept newest snapshots in the
 * cache folder (each is about 45 MB; a machine where the kernel is rebuilt would otherwise keep every one).
 */
function pruneSnapshots(dir: string, kept: string): void {
  try {
    const version = /^(checker-[0-9a-f]{12}-)[0-9a-f]{24}\.snapshot$/.exec(basename(kept))?.[1];
    const found = readdirSync(dir).filter((f) => /^checker-([0-9a-f]{12}-)?[0-9a-f]{24}\.snapshot$/.test(f))
      .map((f) => ({ name: f, path: join(dir, f), mtime: statSync(join(dir, f)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    const sameVersion = found.filter((f) => version && f.name.startsWith(version) && f.path !== kept);
    for (const old of sameVersion) rmSync(old.path, { force: true });
    const rest = found.filter((f) => !sameVersion.includes(f));
    for (const old of rest.slice(kSnapshotsKept)) rmSync(old.path, { force: true });
  } catch { /* another process pruned or built meanwhile: nothing to do */ }
}

/**
 * Builds the snapshot for `setup` unless it is there already (what
 * `tsgpu install` does, so that the first kernel finds it). Returns the file
 * and the milliseconds the build took (0: it was there).
 */
export function ensureCheckerSnapshot(setup: ProjectSetup, file = checkerSnapshotFile(setup)): { file: string; ms: number } {
  if (existsSync(file)) return { file, ms: 0 };
  const t0 = Date.now();
  buildCheckerSnapshot(setup, file);
  rmSync(`${file}.error`, { force: true });
  return { file, ms: Date.now() - t0 };
}

/**
 * Starts building the snapshot in a background process at the lowest
 * priority, unless one is being built already (a lock file beside it says
 * so). The process outlives the kernel if need be; it never writes a
 * partial snapshot under the final name.
 */
export function requestCheckerSnapshot(setup: ProjectSetup, file: string, log: (text: string) => void): void {
  const lock = `${file}.lock`;
  // A build that failed for this kernel and Node says why in FILE.error: it is not tried again.
  if (existsSync(`${file}.error`)) return;
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    try {
      if (Date.now() - statSync(lock).mtimeMs > kStaleLockMs) unlinkSync(lock);
    } catch { /* no lock */ }
    closeSync(openSync(lock, "wx", 0o600));
  } catch {
    return; // being built, or the cache folder cannot be written: check on the thread
  }
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [join(__dirname, "checker_snapshot_build.js")], {
      detached: true, stdio: "ignore",
      env: checkerEnv({ TSGPU_CHECKER_BUILD_JOB: JSON.stringify({ setup, file, lock }) }),
    });
  } catch (e) {
    rmSync(lock, { force: true });
    log(`cannot start building the checker snapshot: ${(e as Error).message}`);
    return;
  }
  child.on("error", (e) => { rmSync(lock, { force: true }); log(`cannot start building the checker snapshot: ${e.message}`); });
  try { if (child.pid) setPriority(child.pid, kBuildNice); } catch { /* best effort */ }
  child.unref();
}

/** Node's arguments that start a checker process from the snapshot `file`. */
function checkerArgs(file: string): string[] {
  return [...kCheckerNodeFlags, "--snapshot-blob", file];
}

/** Starts a checker process from the snapshot `file`, for `setup`'s folder; it talks over its IPC channel. */
export function startCheckerProcess(setup: ProjectSetup, file: string): ChildProcess {
  return spawn(process.execPath, checkerArgs(file), {
    cwd: setup.cwd,
    env: checkerEnv({ TSGPU_CHECKER_SETUP: JSON.stringify(setup) }),
    stdio: ["ignore", "ignore", "pipe", "ipc"],
    serialization: "json",
  });
}

/*
 * The launcher's start of the checker (kernel/launch/early_checker.c,
 * `tsgpu-launch --checker KEY`, the command of the Enterprise Gateway
 * kernelspecs): the kernel writes the command it starts a checker with to a
 * start file, the launcher of the next kernel starts that command before
 * Node.js boots, and that kernel takes the process over (checker_channel.ts)
 * when it is the one it would have started.
 */

/** The first field of a start file, and its version. */
const kStartMagic = "tsgpu-checker-start 1";

/** The key of an installation's start file: the kernelspec passes it to the launcher. */
export function checkerStartKey(kernelRoot: string): string {
  return createHash("sha256").update(kernelRoot).digest("hex").slice(0, 16);
}

/** The start file for `key` in the cache folder. */
export function checkerStartFile(key: string, dir = cacheDir()): string {
  return join(dir, `checker-start-${key}`);
}

/**
 * Writes the start file of `setup`'s installation for the snapshot `file`
 * (NUL-terminated fields: the magic, the snapshot, the setup as JSON without
 * its cwd, then the command), unless it holds that already. Never throws: a
 * cache folder that cannot be written only means that launchers start no
 * checker.
 */
export function writeCheckerStart(setup: ProjectSetup, file: string, dir = cacheDir()): void {
  const { cwd: _cwd, ...rest } = setup;
  const text = [kStartMagic, file, JSON.stringify(rest), process.execPath, ...checkerArgs(file)].map((f) => `${f}\0`).join("");
  const target = checkerStartFile(checkerStartKey(setup.kernelRoot), dir);
  try {
    if (readFileSync(target, "utf8") === text) return;
  } catch { /* none yet */ }
  const partial = `${target}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(partial, text, { mode: 0o600 });
    renameSync(partial, target);
  } catch {
    rmSync(partial, { force: true });
  }
}

/** A checker process the launcher started (TSGPU_EARLY_CHECKER): its pid, the kernel's ends of its channel and stderr. */
export interface LaunchedChecker { pid: number; ipcFd: number; stderrFd: number; snapshot: string }

/**
 * The checker the launcher started, if it did; the variable is removed so
 * that no process of the kernel's inherits it. Malformed: none.
 */
export function takeLaunchedChecker(env: NodeJS.ProcessEnv = process.env): LaunchedChecker | undefined {
  const text = env.TSGPU_EARLY_CHECKER;
  delete env.TSGPU_EARLY_CHECKER;
  const m = /^pid=(\d+);ipc=(\d+);stderr=(\d+);snapshot=(.+)$/s.exec(text ?? "");
  if (!m) return undefined;
  return { pid: Number(m[1]), ipcFd: Number(m[2]), stderrFd: Number(m[3]), snapshot: m[4] };
}
