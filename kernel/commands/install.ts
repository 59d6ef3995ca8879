/**
 * `tsgpu install`: writes the kernelspec (kernel.json and logos) where
 * Jupyter looks for kernels, with no Python involved.
 */
import { copyFileSync, existsSync, accessSync, constants, realpathSync, statSync } from "fs";
import { homedir, platform } from "os";
import { dirname, join, resolve } from "path";
import { ROOT } from "../info";
import { describeFsError, makeFolders, writeTextFile } from "../paths";
import { GatewayMode, checkGatewayOptions, defaultGatewayDisplayName, gatewayKernelSpec, kGatewayModes } from "../gateway/kernelspec";
import { checkerStartKey, checkerTunables, kCheckerMallocTunable } from "../language/checker_snapshot";
import { UsageError, checkExclusive } from "./usage_error";

export const INSTALL_HELP = `usage: tsgpu install [--user | --sys-prefix | --prefix DIR] [--name NAME] [--display-name TEXT]
                     [--gateway distributed|kubernetes [--image IMAGE] [--remote-hosts H1,H2] [--pod-launcher PATH]]

Writes a Jupyter kernelspec for tsgpu (kernel.json and logos), and copies the
JupyterLab extension (the memory panel) beside it, into the same place's
labextensions/tsgpu-memory (not with --gateway).

options:
  --user              install for the current user (the default): $JUPYTER_DATA_DIR,
                      or ~/.local/share/jupyter (Linux), ~/Library/Jupyter (macOS)
  --sys-prefix        install into the active Python environment's prefix
                      ($VIRTUAL_ENV or $CONDA_PREFIX), else the prefix of \`jupyter\` on PATH
  --prefix DIR        install into DIR/share/jupyter/kernels/NAME
                      (--user, --sys-prefix and --prefix exclude each other)
  --name NAME         kernelspec name (default: tsgpu)
  --display-name TEXT name shown in the launcher (default: "TypeScript (tsgpu)")
  --gateway MODE      a kernelspec for Jupyter Enterprise Gateway (name tsgpu_MODE unless --name):
                      distributed: kernels on EG's remote hosts over ssh (\`tsgpu launch\`);
                      kubernetes: kernels in pods of the image given by --image
  --image IMAGE       kubernetes: the kernel image (the Dockerfile's \`kernel\` target)
  --remote-hosts LIST distributed: the hosts to spread kernels over (else EG's own list)
  --pod-launcher PATH kubernetes: EG's launch_kubernetes.py inside EG's image
                      (default: its python_kubernetes kernelspec's)
  -h, --help          show this help
`;

/**
 * Node's flags for a kernel process: `gc()` for cells, and a young
 * generation of one fixed size (16 MiB). V8 otherwise doubles it from 2 to
 * 32 MiB as survivors add up over a long session, and the kernel's memory
 * grows in steps long after it started (a 10,000-cell session grew 13 MiB
 * at cell 7,000 this way).
 */
export const KERNEL_NODE_FLAGS: readonly string[] = ["--expose-gc", "--min-semi-space-size=8", "--max-semi-space-size=8"];

/** The command line that starts a kernel; `{connection_file}` is filled in by Jupyter. */
/**
 * The kernel's environment in its kernelspec: glibc's malloc with the fixed
 * mmap threshold the checker's processes have (language/checker_snapshot.ts).
 * zeromq's thread allocates what arrives and the main thread frees it; with
 * glibc's moving threshold, once a large message had been freed, later ones
 * came from the heap and their pages stayed: +88 MiB over 10,000 hostile
 * messages, +30 MiB with the fixed threshold (bench/results/hostile.md). The
 * launcher adds the setting to the user's own GLIBC_TUNABLES as the kernel starts
 * (kernel/launch/malloc_tunables.c), so a kernelspec that runs through it needs none
 * (installedKernelEnv); `current` is the user's value, to which it is added here.
 */
export function kernelEnv(current?: string): Record<string, string> {
  return { GLIBC_TUNABLES: current === undefined ? kCheckerMallocTunable : checkerTunables(current) };
}

/**
 * The env of the installed kernelspec: empty where its argv runs through the launcher (which keeps the
 * user's GLIBC_TUNABLES and adds the kernel's setting), else kernelEnv(), which Jupyter puts in place of
 * the user's value.
 */
export function installedKernelEnv(argv: readonly string[] = kernelspecArgv()): Record<string, string> {
  return argv[0] === LAUNCHER ? {} : kernelEnv();
}

export function kernelArgv(): string[] {
  return [process.execPath, ...KERNEL_NODE_FLAGS, join(ROOT, "dist", "kernel", "cli.js"), "kernel", "{connection_file}"];
}

/** The kernel's launcher (kernel/launch/launch.c), built with the addon. */
const LAUNCHER = join(ROOT, "build", "Release", "tsgpu-launch");

/**
 * The kernelspec's command line: the launcher (kernel/launch/launch.c), which listens on the
 * connection file's ports at once and then runs `kernelArgv()`, when it was built with its addon;
 * else `kernelArgv()` itself.
 */
export function kernelspecArgv(): string[] {
  if (!existsSync(LAUNCHER) || !existsSync(join(ROOT, "build", "Release", "tsgpu_listen.node"))) return kernelArgv();
  return [LAUNCHER, "{connection_file}", ...kernelArgv()];
}

/**
 * What goes before `tsgpu launch` in an Enterprise Gateway kernelspec: the launcher, which starts the
 * type checker's process before Node.js boots the kernel (kernel/launch/early_checker.c), when it
 * was built; else nothing.
 */
export function gatewayLauncherArgv(): string[] {
  return existsSync(LAUNCHER) ? [LAUNCHER, "--checker", checkerStartKey(ROOT)] : [];
}

