/**
 * `tsgpu-launch --checker KEY` (kernel/launch/early_checker.c): the
 * launcher starts the command of the start file before it runs the kernel,
 * with an IPC channel the kernel takes over (takeLaunchedChecker and
 * launchedChannel). Here the "checker" is a small Node.js script that
 * answers over that channel and the "kernel" one that takes it over; the
 * real kernel and checker go through it in test_gateway_launch.py.
 */
import { spawnSync } from "child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { checkerStartFile } from "../../../kernel/language/checker_snapshot";
import { ROOT } from "../../helpers";

jest.setTimeout(60000);

const LAUNCHER = join(ROOT, "build", "Release", "tsgpu-launch");
const KEY = "0123456789abcdef";
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "tsgpu-early-checker-"));
  dirs.push(d);
  return d;
}

/** The stand-in checker: answers each message with what it was started with, and ends on "die" saying so on stderr. */
const CHECKER = `
const fs = require("fs");
process.on("message", (m) => {
  if (m.kind === "die") { process.stderr.write("the checker was told to die\\n"); process.exit(3); }
  process.send({
    echo: m,
    setup: JSON.parse(process.env.TSGPU_CHECKER_SETUP),
    channel: Boolean(process.channel),
    fd3: fs.readlinkSync("/proc/self/fd/3"),
    nodeOptions: process.env.NODE_OPTIONS ?? null,
    early: process.env.TSGPU_EARLY_CHECKER ?? null,
    stdin: fs.readlinkSync("/proc/self/fd/0"),
    stdout: fs.readlinkSync("/proc/self/fd/1"),
    ppid: process.ppid,
  });
});
`;

/** The stand-in kernel: takes the checker over, asks it twice (the second time to die) and prints what it heard. */
const KERNEL = `
const dist = ${JSON.stringify(join(ROOT, "dist", "kernel", "language"))};
const { takeLaunchedChecker } = require(dist + "/checker_snapshot.js");
const { launchedChannel } = require(dist + "/checker_channel.js");
const launched = takeLaunchedChecker();
if (process.env.STAND_IN_STDERR) process.stderr.write("the kernel writes to its stderr\\n");
const out = { launched: launched ?? null, envAfter: process.env.TSGPU_EARLY_CHECKER ?? null, pid: process.pid, replies: [] };
if (!launched) { console.log(JSON.stringify(out)); process.exit(0); }
const ch = launchedChannel(launched, {
  message: (m) => { out.replies.push(m); ch.post({ kind: "die" }); },
  failed: (reason) => { out.failed = reason; console.log(JSON.stringify(out)); process.exit(0); },
});
// What a process the kernel starts holds: not the checker's channel or stderr.
const link = (fd) => require("fs").readlinkSync("/proc/self/fd/" + fd);
out.links = [link(launched.ipcFd), link(launched.stderrFd)];
out.childFds = require("child_process").execFileSync("ls", ["-l", "/proc/self/fd"], { encoding: "utf8" });
ch.post({ kind: "hello", text: "caf\\u00e9 \\"quoted\\"\\nline" });
setTimeout(() => { out.failed = "no end within 20 s"; console.log(JSON.stringify(out)); process.exit(1); }, 20000);
`;

interface Setup { cache: string; cwd: string; kernel: string }

/** A cache folder with a start file (unless `fields` is null), a folder with an odd name to run in, and the stand-in kernel. */
function setUp(fields: ((snapshot: string, checker: string) => string[]) | null): Setup {
  const d = tempDir();
  const cache = join(d, "cache");
  mkdirSync(cache);
  const snapshot = join(d, "stand-in.snapshot");
  writeFileSync(snapshot, "not a real snapshot: the stand-in checker does not read it");
  const checker = join(d, "checker.js");
  writeFileSync(checker, CHECKER);
  const kernel = join(d, "kernel.js");
  writeFileSync(kernel, KERNEL);
  if (fields) writeFileSync(checkerStartFile(KEY, cache), fields(snapshot, checker).map((f) => `${f}\0`).join(""));
  const cwd = join(d, 'a "quoted"\\folder');
  mkdirSync(cwd);
  return { cache, cwd, kernel };
}

function launch(s: Setup, env: Record<string, string> = {}, stdioClosed = false): any {
  const argv = ["--checker", KEY, process.execPath, s.kernel];
  // The launcher started with descriptors 0 and 2 closed, as a detached process may be; the kernel writes to stderr.
  const [cmd, args] = stdioClosed ? ["/bin/sh", ["-c", 'exec "$@" 0<&- 2>&-', "sh", LAUNCHER, ...argv]] : [LAUNCHER, argv];
  if (stdioClosed) env = { ...env, STAND_IN_STDERR: "1" };
  const r = spawnSync(cmd, args, {
    cwd: s.cwd, encoding: "utf8", timeout: 30000,
    env: { ...process.env, TSGPU_CACHE_DIR: s.cache, NODE_OPTIONS: "--max-old-space-size=300", TSGPU_CHECKER_SNAPSHOT: "", ...env },
  });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout);
}

