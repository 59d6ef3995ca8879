/**
 * The type checker started from its startup snapshot: a process of its own
 * (not the kernel's), answering as the checker thread does; a library file
 * changed since the build is read again (and the snapshot is marked stale);
 * a damaged snapshot falls back to the thread; the process ends with the
 * kernel's. Real snapshots, built here with Node's --build-snapshot.
 */
import { spawn } from "child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { TypeChecker, checkerSetup } from "../../../kernel/language/checker";
import { processChannel } from "../../../kernel/language/checker_channel";
import { buildCheckerSnapshot, checkerSnapshotFile, ensureCheckerSnapshot } from "../../../kernel/language/checker_snapshot";
import type { CheckerReply } from "../../../kernel/language/checker_protocol";
import { ROOT, sleep } from "../../helpers";
import { notebookFolder } from "../engine_helpers";

jest.setTimeout(180000);

const TS2322 = "Type 'string' is not assignable to type 'number'.";

let folder: ReturnType<typeof notebookFolder>;
let cache: string;
let savedCacheDir: string | undefined;
beforeAll(() => {
  folder = notebookFolder();
  cache = mkdtempSync(join(tmpdir(), "tsgpu-snapshot-cache-"));
  savedCacheDir = process.env.TSGPU_CACHE_DIR;
  process.env.TSGPU_CACHE_DIR = cache;
});
afterAll(() => {
  if (savedCacheDir === undefined) delete process.env.TSGPU_CACHE_DIR;
  else process.env.TSGPU_CACHE_DIR = savedCacheDir;
  rmSync(cache, { recursive: true, force: true });
  folder.remove();
});

/** Whether a process runs (an exited one not yet reaped is not). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
}

/** The checker's channel and its process id, as TypeChecker holds them. */
function channelOf(c: TypeChecker): { kind: string; pid: number | undefined } {
  return (c as unknown as { channel: { kind: string; pid: number | undefined } }).channel;
}

test("with a snapshot, the checker is a process of its own and gives a cell's diagnostics, completions and types", async () => {
  // Snapshots of earlier builds: a new one leaves the two newest of them.
  const older = [1, 2, 3, 4].map((i) => join(cache, `checker-${String(i).repeat(24)}.snapshot`));
  older.forEach((f, i) => { writeFileSync(f, "an earlier build's"); utimesSync(f, new Date(), new Date(Date.now() - (i + 1) * 60_000)); });
  const { file, ms } = ensureCheckerSnapshot(checkerSetup(folder.dir));
  expect(ms).toBeGreaterThan(0);
  expect(existsSync(file)).toBe(true);
  expect(file.startsWith(cache)).toBe(true);
  expect(older.map((f) => existsSync(f))).toEqual([true, true, false, false]);
  // Built once: a second call finds it.
  expect(ensureCheckerSnapshot(checkerSetup(folder.dir)).ms).toBe(0);

  const checker = new TypeChecker();
  checker.mode = "on";
  checker.start(folder.dir);
  const channel = channelOf(checker);
  expect(channel.kind).toBe("process");
  expect(channel.pid).not.toBe(process.pid);
  try {
    const first = checker.analyze('const s: number = "hello";');
    const diags = await first.diagnostics;
    expect(diags.map((d) => [d.line, d.column, d.code, d.message])).toEqual([[1, 7, 2322, TS2322]]);
    checker.commit(first.seq);
    // Later cells see the first cell's declarations, and the runtime's and Node's types.
    const second = checker.analyze("const n: string = s.length; const t = torch.zeros([2]); process.env.HOME;");
    expect((await second.diagnostics).map((d) => d.code)).toEqual([2339]);
    const completion = await checker.complete("torch.zer", 9, 30000);
    expect(completion?.matches.map((m) => m.name)).toContain("zeros");
    const info = await checker.inspect("torch.zeros", 8, 30000);
    expect(info?.signature).toMatch(/function zeros\(\.\.\.size: SizeAndOptions\): Tensor/);
  } finally {
    await checker.stop();
  }
  await until(() => !alive(channel.pid!), 5000, `the checker process ${channel.pid} to end after stop()`);
});