function userDataDir(): string {
  if (process.env.JUPYTER_DATA_DIR) return process.env.JUPYTER_DATA_DIR;
  if (platform() === "darwin") return join(homedir(), "Library", "Jupyter");
  return join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "jupyter");
}

function sysPrefix(): string {
  const env = process.env.VIRTUAL_ENV || process.env.CONDA_PREFIX;
  if (env) return env;
  for (const dir of (process.env.PATH ?? "").split(":")) {
    const exe = join(dir, "jupyter");
    if (existsSync(exe)) return dirname(dirname(realpathSync(exe)));
  }
  throw new Error("--sys-prefix: no Python environment found (no $VIRTUAL_ENV, $CONDA_PREFIX, or jupyter on PATH); use --user or --prefix DIR");
}

export interface InstallOptions {
  where: "user" | "sys-prefix" | "prefix"; prefix?: string; name: string; displayName: string;
  /** An Enterprise Gateway kernelspec (gateway/kernelspec.ts) and its options. */
  gateway?: GatewayMode; image?: string; remoteHosts?: string[]; podLauncher?: string;
}

/**
 * `tsgpu install`'s options, or "help". A usage error (an unknown option, a
 * missing value, --user, --sys-prefix and --prefix together, gateway options
 * that do not fit) throws a UsageError. Defaults: --user, name tsgpu
 * (tsgpu_MODE with --gateway), display name "TypeScript (tsgpu)".
 */
export function parseInstallArgs(args: string[]): InstallOptions | "help" {
  const o: InstallOptions = { where: "user", name: "tsgpu", displayName: "TypeScript (tsgpu)" };
  const usage = (text: string) => new UsageError(text, "install");
  let named = false, displayed = false;
  const places: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const eq = args[i].startsWith("--") ? args[i].indexOf("=") : -1;
    const a = eq < 0 ? args[i] : args[i].slice(0, eq);
    const value = () => {
      const v = eq < 0 ? args[++i] : args[i].slice(eq + 1);
      if (v === undefined || v === "" || (eq < 0 && v.startsWith("--"))) throw usage(`${a} needs a value`);
      return v;
    };
    if (a === "-h" || a === "--help") return "help";
    else if (a === "--user") { o.where = "user"; places.push(a); }
    else if (a === "--sys-prefix") { o.where = "sys-prefix"; places.push(a); }
    else if (a === "--prefix") { o.where = "prefix"; o.prefix = value(); places.push(a); }
    else if (a === "--name") { o.name = value(); named = true; }
    else if (a === "--display-name") { o.displayName = value(); displayed = true; }
    else if (a === "--gateway") {
      const m = value();
      if (!kGatewayModes.includes(m as GatewayMode)) throw usage(`expected ${kGatewayModes.join(" or ")} for --gateway, got "${m}"`);
      o.gateway = m as GatewayMode;
    }
    else if (a === "--image") o.image = value();
    else if (a === "--remote-hosts") o.remoteHosts = value().split(",").map((h) => h.trim());
    else if (a === "--pod-launcher") o.podLauncher = value();
    else if (a.startsWith("-")) throw usage(`unknown option ${a}`);
    else throw usage(`unexpected argument ${JSON.stringify(a)}`);
    if (eq >= 0 && (a === "--user" || a === "--sys-prefix")) throw usage(`${a} takes no value`);
  }
  checkExclusive(places, "install");
  try { checkGatewayOptions(o); } catch (e) { throw usage((e as Error).message); }
  if (o.gateway && !named) o.name = `tsgpu_${o.gateway}`;
  if (o.gateway && !displayed) o.displayName = defaultGatewayDisplayName(o.gateway);
  if (!/^[A-Za-z0-9._-]+$/.test(o.name)) throw usage(`--name: kernelspec names may hold only letters, digits, ".", "_" and "-", got "${o.name}"`);
  return o;
}

export function kernelDir(o: InstallOptions): string {
  if (o.where === "user") return join(userDataDir(), "kernels", o.name);
  const prefix = o.where === "prefix" ? resolve(o.prefix!) : sysPrefix();
  return join(prefix, "share", "jupyter", "kernels", o.name);
}

/** Writes the kernelspec and returns its folder. */
export function install(o: InstallOptions): string {
  if (o.where === "prefix") {
    const prefix = resolve(o.prefix!);
    if (existsSync(prefix)) {
      if (!statSync(prefix).isDirectory()) throw new Error(`--prefix ${prefix}: it is a file, expected a folder`);
      try { accessSync(prefix, constants.W_OK); } catch (e) { throw new Error(`--prefix ${prefix}: the folder is not writable: ${describeFsError(e)}`); }
    } else {
      try { makeFolders(prefix); } catch (e) { throw new Error(`--prefix ${prefix}: ${(e as Error).message}`); }
    }
  }
  const dir = kernelDir(o);
  makeFolders(dir);
  const version = require(join(ROOT, "package.json")).version;
  const spec = o.gateway ? gatewayKernelSpec({ ...o, gateway: o.gateway }, kernelArgv(), version, gatewayLauncherArgv()) : {
    argv: kernelspecArgv(),
    display_name: o.displayName,
    language: "typescript",
    interrupt_mode: "message",
    env: installedKernelEnv(),
    metadata: { debugger: false, tsgpu: { version } },
  };
  writeTextFile(join(dir, "kernel.json"), JSON.stringify(spec, null, 2) + "\n");
  for (const f of ["logo-32x32.png", "logo-64x64.png", "logo-svg.svg"]) {
    const src = join(ROOT, "kernelspec", f);
    if (existsSync(src)) copyFileSync(src, join(dir, f));
  }
  return dir;
}
