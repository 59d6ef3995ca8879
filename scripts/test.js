#!/usr/bin/env node
// The project's test command (`npm test`). It
//  1. makes sure the Jupyter tools the tests drive are present (Debian's
//     jupyter-client, jupyter-nbconvert, python3-nbclient,
//     python3-jupyter-kernel-test, jupyter-server; jupyter-notebook and
//     chromium for the browser test): installs them with apt-get
//     when missing and running as root; otherwise fails under CI=true, and
//     elsewhere runs the rest and says what it skipped;
//  2. builds the addon and the TypeScript (incremental);
//  3. installs the kernelspec into a temporary prefix (JUPYTER_PATH);
//  4. runs the jest suites (unit, kernel protocol, magics, native, e2e) and the
//     official conformance suite (jupyter_kernel_test) against the kernel,
//     each with its own history file, code cache and Jupyter folders in a
//     temporary folder (test/isolation.ts), which the kernels they start
//     inherit;
//  5. checks every message those kernels sent (recorded through
//     TSGPU_PROTOCOL_LOG) against the strict schema of the messaging spec;
//  6. builds the native code with AddressSanitizer and UndefinedBehaviorSanitizer
//     (build-sanitize/, CPU only) and runs the C++ tests, the native suites
//     that matter most and the kernel's exit cycle under them
//     (scripts/sanitize.js); TSGPU_SKIP_SANITIZE=1 skips this step, except
//     under CI=true, where it always runs;
//  7. fails when the run changed the user's own tsgpu files
//     (~/.local/share/tsgpu, ~/.cache/tsgpu): it snapshots them before and
//     compares after.
"use strict";
const { spawnSync } = require("child_process");
const { mkdtempSync, existsSync, readdirSync, readFileSync, rmSync } = require("fs");
const { tmpdir } = require("os");
const { join } = require("path");

const root = join(__dirname, "..");
const PY = "/usr/bin/python3";
// python3-pycryptodome: the Enterprise Gateway launcher's tests (test/kernel/test_gateway_launch.py);
// python3-torch: the differential tests of the tensor runtime (test/native/torch_*.test.ts);
// libopenblas0: the BLAS the CPU matmul loads at run time.
// jupyter-notebook and chromium: the browser test (test/e2e/browser.test.ts) opens the classic Notebook in headless Chromium.
const APT_PACKAGES = ["jupyter-client", "jupyter-nbconvert", "python3-nbclient", "python3-jupyter-kernel-test", "jupyter-server", "python3-ipykernel",
  "python3-pycryptodome", "python3-torch", "libopenblas0", "jupyter-notebook", "chromium", "jupyter-console"];
const PY_MODULES = ["jupyter_client", "nbclient", "nbconvert", "jupyter_kernel_test", "jupyter_server", "Cryptodome", "torch", "jupyter_console"];
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

/** The browser test's programs (it says itself why it skips, or fails under CI, when they are missing). */
function browserMissing() {
  const gone = ["/usr/bin/chromium", "/usr/bin/jupyter-notebook"].filter((f) => !existsSync(f));
  return gone.length ? `${gone.join(", ")} not found` : null;
}

