#!/usr/bin/env node
/**
 * The `tsgpu` command:
 *   tsgpu kernel CONNECTION_FILE     run a kernel (Jupyter starts this)
 *   tsgpu install [options]          write the kernelspec
 *   tsgpu launch [options]           run a kernel for Jupyter Enterprise Gateway (gateway/launch.ts)
 *   tsgpu run NOTEBOOK [options]     execute a notebook through the kernel
 */
import { existsSync, writeSync } from "fs";
import { USAGE_EXIT, UsageError, usageLine } from "./commands/usage_error";

/**
 * Starts the type checker's process from its startup snapshot before the
 * kernel's modules load (see language/checker.ts); a kernel's first cell
 * waits for its type warnings, so the checker starts first.
 */
function startCheckerEarly(): void {
  // What it logs waits until the checker has started: the log's module loads the socket layer.
  const debug = (text: string) => setImmediate(() => (require("./boot") as typeof import("./boot")).debug(text));
  (require("./language/checker") as typeof import("./language/checker")).startCheckerEarly(process.cwd(), debug);
}

const HELP = `usage: tsgpu <command> [options]

commands:
  kernel CONNECTION_FILE       start a kernel on the given connection file
  install [--user|--sys-prefix|--prefix DIR] [--name NAME]
                               install the Jupyter kernelspec ("tsgpu install --help")
  run NOTEBOOK [--output FILE] [--allow-errors]
                               execute a notebook through the kernel and print its output
                               ("tsgpu run --help")
  launch --kernel-id ID --response-address HOST:PORT --public-key KEY [--port-range LO..HI]
                               run a kernel for Jupyter Enterprise Gateway (or from
                               $KERNEL_ID, $RESPONSE_ADDRESS, $PUBLIC_KEY, $PORT_RANGE)
  --version                    print the version
`;

const KERNEL_HELP = `usage: tsgpu kernel CONNECTION_FILE

Runs a kernel on the ports and key of a Jupyter connection file (what the kernelspec that
"tsgpu install" writes has Jupyter do).
`;

async function main(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  switch (cmd) {
    case "kernel": {
      if (args[0] === "-h" || args[0] === "--help") { process.stdout.write(KERNEL_HELP); return 0; }
      if (args[0]?.startsWith("-")) throw new UsageError(`unknown option ${args[0]}`, "kernel");
      if (!args[0]) throw new UsageError("expected a connection file", "kernel");
      // Sockets first (on their own thread), then the checker and the engine: see boot.ts. The checker's
      // process starts once the client's first kernel_info is answered (and after boot() has made the
      // launcher's listening sockets close-on-exec), before the engine loads.
      const b = (require("./boot") as typeof import("./boot")).boot(args[0]);
      await b.engineCue;
      startCheckerEarly();
      const { startKernel } = await import("./kernel");
      try {
        await startKernel(b);
      } catch (e) {
        // Without its sockets a kernel can only end: say why (straight to fd 2: the kernel has taken over
        // process.stderr by now), and exit so the client sees it at once.
        try { writeSync(2, `tsgpu kernel: ${e instanceof Error ? e.message : e}\n`); } catch { /* stderr closed */ }
        await b.transport.abort();
        process.exit(1);
      }
      return -1;
    }
    case "launch": {
      // A usage error is one line before anything starts.
      if (!args.includes("-h") && !args.includes("--help")) (require("./gateway/options") as typeof import("./gateway/options")).scanLaunchArgs(args);
      startCheckerEarly();
      await (await import("./gateway/launch")).launch(args);
      return -1;
    }
    case "install": {
      // Loaded here, not at the top: a kernel's start (the common case) does not need it.
      const { INSTALL_HELP, install, parseInstallArgs } = await import("./commands/install");
      const o = parseInstallArgs(args);
      if (o === "help") { process.stdout.write(INSTALL_HELP); return 0; }
      const dir = install(o);
      process.stdout.write(`Installed kernelspec ${o.name} in ${dir}\n`);
      // JupyterLab's memory panel goes beside the kernelspec (not for Enterprise Gateway's hosts, where no JupyterLab runs).
      if (!o.gateway) {
        const { installLabextension } = await import("./commands/install_labextension");
        process.stdout.write(`Installed the JupyterLab extension (the memory panel) in ${installLabextension(o)}\n`);
      }
      await prepareChecker();
      return 0;
    }
    case "run": {
      const { RUN_HELP, parseRunArgs, runNotebook } = await import("./commands/notebook");
      const r = parseRunArgs(args);
      if (r === "help") { process.stdout.write(RUN_HELP); return 0; }
      const { errors } = await runNotebook(r.file, r.options);
      if (r.options.output) process.stdout.write(`\nWrote ${r.options.output}\n`);
      if (errors && r.options.allowErrors) process.stderr.write(`tsgpu run: ${errors} cell${errors === 1 ? "" : "s"} failed (--allow-errors: every cell ran)\n`);
      return errors && !r.options.allowErrors ? 1 : 0;
    }
    case "-V": case "--version": {
      const { VERSION } = await import("./info");
      process.stdout.write(`tsgpu ${VERSION} (Node.js ${process.version})\n`);
      return 0;
    }
    case undefined: case "-h": case "--help": case "help":
      process.stdout.write(HELP);
      return cmd === undefined ? USAGE_EXIT : 0;
    default:
      throw new UsageError(cmd.startsWith("-") ? `unknown option ${cmd}` : `unknown command ${cmd}`);
  }
}

const argv = process.argv.slice(2);
main(argv).then((code) => { if (code >= 0) process.exitCode = code; }).catch((e) => {
  if (e instanceof UsageError) {
    process.stderr.write(usageLine(e));
    process.exitCode = USAGE_EXIT;
    return;
  }
  const cmd = ["install", "run", "kernel", "launch"].includes(argv[0]) ? ` ${argv[0]}` : "";
  process.stderr.write(`tsgpu${cmd}: ${e instanceof Error ? e.message : e}\n`);
  process.exitCode = 1;
});

/**
 * Builds the type checker's startup snapshot for this Node and this build
 * of the kernel, so that the first kernel's first cell gets its warnings
 * soon (see language/checker_snapshot.ts). A failure costs only that: it
 * is reported and the kernel checks on a thread.
 */
async function prepareChecker(): Promise<void> {
  const { checkerSetup } = await import("./language/checker");
  const { checkerSnapshotFile, ensureCheckerSnapshot, snapshotsEnabled, writeCheckerStart } = await import("./language/checker_snapshot");
  if (!snapshotsEnabled()) return;
  try {
    const setup = checkerSetup(process.cwd());
    if (!existsSync(checkerSnapshotFile(setup))) {
      process.stdout.write("Building the type checker's startup snapshot (once for this version of tsgpu and Node.js; it takes a few seconds to a minute)...\n");
    }
    const { file, ms } = ensureCheckerSnapshot(setup);
    writeCheckerStart(setup, file);
    if (ms) process.stdout.write(`Built the type checker's startup snapshot in ${(ms / 1000).toFixed(1)} s: ${file}\n`);
  } catch (e) {
    process.stderr.write(`tsgpu install: the type checker's startup snapshot was not built (the kernel checks without it): ${(e as Error).message}\n`);
  }
}
