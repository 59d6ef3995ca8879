/**
 * What tsgpu gives Enterprise Gateway and JupyterHub besides the launcher:
 * the kernelspecs of `tsgpu install --gateway …`, and the Dockerfile's two
 * images, checked statically (no container engine runs here): targets and
 * base images, build context, shell syntax, the CUDA check, and the kernel
 * image's command run against this checkout as EG's pod would run it.
 */
import { spawn, spawnSync } from "child_process";
import { generateKeyPairSync } from "crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "fs";
import { createServer } from "net";
import { tmpdir } from "os";
import { join } from "path";
import { CLI, ROOT } from "../helpers";
import { KERNEL_NODE_FLAGS } from "../../kernel/commands/install";
import { checkerStartKey } from "../../kernel/language/checker_snapshot";

function install(args: string[]) {
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-gw-"));
  const r = spawnSync(process.execPath, [CLI, "install", "--prefix", prefix, ...args], { encoding: "utf8" });
  return { r, prefix, spec: (name: string) => JSON.parse(readFileSync(join(prefix, "share", "jupyter", "kernels", name, "kernel.json"), "utf8")) };
}

const PLACEHOLDERS = ["--kernel-id", "{kernel_id}", "--response-address", "{response_address}", "--public-key", "{public_key}", "--port-range", "{port_range}"];

describe("tsgpu install --gateway", () => {
  test("distributed: EG runs `tsgpu launch` with its placeholders on the remote hosts", () => {
    const { r, spec } = install(["--gateway", "distributed", "--remote-hosts", "gpu1,gpu2"]);
    expect(r.status).toBe(0);
    const s = spec("tsgpu_distributed");
    const n = KERNEL_NODE_FLAGS.length;
    // Through the launcher, which starts the type checker's process first (test/kernel/launch/launcher_checker.test.ts).
    expect(s.argv.slice(0, 3)).toEqual([join(ROOT, "build", "Release", "tsgpu-launch"), "--checker", checkerStartKey(ROOT)]);
    expect(s.argv.slice(3, n + 6)).toEqual([process.execPath, ...KERNEL_NODE_FLAGS, CLI, "launch"]);
    expect(s.argv.slice(n + 6)).toEqual(PLACEHOLDERS);
    expect(s.metadata.process_proxy).toEqual({
      class_name: "enterprise_gateway.services.processproxies.distributed.DistributedProcessProxy",
      config: { remote_hosts: "gpu1,gpu2" },
    });
    expect([s.interrupt_mode, s.language, s.display_name]).toEqual(["message", "typescript", "TypeScript (tsgpu) on remote hosts"]);
  });

  test("kubernetes: EG's pod launcher, with the kernel image", () => {
    const { r, spec } = install(["--gateway", "kubernetes", "--image", "registry.example/tsgpu-kernel:0.1.0", "--name", "ts_k8s"]);
    expect(r.status).toBe(0);
    const s = spec("ts_k8s");
    expect(s.argv).toEqual(["python", "/usr/local/share/jupyter/kernels/python_kubernetes/scripts/launch_kubernetes.py", ...PLACEHOLDERS]);
    expect(s.metadata.process_proxy).toEqual({
      class_name: "enterprise_gateway.services.processproxies.k8s.KubernetesProcessProxy",
      config: { image_name: "registry.example/tsgpu-kernel:0.1.0" },
    });
    expect(s.interrupt_mode).toBe("message");
  });

  test("options that do not fit the mode are refused: usage errors, exit 2", () => {
    const see = ' (see "tsgpu install --help")';
    const err = (args: string[]) => {
      const { r } = install(args);
      expect(r.status).toBe(2);
      return r.stderr.trim();
    };
    expect(err(["--gateway", "yarn"])).toBe('tsgpu install: expected distributed or kubernetes for --gateway, got "yarn"' + see);
    expect(err(["--gateway", "kubernetes"])).toMatch(/^tsgpu install: expected a container image for --image with --gateway kubernetes, got none/);
    expect(err(["--gateway", "distributed", "--image", "x"])).toBe("tsgpu install: --image is for --gateway kubernetes, got --gateway distributed" + see);
    expect(err(["--remote-hosts", "a"])).toBe("tsgpu install: --remote-hosts is for Enterprise Gateway kernelspecs: add --gateway distributed or --gateway kubernetes" + see);
    expect(err(["--gateway", "distributed", "--remote-hosts", "a b"])).toBe('tsgpu install: expected host names separated by commas for --remote-hosts, got "a b"' + see);
  });
});

// ---------------------------------------------------------------- the Dockerfile