test("a library file changed since the build is read again, and the snapshot is reported stale", async () => {
  // A copy of the runtime's declarations, so that one of them can change.
  const types = mkdtempSync(join(tmpdir(), "tsgpu-snapshot-types-"));
  try {
    cpSync(join(ROOT, "dist", "native"), types, { recursive: true, filter: (f) => !f.endsWith(".js") && !f.endsWith(".map") });
    const setup = { ...checkerSetup(folder.dir), runtimeTypes: types };
    const file = checkerSnapshotFile(setup);
    buildCheckerSnapshot(setup, file);
    const index = join(types, "index.d.ts");
    writeFileSync(index, `${readFileSync(index, "utf8")}\nexport declare const addedSinceTheBuild: string;\n`);
    utimesSync(index, new Date(), new Date(Date.now() + 5000));

    const replies: CheckerReply[] = [];
    let failed: string | undefined;
    const channel = processChannel(setup, file, { message: (m) => replies.push(m), failed: (r) => { failed = r; } });
    try {
      channel.post({ kind: "analyze", id: 1, seq: 1, code: "const n: number = torch.addedSinceTheBuild;", withDiagnostics: true });
      await until(() => replies.some((m) => m.kind === "diagnostics") || failed !== undefined, 120000, "the diagnostics");
      expect(failed).toBeUndefined();
      expect(replies.find((m) => m.kind === "snapshot")).toEqual({ kind: "snapshot", stale: true });
      const d = replies.find((m) => m.kind === "diagnostics");
      expect(d?.kind === "diagnostics" && d.diagnostics.map((x) => x.message)).toEqual([TS2322]);
    } finally {
      await channel.terminate();
    }
  } finally {
    rmSync(types, { recursive: true, force: true });
  }
});

test("a damaged snapshot is removed and the checker runs on a thread instead", async () => {
  const file = checkerSnapshotFile(checkerSetup(folder.dir));
  const saved = readFileSync(file);
  writeFileSync(file, "not a snapshot");
  const logs: string[] = [];
  const checker = new TypeChecker((t) => logs.push(t));
  checker.mode = "on";
  try {
    checker.start(folder.dir);
    const check = checker.analyze('const s: number = "hello";');
    expect((await check.diagnostics).map((d) => d.message)).toEqual([TS2322]);
    expect(channelOf(checker).kind).toBe("thread");
    expect(existsSync(file)).toBe(false);
    expect(logs.join("\n")).toMatch(/the checker process \(pid \d+\) exited with (code \d+|signal SIG[A-Z]+).*; checking on a thread instead/s);
  } finally {
    await checker.stop();
    writeFileSync(file, saved);
  }
});

test("the checker process ends when the kernel's process is killed", async () => {
  // A stand-in for the kernel: starts the checker from the snapshot and prints its pid.
  const script = `
    const { TypeChecker } = require(${JSON.stringify(join(ROOT, "dist", "kernel", "language", "checker.js"))});
    const c = new TypeChecker();
    c.start(${JSON.stringify(folder.dir)});
    c.whenReady(120000).then(() => console.log(JSON.stringify({ kind: c.channel.kind, pid: c.channel.pid })));
    setInterval(() => undefined, 1000);`;
  const parent = spawn(process.execPath, ["-e", script], { env: process.env, stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  parent.stdout!.on("data", (d) => { out += d; });
  try {
    await until(() => out.includes("\n"), 120000, "the stand-in kernel's checker to be ready");
    const { kind, pid } = JSON.parse(out);
    expect(kind).toBe("process");
    expect(alive(pid)).toBe(true);
    parent.kill("SIGKILL");
    await until(() => !alive(pid), 10000, `the checker process ${pid} to end after its kernel was killed`);
  } finally {
    parent.kill("SIGKILL");
  }
});
