#!/usr/bin/env node
// The project's test command (`npm test`). It
//  1. makes sure the Jupyter tools the tests drive are present (Debian's
//     jupyter-client, jupyter-nbconvert, python3-nbclient,
//     python3-jupyter-kernel-test, jupyter-server): installs them with apt-get
//     when missing and running as root; otherwise fails under CI=true, and
//     elsewhere runs the rest and says what it skipped;
//  2. builds the addon and the TypeScript (incremental);
//  3. installs the kernelspec into a temporary prefix (JUPYTER_PATH);
//  4. runs the jest suites (unit, kernel protocol, magics, native, e2e) and the
//     official conformance suite (jupyter_kernel_test) against the kernel.
"use strict";
const { spawnSync } = require("child_process");
const { mkdtempSync, existsSync, readdirSync, rmSync } = require("fs");
const { tmpdir } = require("os");
const { join } = require("path");

const root = join(__dirname, "..");
const PY = "/usr/bin/python3";
// python3-torch: the differential tests of the tensor runtime (test/native/torch_*.test.ts);
// libopenblas0: the BLAS the CPU matmul loads at run time.
const APT_PACKAGES = ["jupyter-client", "jupyter-nbconvert", "python3-nbclient", "python3-jupyter-kernel-test", "jupyter-server", "python3-ipykernel",
  "python3-torch", "libopenblas0"];
const PY_MODULES = ["jupyter_client", "nbclient", "nbconvert", "jupyter_kernel_test", "jupyter_server", "torch"];
const inCI = process.env.CI === "true" || process.env.CI === "1";

function run(cmd, args, opts = {}) {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.error) console.error(r.error.message);
  return r.status === null ? 1 : r.status;
}

function jupyterMissing() {
  if (!existsSync(PY)) return `${PY} not found`;
  const r = spawnSync(PY, ["-c", `import ${PY_MODULES.join(", ")}`], { encoding: "utf8" });
  if (r.status !== 0) return (r.stderr.trim().split("\n").pop() || "python modules missing");
  if (!existsSync("/usr/bin/jupyter-nbconvert") && spawnSync("sh", ["-c", "command -v jupyter-nbconvert"]).status !== 0) return "jupyter-nbconvert not on PATH";
  return null;
}

function ensureJupyter() {
  let missing = jupyterMissing();
  if (!missing) return null;
  if (typeof process.getuid === "function" && process.getuid() === 0 && spawnSync("sh", ["-c", "command -v apt-get"]).status === 0) {
    console.log(`Jupyter tools missing (${missing}); installing ${APT_PACKAGES.join(" ")} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    run("apt-get", ["update", "-qq"], { env });
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...APT_PACKAGES], { env });
    missing = jupyterMissing();
    if (!missing) return null;
  }
  if (inCI) {
    console.error(`FAIL: the Jupyter tools the tests need are missing (${missing}) and could not be installed.\n` +
      `Install the Debian packages: ${APT_PACKAGES.join(" ")}`);
    process.exit(1);
  }
  console.warn(`WARNING: Jupyter tools missing (${missing}); the nbconvert and conformance tests will be skipped.\n` +
    `Install: sudo apt-get install ${APT_PACKAGES.join(" ")}`);
  return missing;
}

function main() {
  const missing = ensureJupyter();
  if (run("npm", ["run", "build", "--silent"]) !== 0) { console.error("FAIL: build"); process.exit(1); }

  const prefix = mkdtempSync(join(tmpdir(), "tsgpu-kernelspec-"));
  const env = { ...process.env, JUPYTER_PATH: join(prefix, "share", "jupyter"), TSGPU_TEST_PREFIX: prefix };
  if (missing) env.TSGPU_SKIP_JUPYTER = missing;
  const failures = [];
  try {
    if (run(process.execPath, [join(root, "dist", "kernel", "cli.js"), "install", "--prefix", prefix], { env }) !== 0) failures.push("kernelspec install");
    const jestArgs = [join(root, "node_modules", "jest", "bin", "jest.js"), "--ci", ...process.argv.slice(2)];
    if (run(process.execPath, jestArgs, { env }) !== 0) failures.push("jest");
    const pyTests = readdirSync(join(root, "test", "kernel")).filter((f) => /^test_.*\.py$/.test(f));
    if (pyTests.length && process.argv.length <= 2) {
      if (missing) console.warn(`SKIPPED: ${pyTests.join(", ")} (${missing})`);
      else if (run(PY, ["-m", "unittest", "discover", "-v", "-s", join("test", "kernel"), "-p", "test_*.py"], { env }) !== 0) failures.push("conformance suite");
    }
  } finally {
    rmSync(prefix, { recursive: true, force: true });
  }
  if (failures.length) { console.error(`\nFAIL: ${failures.join(", ")}`); process.exit(1); }
  console.log("\nAll tests passed.");
}

main();