interface Instruction { op: string; args: string }
interface Stage { image: string; name: string; body: Instruction[] }

/** Instructions of a Dockerfile: continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let cur = "";
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    cur += line.replace(/\\\s*$/, "");
    if (/\\\s*$/.test(line)) { cur += " "; continue; }
    const m = /^\s*(\w+)\s+([\s\S]*)$/.exec(cur);
    if (m) out.push({ op: m[1].toUpperCase(), args: m[2].trim() });
    cur = "";
  }
  return out;
}

function stages(text: string): { args: Record<string, string>; stages: Stage[] } {
  const args: Record<string, string> = {};
  const list: Stage[] = [];
  for (const ins of instructions(text)) {
    if (ins.op === "FROM") {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args)!;
      list.push({ image: m[1].replace(/\$\{(\w+)\}/g, (_, k) => args[k] ?? `<${k}>`), name: m[2], body: [] });
    } else if (!list.length && ins.op === "ARG") {
      const [k, v] = ins.args.split("=");
      args[k] = (v ?? "").replace(/^"|"$/g, "");
    } else if (list.length) list[list.length - 1].body.push(ins);
  }
  return { args, stages: list };
}

const DOCKERFILE = readFileSync(join(ROOT, "Dockerfile"), "utf8");
const { stages: STAGES } = stages(DOCKERFILE);
const stage = (name: string) => STAGES.find((s) => s.name === name)!;

describe("Dockerfile", () => {
  test("targets kernel and singleuser on NVIDIA's CUDA images; the build stage has nvcc", () => {
    expect(STAGES.map((s) => s.name)).toEqual(["node", "build", "kernel", "singleuser"]);
    expect(stage("build").image).toMatch(/^nvidia\/cuda:\d+\.\d+\.\d+-devel-ubuntu\d+\.\d+$/);
    expect(stage("kernel").image).toMatch(/^nvidia\/cuda:\d+\.\d+\.\d+-base-ubuntu\d+\.\d+$/);
    expect(stage("kernel").image.split(":")[1].split("-")[0]).toBe(stage("build").image.split(":")[1].split("-")[0]);
    expect(stage("singleuser").image).toBe("kernel");
  });

  test("every file it copies is in the repository and in the build context", () => {
    const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").filter((l) => l && !l.startsWith("#"));
    const copies = STAGES.flatMap((s) => s.body).filter((i) => i.op === "COPY" && !i.args.startsWith("--from"));
    expect(copies.length).toBeGreaterThan(0);
    for (const c of copies) {
      for (const src of c.args.split(/\s+/).filter((w) => !w.startsWith("--")).slice(0, -1)) {
        expect(existsSync(join(ROOT, src))).toBe(true);
        expect(ignored).not.toContain(src.split("/")[0]);
      }
    }
  });

  test("every RUN is valid shell", () => {
    const runs = STAGES.flatMap((s) => s.body).filter((i) => i.op === "RUN");
    expect(runs.length).toBeGreaterThanOrEqual(4);
    for (const r of runs) {
      const sh = spawnSync("bash", ["-n", "-c", r.args], { encoding: "utf8" });
      expect({ run: r.args.slice(0, 60), stderr: sh.stderr }).toEqual({ run: r.args.slice(0, 60), stderr: "" });
    }
  });

  test("the build compiles CUDA in for the chosen GPUs and fails without it (the check, run on this checkout)", () => {
    const build = stage("build").body.filter((i) => i.op === "RUN").map((i) => i.args).join("\n");
    expect(build).toContain('"--CDCMAKE_CUDA_ARCHITECTURES=${CUDA_ARCHITECTURES}"');
    const check = /node -e '([^']+)'/.exec(build)![1];
    // The addon's own words when built without CUDA:
    expect(readFileSync(join(ROOT, "native", "src", "runtime", "device_registry.cc"), "utf8")).toContain('"built without CUDA"');
    const here = require(join(ROOT, "dist", "native")).cuda.unavailableReason();
    const r = spawnSync(process.execPath, ["-e", check], { cwd: ROOT, encoding: "utf8" });
    expect(r.status).toBe(here === "built without CUDA" ? 1 : 0);
  });

  test("the kernel image's command starts `tsgpu launch` from EG's pod environment", async () => {
    const k = stage("kernel").body;
    const cmd: string[] = JSON.parse(k.find((i) => i.op === "CMD")!.args);
    expect(cmd.slice(-2)).toEqual(["/opt/tsgpu/dist/kernel/cli.js", "launch"]);
    // Through the launcher, with the key of the image's installation (/opt/tsgpu).
    expect(cmd.slice(0, 4)).toEqual(["/opt/tsgpu/build/Release/tsgpu-launch", "--checker", checkerStartKey("/opt/tsgpu"), "/usr/local/bin/node"]);
    expect(k.find((i) => i.op === "USER")!.args).toBe("1000");
    // Run it here, the image's paths (and the key that names them) mapped onto this checkout.
    const argv = cmd.map((a) => a === "/usr/local/bin/node" ? process.execPath
      : a === checkerStartKey("/opt/tsgpu") ? checkerStartKey(ROOT) : a.replace("/opt/tsgpu", ROOT));
    const server = createServer();
    const payload = new Promise<string>((resolve) => server.on("connection", (s) => {
      let data = "";
      s.on("data", (b) => { data += b; });
      s.on("end", () => resolve(data));
    }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const key = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ format: "der", type: "spki" }).toString("base64");
    const addr = server.address() as { port: number };
    const child = spawn(argv[0], argv.slice(1), {
      env: { ...process.env, KERNEL_ID: "pod-kernel", RESPONSE_ADDRESS: `127.0.0.1:${addr.port}`, PUBLIC_KEY: key, PORT_RANGE: "0..0" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr!.on("data", (b) => { stderr += b; });
    try {
      const p = JSON.parse(Buffer.from(await payload, "base64").toString());
      expect([p.version, typeof p.key, typeof p.conn_info]).toEqual([1, "string", "string"]);
      for (let i = 0; i < 100 && !stderr.includes("kernel pod-kernel: ports"); i++) await new Promise((r) => setTimeout(r, 50));
      expect(stderr).toContain("kernel pod-kernel: ports");
    } finally {
      child.kill("SIGKILL");
      server.close();
    }
  });

  test("the kernel image builds the type checker's snapshot, as its user, in a cache folder outside the home folder", () => {
    const k = stage("kernel").body;
    const env = k.find((i) => i.op === "ENV" && i.args.includes("TSGPU_CACHE_DIR="))!.args;
    const cache = /TSGPU_CACHE_DIR=(\S+)/.exec(env)![1];
    expect(cache.startsWith("/home")).toBe(false);
    const user = k.findIndex((i) => i.op === "USER");
    const build = k.findIndex((i, n) => n > user && i.op === "RUN" && i.args.includes("cli.js install"));
    expect(build).toBeGreaterThan(user);
    expect(k.slice(0, user).some((i) => i.op === "RUN" && i.args.includes(`chown 1000:100 ${cache}`))).toBe(true);
    // Run it here, the image's paths mapped onto this checkout and a temporary cache folder.
    const here = mkdtempSync(join(tmpdir(), "tsgpu-img-cache-"));
    try {
      const cmd = k[build].args.replace(/\/usr\/local\/bin\/node/g, process.execPath).replace(/\/opt\/tsgpu/g, ROOT).replace(/\/tmp\/tsgpu-spec/g, join(here, "spec"));
      const r = spawnSync("bash", ["-c", cmd], { encoding: "utf8", env: { ...process.env, TSGPU_CACHE_DIR: join(here, "cache") } });
      expect(r.stderr).toBe("");
      expect(r.stdout).toMatch(/Built the type checker's startup snapshot in [\d.]+ s: .*checker-[0-9a-f]{12}-[0-9a-f]{24}\.snapshot/);
    } finally {
      rmSync(here, { recursive: true, force: true });
    }
  }, 120000);

  test("the single-user image installs the kernelspec Jupyter finds and runs jupyterhub-singleuser", () => {
    const s = stage("singleuser").body;
    expect(JSON.parse(s.find((i) => i.op === "CMD")!.args)).toEqual(["jupyterhub-singleuser"]);
    const run = s.filter((i) => i.op === "RUN").map((i) => i.args).join("\n");
    expect(run).toMatch(/jupyterhub==\$\{JUPYTERHUB_VERSION\}/);
    const m = /\/usr\/local\/bin\/node (\/opt\/tsgpu\/dist\/kernel\/cli\.js install --prefix \/usr\/local)/.exec(run)!;
    const prefix = mkdtempSync(join(tmpdir(), "tsgpu-img-"));
    const args = m[1].split(" ").map((a) => a.replace("/opt/tsgpu", ROOT).replace("/usr/local", prefix));
    expect(spawnSync(process.execPath, args).status).toBe(0);
    expect(existsSync(join(prefix, "share", "jupyter", "kernels", "tsgpu", "kernel.json"))).toBe(true);
  });
});