const validFields = (snapshot: string, checker: string) => [
  "tsgpu-checker-start 1", snapshot, JSON.stringify({ kernelRoot: "/opt/tsgpu", ambient: "declare const x: \"y\";\n" }),
  process.execPath, checker,
];

test("the launcher starts the start file's command, and the kernel takes over its channel", () => {
  const s = setUp(validFields);
  const out = launch(s);
  expect(out.launched).toMatchObject({ snapshot: join(s.cache, "..", "stand-in.snapshot") });
  // Taken over: no process the kernel starts inherits the variable, or the descriptors.
  expect(out.envAfter).toBeNull();
  expect(out.links[0]).toMatch(/^socket:\[\d+\]$/);
  expect(out.links[1]).toMatch(/^pipe:\[\d+\]$/);
  expect(out.childFds).toMatch(/ 0 -> /);
  for (const l of out.links) expect(out.childFds).not.toContain(l);
  expect(out.replies).toHaveLength(1);
  const [r] = out.replies;
  // The message went there and back as JSON lines.
  expect(r.echo).toEqual({ kind: "hello", text: "café \"quoted\"\nline" });
  // The setup gained the kernel's folder, escaped as JSON.
  expect(r.setup).toEqual({ cwd: s.cwd, kernelRoot: "/opt/tsgpu", ambient: "declare const x: \"y\";\n" });
  // Node.js's own IPC channel on fd 3; the kernel's NODE_OPTIONS and the launcher's variable left out.
  expect(r.channel).toBe(true);
  expect(r.fd3).toMatch(/^socket:/);
  expect(r.nodeOptions).toBeNull();
  expect(r.early).toBeNull();
  expect(r.stdin).toBe("/dev/null");
  expect(r.stdout).toBe("/dev/null");
  // A child of the kernel's process (the launcher became the kernel).
  expect(r.ppid).toBe(out.pid);
  expect(out.launched.pid).not.toBe(out.pid);
  // Its end is seen, with what it wrote on stderr.
  expect(out.failed).toBe(`the checker process (pid ${out.launched.pid}) ended: the checker was told to die`);
});

test("a launcher started with stdin and stderr closed keeps the checker's channel apart from them", () => {
  const out = launch(setUp(validFields), {}, true);
  expect(out.replies).toHaveLength(1);
  expect(out.replies[0]).toMatchObject({ channel: true, stdin: "/dev/null", stdout: "/dev/null" });
  expect(out.replies[0].fd3).toMatch(/^socket:/);
  expect(out.failed).toMatch(/ended: the checker was told to die$/);
});

test("without a usable start file the launcher starts no checker", () => {
  const cases: [string, ((snapshot: string, checker: string) => string[]) | null][] = [
    ["no start file", null],
    ["another format", (sn, c) => ["tsgpu-checker-start 2", sn, "{\"a\":1}", process.execPath, c]],
    ["a snapshot that is not there", (sn, c) => ["tsgpu-checker-start 1", `${sn}.gone`, "{\"a\":1}", process.execPath, c]],
    ["a command that is not there", (sn, c) => ["tsgpu-checker-start 1", sn, "{\"a\":1}", "/nonexistent/node", c]],
    ["a setup that is not an object", (sn, c) => ["tsgpu-checker-start 1", sn, "[1]", process.execPath, c]],
    ["no command", (sn) => ["tsgpu-checker-start 1", sn, "{\"a\":1}"]],
  ];
  for (const [what, fields] of cases) {
    const out = launch(setUp(fields));
    expect([what, out.launched]).toEqual([what, null]);
  }
  // Snapshots off: the start file is not read.
  expect(launch(setUp(validFields), { TSGPU_CHECKER_SNAPSHOT: "0" }).launched).toBeNull();
  // A start file that others may write names a command nobody should run for this user.
  const open = setUp(validFields);
  chmodSync(checkerStartFile(KEY, open.cache), 0o666);
  expect(launch(open).launched).toBeNull();
  chmodSync(checkerStartFile(KEY, open.cache), 0o600);
  expect(launch(open).launched).not.toBeNull();
});

test("a start file whose last field is not ended is not used", () => {
  const s = setUp(null);
  writeFileSync(checkerStartFile(KEY, s.cache), "tsgpu-checker-start 1\0/x\0{\"a\":1}\0/usr/bin/node");
  expect(launch(s).launched).toBeNull();
});

test("the launcher refuses a key that is not hexadecimal, and names its two forms when called wrongly", () => {
  const s = setUp(validFields);
  const r = spawnSync(LAUNCHER, ["--checker", "../../etc", "sh", "-c", 'printf "[%s]" "${TSGPU_EARLY_CHECKER-unset}"'], {
    cwd: s.cwd, encoding: "utf8", env: { ...process.env, TSGPU_CACHE_DIR: s.cache },
  });
  expect(r.stdout).toBe("[unset]");
  const bad = spawnSync(LAUNCHER, ["--checker", KEY], { encoding: "utf8" });
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/tsgpu-launch --checker KEY COMMAND/);
});
