/**
 * The kernel's launcher (kernel/launch/launch.c, the installed
 * kernelspec's first program): it listens on the connection file's ports
 * before Node.js starts, and the kernel takes those sockets over
 * (kernel/transport/listen_fds.ts). Where it cannot, everything happens as
 * without it: the kernel binds its ports itself and says why it fails.
 */
import { spawn, spawnSync } from "child_process";
import { existsSync, mkdtempSync, rmSync } from "fs";
import { createConnection, createServer, Server } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { KernelClient } from "../../../kernel/transport/client";
import { installedKernelEnv, kernelspecArgv } from "../../../kernel/commands/install";
import { ConnectionInfo } from "../../../kernel/protocol/connection";
import { kernelArgv, ofType, ROOT, writeConnectionFile } from "../../helpers";

jest.setTimeout(60000);

const LAUNCHER = join(ROOT, "build", "Release", "tsgpu-launch");
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "tsgpu-launcher-"));
  dirs.push(d);
  return d;
}

/** A connection file in a folder of its own, with a nested field the kernel does not read. */
function connectionFile(overrides: Partial<ConnectionInfo> = {}): Promise<{ file: string; info: ConnectionInfo }> {
  return writeConnectionFile(tempDir(), overrides, { extra: { nested: [1, "two", { three: null }] } });
}

/** Whether something listens on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: "127.0.0.1", port }, () => { s.destroy(); resolve(true); });
    s.on("error", () => resolve(false));
  });
}

const PORTS = ["shell_port", "iopub_port", "control_port", "stdin_port", "hb_port"] as const;

test("the build has the launcher and the installed kernelspec starts the kernel through it", () => {
  expect(existsSync(LAUNCHER)).toBe(true);
  expect(kernelspecArgv().slice(0, 2)).toEqual([LAUNCHER, "{connection_file}"]);
  expect(kernelspecArgv().slice(2)).toEqual(kernelArgv());
});

test("the launcher adds the kernel's malloc setting to the user's GLIBC_TUNABLES, and the kernelspec sets none of its own", () => {
  const run = (env: NodeJS.ProcessEnv) => spawnSync(LAUNCHER, [join(tempDir(), "none.json"), "sh", "-c", 'printf "%s" "$GLIBC_TUNABLES"'],
    { env: { PATH: process.env.PATH, ...env }, encoding: "utf8" }).stdout;
  expect(run({})).toBe("glibc.malloc.mmap_threshold=131072");
  expect(run({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" })).toBe("glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072");
  expect(run({ GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=65536" })).toBe("glibc.malloc.mmap_threshold=65536");
  expect(installedKernelEnv()).toEqual({});
  expect(installedKernelEnv(kernelArgv())).toEqual({ GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=131072" });
});

test("the launcher listens on the five ports of the connection file and names the sockets to the command it runs", async () => {
  const { file, info } = await connectionFile();
  const child = spawn(LAUNCHER, [file, "sh", "-c", 'printf "%s\\n" "$TSGPU_LISTEN_FDS"; echo "pid=$$"; sleep 30'], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    let out = "";
    child.stdout!.on("data", (d) => { out += d; });
    while (!out.includes("\npid=")) await new Promise((r) => setTimeout(r, 20));
    const [named, pidLine] = out.trim().split("\n");
    // The launcher ran the command in its own process (exec): the pid it names is the command's.
    expect(pidLine).toBe(`pid=${child.pid}`);
    const fields = new Map(named.split(";").map((kv) => kv.split("=") as [string, string]));
    expect(fields.get("pid")).toBe(String(child.pid));
    for (const name of ["shell", "iopub", "control", "stdin", "hb"]) {
      expect(fields.get(name)).toMatch(new RegExp(`^\\d+:${info[`${name}_port` as typeof PORTS[number]]}$`));
    }
    for (const port of PORTS) expect(await listening(info[port])).toBe(true);
  } finally {
    child.kill("SIGKILL");
  }
});

test("the launcher runs the command as it is (and binds nothing) where it cannot bind every port", async () => {
  const taken: Server = createServer();
  const port = await new Promise<number>((resolve) => taken.listen(0, "127.0.0.1", () => resolve((taken.address() as any).port)));
  try {
    for (const overrides of [{ iopub_port: port }, { transport: "ipc" as const }, { ip: "localhost" }]) {
      const { file, info } = await connectionFile(overrides);
      const r = spawnSync(LAUNCHER, [file, "sh", "-c", 'printf "[%s]" "${TSGPU_LISTEN_FDS-unset}"'], { encoding: "utf8" });
      expect(r.status).toBe(0);
      expect(r.stdout).toBe("[unset]");
      if (overrides.iopub_port) expect(await listening(info.shell_port)).toBe(false);
    }
    const r = spawnSync(LAUNCHER, [join(tempDir(), "missing.json"), "sh", "-c", "echo ran"], { encoding: "utf8" });
    expect(r.stdout).toBe("ran\n");
    const bad = spawnSync(LAUNCHER, ["only-a-file"], { encoding: "utf8" });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/usage: tsgpu-launch CONNECTION_FILE COMMAND/);
  } finally {
    taken.close();
  }
});

test("a kernel started through the launcher serves on its sockets; cells and the processes they start see none of them", async () => {
  const k = await KernelClient.start({ argv: kernelspecArgv(), env: { ...process.env, TSGPU_HISTORY_FILE: join(tempDir(), "h.jsonl") } });
  try {
    const { reply, outputs } = await k.execute(
      'const fds = require("child_process").execSync("ls -l /proc/$$/fd").toString();\n' +
      '[String(process.env.TSGPU_LISTEN_FDS), fds.split("\\n").filter((l: string) => /socket:/.test(l) && !/ [012] -> /.test(l)).length]');
    expect(reply.content.status).toBe("ok");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("[ 'undefined', 0 ]");
    expect((await k.request("kernel_info_request", {}, "control")).reply.content.implementation).toBe("tsgpu");
    // Had the kernel bound the ports itself, the launcher's sockets would have made it fail (address in use); it says when it does not use them.
    expect(k.stderr).not.toMatch(/launcher's sockets are not used/);
  } finally {
    expect(await k.shutdown()).toBe(0);
  }
});

test("through the launcher, a port already in use fails the kernel as without it, naming the problem", async () => {
  const taken: Server = createServer();
  const port = await new Promise<number>((resolve) => taken.listen(0, "127.0.0.1", () => resolve((taken.address() as any).port)));
  try {
    const { file } = await connectionFile({ shell_port: port });
    const argv = kernelspecArgv().map((a) => a.replace("{connection_file}", file));
    const r = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", timeout: 30000, env: { ...process.env, TSGPU_HISTORY_FILE: join(tempDir(), "h.jsonl") } });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/address already in use/i);
  } finally {
    taken.close();
  }
});

test("a TSGPU_LISTEN_FDS left from another process is ignored, logged, and not passed on to cells", async () => {
  const env = { ...process.env, TSGPU_HISTORY_FILE: join(tempDir(), "h.jsonl"), TSGPU_LISTEN_FDS: "pid=1;shell=3:1;iopub=4:2;control=5:3;stdin=6:4;hb=7:5" };
  const k = await KernelClient.start({ argv: kernelArgv(), env });
  try {
    const { outputs } = await k.execute("String(process.env.TSGPU_LISTEN_FDS)");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("'undefined'");
    expect(k.stderr).toMatch(/launcher's sockets are not used \(the kernel binds its ports itself\): TSGPU_LISTEN_FDS names process 1, not this one/);
  } finally {
    expect(await k.shutdown()).toBe(0);
  }
});
