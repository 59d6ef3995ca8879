/**
 * One rule for usage errors across `tsgpu`, `tsgpu install`, `tsgpu run`,
 * `tsgpu launch` and `tsgpu kernel`: an unknown option or command, or an
 * option without its value, is one line naming it and where the usage is
 * ("see tsgpu CMD --help"), exit status 2; options that exclude each other
 * are refused, and nothing is installed or started.
 */
import { spawnSync } from "child_process";
import { existsSync, mkdtempSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { CLI } from "../helpers";

function tsgpu(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout: 30000, env });
  if (r.error) throw new Error(`tsgpu ${args.join(" ")}: ${r.error.message}`);
  return r;
}

/** The command fails with exactly `line` on stderr (and its newline), nothing on stdout, exit 2. */
function usageError(args: string[], line: string, env?: NodeJS.ProcessEnv): void {
  const r = tsgpu(args, env);
  expect({ args, status: r.status, stderr: r.stderr, stdout: r.stdout }).toEqual({ args, status: 2, stderr: `${line}\n`, stdout: "" });
}

test("tsgpu: an unknown option or command", () => {
  usageError(["--bogus"], 'tsgpu: unknown option --bogus (see "tsgpu --help")');
  usageError(["frobnicate"], 'tsgpu: unknown command frobnicate (see "tsgpu --help")');
  const help = tsgpu(["--help"]);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^usage: tsgpu <command>/);
});

test("tsgpu install: unknown options, missing values, places that exclude each other", () => {
  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-usage-"));
  const data = mkdtempSync(join(tmpdir(), "tsgpu-usage-data-"));
  const env = { ...process.env, JUPYTER_DATA_DIR: data };
  const see = '(see "tsgpu install --help")';
  usageError(["install", "--bogus"], `tsgpu install: unknown option --bogus ${see}`, env);
  usageError(["install", "extra"], `tsgpu install: unexpected argument "extra" ${see}`, env);
  for (const opt of ["--prefix", "--name", "--display-name", "--gateway", "--image"]) {
    usageError(["install", opt], `tsgpu install: ${opt} needs a value ${see}`, env);
    usageError(["install", opt, "--user"], `tsgpu install: ${opt} needs a value ${see}`, env);
  }
  usageError(["install", "--prefix="], `tsgpu install: --prefix needs a value ${see}`, env);
  usageError(["install", "--user", "--prefix", prefix], `tsgpu install: --user and --prefix exclude each other: give one of them ${see}`, env);
  usageError(["install", "--prefix", prefix, "--user"], `tsgpu install: --prefix and --user exclude each other: give one of them ${see}`, env);
  usageError(["install", "--sys-prefix", "--prefix", prefix], `tsgpu install: --sys-prefix and --prefix exclude each other: give one of them ${see}`, env);
  usageError(["install", "--user", "--sys-prefix"], `tsgpu install: --user and --sys-prefix exclude each other: give one of them ${see}`, env);
  usageError(["install", "--gateway", "yarn"], `tsgpu install: expected distributed or kubernetes for --gateway, got "yarn" ${see}`, env);
  usageError(["install", "--image", "img"],
    `tsgpu install: --image is for Enterprise Gateway kernelspecs: add --gateway distributed or --gateway kubernetes ${see}`, env);
  // Nothing was installed by any of them.
  expect(existsSync(join(prefix, "share"))).toBe(false);
  expect(existsSync(join(data, "kernels"))).toBe(false);
});

test("tsgpu run: unknown options, a missing value, no notebook", () => {
  const see = '(see "tsgpu run --help")';
  usageError(["run", "--bogus", "x.ipynb"], `tsgpu run: unknown option --bogus ${see}`);
  usageError(["run", "x.ipynb", "--bogus=1"], `tsgpu run: unknown option --bogus ${see}`);
  usageError(["run", "x.ipynb", "--output"], `tsgpu run: --output needs a file name ${see}`);
  usageError(["run", "x.ipynb", "-o"], `tsgpu run: -o needs a file name ${see}`);
  usageError(["run"], `tsgpu run: expected one notebook file, got none ${see}`);
  usageError(["run", "a.ipynb", "b.ipynb"], `tsgpu run: expected one notebook file, got a.ipynb b.ipynb ${see}`);
});

test("tsgpu launch: an unknown option or a missing value, before anything starts; EG's own options are still ignored", () => {
  const see = '(see "tsgpu launch --help")';
  const env = { ...process.env, KERNEL_ID: "", RESPONSE_ADDRESS: "", PUBLIC_KEY: "" };
  usageError(["launch", "--bogus"], `tsgpu launch: unknown option --bogus ${see}`, env);
  usageError(["launch", "--kernel-id", "k", "--bogus=3"], `tsgpu launch: unknown option --bogus ${see}`, env);
  usageError(["launch", "-x"], `tsgpu launch: unknown option -x ${see}`, env);
  usageError(["launch", "--kernel-id"], `tsgpu launch: --kernel-id needs a value ${see}`, env);
  usageError(["launch", "--RemoteProcessProxy.port-range"], `tsgpu launch: --RemoteProcessProxy.port-range needs a value ${see}`, env);
  // EG's options for other launchers are no usage error: what is missing then is the kernel id (exit 1).
  const r = tsgpu(["launch", "--RemoteProcessProxy.spark-context-initialization-mode", "none", "--cluster-type", "k8s"], env);
  expect(r.status).toBe(1);
  expect(r.stderr).toContain("expected a kernel id for --kernel-id (or $KERNEL_ID), got none");
});

test("tsgpu kernel: no connection file or an option", () => {
  usageError(["kernel"], 'tsgpu kernel: expected a connection file (see "tsgpu kernel --help")');
  usageError(["kernel", "--bogus"], 'tsgpu kernel: unknown option --bogus (see "tsgpu kernel --help")');
  const help = tsgpu(["kernel", "--help"]);
  expect(help.status).toBe(0);
  expect(help.stdout).toMatch(/^usage: tsgpu kernel CONNECTION_FILE/);
});