function ensureJupyter() {
  let missing = jupyterMissing() || browserMissing();
  if (!missing) return null;
  if (typeof process.getuid === "function" && process.getuid() === 0 && spawnSync("sh", ["-c", "command -v apt-get"]).status === 0) {
    console.log(`Jupyter tools missing (${missing}); installing ${APT_PACKAGES.join(" ")} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    run("apt-get", ["update", "-qq"], { env });
    run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...APT_PACKAGES], { env });
    missing = jupyterMissing();
    if (!missing) return null;
  }
  missing = jupyterMissing();
  if (!missing) return null; // only the browser test's programs are missing: that test says so itself
  if (inCI) {
    console.error(`FAIL: the Jupyter tools the tests need are missing (${missing}) and could not be installed.\n` +
      `Install the Debian packages: ${APT_PACKAGES.join(" ")}`);
    process.exit(1);
  }
  console.warn(`WARNING: Jupyter tools missing (${missing}); the nbconvert and conformance tests will be skipped.\n` +
    `Install: sudo apt-get install ${APT_PACKAGES.join(" ")}`);
  return missing;
}

/**
 * The failed tests of a jest JSON report, one entry each: the file, the test's
 * full name and the first lines of its failure message (a suite that failed to
 * run gives its own message). An unreadable report gives one line saying so.
 */
function jestFailures(reportPath) {
  let report;
  try {
    report = JSON.parse(readFileSync(reportPath, "utf8"));
  } catch (e) {
    return [`  (no jest report at ${reportPath}: ${e.message})`];
  }
  const firstLines = (text) => String(text || "").replace(/\u001b\[[0-9;]*m/g, "").split("\n")
    .map((l) => l.trimEnd()).filter((l) => l.trim() !== "").slice(0, 6).map((l) => `      ${l}`).join("\n");
  const out = [];
  for (const file of report.testResults || []) {
    const rel = String(file.name || "").replace(`${root}/`, "");
    const failed = (file.assertionResults || []).filter((a) => a.status === "failed");
    for (const a of failed) out.push(`  ${rel} › ${a.fullName}\n${firstLines((a.failureMessages || []).join("\n"))}`);
    if (!failed.length && file.status === "failed") out.push(`  ${rel} (the suite failed to run)\n${firstLines(file.message)}`);
  }
  return out;
}

function main() {
  const missing = ensureJupyter();
  if (run("npm", ["run", "build", "--silent"]) !== 0) { console.error("FAIL: build"); process.exit(1); }

  const { isolatedEnv, userFolders, snapshot, changes } = require(join(root, "dist", "test", "isolation.js"));
  const userFiles = userFolders();
  const before = snapshot(userFiles);
  const scratch = mkdtempSync(join(tmpdir(), "tsgpu-test-"));
  const prefix = join(scratch, "kernelspec");
  // Every kernel the tests start (directly, through jupyter_client or nbconvert) appends what it sends here.
  const protocolLog = join(scratch, "protocol-log.jsonl");
  const base = { ...process.env, JUPYTER_PATH: join(prefix, "share", "jupyter"), TSGPU_PROTOCOL_LOG: protocolLog };
  if (missing) base.TSGPU_SKIP_JUPYTER = missing;
  // PyTorch 2 for CPU, safetensors and JupyterLab from pip (scripts/pyref.js): the reference of the differential
  // tests, the other side of the safetensors tests and the JupyterLab the browser tests open.
  if (!process.env.TSGPU_PYTHON) {
    const ref = require(join(root, "scripts", "pyref.js")).ensurePyref();
    if (ref.python) base.TSGPU_PYTHON = ref.python;
    else if (inCI) { console.error(`FAIL: the reference Python environment: ${ref.error}`); process.exit(1); }
    else console.warn(`WARNING: the reference Python environment: ${ref.error}; the differential tests use Debian's python3-torch`);
  }
  const failures = [];
  let failedTests = [];
  try {
    // The kernelspec only: the checker's snapshot is built for each suite's own cache folder (jest's global setup).
    if (run(process.execPath, [join(root, "dist", "kernel", "cli.js"), "install", "--prefix", prefix], { env: { ...base, TSGPU_CHECKER_SNAPSHOT: "0" } }) !== 0) failures.push("kernelspec install");
    const jestReport = join(scratch, "jest-results.json");
    const jestArgs = [join(root, "node_modules", "jest", "bin", "jest.js"), "--ci", "--json", `--outputFile=${jestReport}`, ...process.argv.slice(2)];
    if (run(process.execPath, jestArgs, { env: { ...base, ...isolatedEnv(join(scratch, "jest")) } }) !== 0) {
      failures.push("jest");
      failedTests = jestFailures(jestReport);
    }
    const pyTests = readdirSync(join(root, "test", "kernel")).filter((f) => /^test_.*\.py$/.test(f));
    const fullRun = process.argv.length <= 2;
    if (pyTests.length && fullRun) {
      const env = { ...base, ...isolatedEnv(join(scratch, "conformance")) };
      if (missing) console.warn(`SKIPPED: ${pyTests.join(", ")} (${missing})`);
      else if (run(PY, ["-m", "unittest", "discover", "-v", "-s", join("test", "kernel"), "-p", "test_*.py"], { env }) !== 0) failures.push("conformance suite");
    }
    // The sanitizer build, on a full run only (a run of chosen files is a developer's quick check).
    if (fullRun && process.env.TSGPU_SKIP_SANITIZE === "1" && !inCI) console.warn("SKIPPED: the sanitizer step (TSGPU_SKIP_SANITIZE=1)");
    else if (fullRun) {
      const { runSanitized } = require(join(root, "scripts", "sanitize.js"));
      failures.push(...runSanitized({ env: { ...base, ...isolatedEnv(join(scratch, "sanitize")) } }));
    }
    // A full run must have made the kernel send every message type the schema knows.
    const checkArgs = [join(root, "scripts", "check-protocol-log.js"), protocolLog, ...(fullRun ? ["--require-all"] : [])];
    if (run(process.execPath, checkArgs, { env: base }) !== 0) failures.push("protocol log (messages that break the messaging spec's schema)");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const changed = changes(before, snapshot(userFiles));
  if (changed.length) {
    console.error(`\nFAIL: the tests changed the user's own tsgpu files (${userFiles.join(", ")}); ` +
      `every test must use the history file, cache and folders of its run (test/isolation.ts). ` +
      `(A tsgpu kernel used outside the tests during the run changes them too.)\n  ${changed.join("\n  ")}`);
    failures.push(`${changed.length} of the user's tsgpu files changed`);
  }
  if (failures.length) {
    // Repeated last, where a log's tail shows it: which tests failed and why (jest's full report is far above).
    if (failedTests.length) console.error(`\nFailed jest tests (${failedTests.length}):\n${failedTests.join("\n")}`);
    console.error(`\nFAIL: ${failures.join(", ")}`);
    process.exit(1);
  }
  console.log("\nAll tests passed.");
}

main();
