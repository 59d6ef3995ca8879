#!/usr/bin/env node
// Executes notebooks through nbconvert and the tsgpu kernel and writes each executed notebook back in place, so
// that the outputs committed with a notebook are those of a real run:
//   node scripts/run-notebooks.js                                   every notebooks/*.ipynb
//   node scripts/run-notebooks.js notebooks/allocation.ipynb ...    the ones named
// It needs the built kernel (npm run build) and Jupyter's nbconvert (Debian's jupyter-nbconvert). The
// kernelspec is installed into a temporary prefix, and the kernels keep their history, caches and Jupyter's
// runtime files in a temporary folder, so nothing of the user's own is read or written. Cells run top to
// bottom as "Run All" runs them; a notebook whose run fails (an error output, a timeout) is left as it was, and
// the script names it and exits with status 1. Execution timestamps are not recorded (they would change every
// line of metadata at each run); `--timeout S` sets the limit of one cell (default 300 s).
"use strict";
const { execFileSync } = require("child_process");
const { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } = require("fs");
const { tmpdir } = require("os");
const { basename, join, resolve } = require("path");

const root = join(__dirname, "..");
const CLI = join(root, "dist", "kernel", "cli.js");

/**
 * Installs the tsgpu kernelspec into a fresh prefix under `dir` and returns the environment that makes Jupyter
 * find it and keeps the kernels' files in `dir` (the type checker runs without its startup snapshot there).
 */
function kernelEnv(dir, base = process.env) {
  const { isolatedEnv } = require(join(root, "dist", "test", "isolation.js"));
  const prefix = join(dir, "kernelspec");
  const env = { ...base, ...isolatedEnv(join(dir, "home")), JUPYTER_PATH: join(prefix, "share", "jupyter"), TSGPU_CHECKER_SNAPSHOT: "0" };
  execFileSync(process.execPath, [CLI, "install", "--prefix", prefix], { env, stdio: "pipe" });
  return env;
}

/**
 * Executes the notebook at `path` with `jupyter nbconvert --execute` and the kernelspec that `env` finds,
 * and returns the executed notebook's JSON. Throws (with nbconvert's last lines of stderr) when a cell fails.
 * Options: `cellTimeoutS` (default 300), `recordTiming` (nbclient's execution timestamps in each cell's
 * metadata; default true), `writeTo` (a path that receives nbconvert's file as it wrote it).
 */
function executeNotebook(path, env, { cellTimeoutS = 300, recordTiming = true, writeTo } = {}) {
  const out = mkdtempSync(join(tmpdir(), "tsgpu-nb-"));
  const name = basename(path, ".ipynb");
  const args = ["nbconvert", "--to", "notebook", "--execute", path, "--output-dir", out, "--output", name,
    "--ExecutePreprocessor.kernel_name=tsgpu", `--ExecutePreprocessor.timeout=${cellTimeoutS}`];
  if (!recordTiming) args.push("--ExecutePreprocessor.record_timing=False");
  try {
    execFileSync("jupyter", args, { env, stdio: "pipe", maxBuffer: 64 * 1024 * 1024 });
    const file = join(out, `${name}.ipynb`);
    const nb = JSON.parse(readFileSync(file, "utf8"));
    if (writeTo) copyFileSync(file, writeTo);
    return nb;
  } catch (e) {
    const stderr = String(e.stderr || e.message).trim().split("\n").slice(-25).join("\n");
    throw new Error(`nbconvert failed on ${path}:\n${stderr}`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The notebooks a run covers: those named, else every notebooks/*.ipynb (executed copies, *.out.ipynb, left out). */
function notebooksToRun(args) {
  if (args.length) return args.map((a) => resolve(a));
  const dir = join(root, "notebooks");
  return readdirSync(dir).filter((f) => f.endsWith(".ipynb") && !f.endsWith(".out.ipynb")).sort().map((f) => join(dir, f));
}

function main(argv) {
  const args = [...argv];
  let cellTimeoutS = 300;
  const t = args.indexOf("--timeout");
  if (t >= 0) {
    cellTimeoutS = Number(args[t + 1]);
    if (!(cellTimeoutS > 0)) { console.error(`expected a number of seconds for --timeout, got ${args[t + 1]}`); process.exit(2); }
    args.splice(t, 2);
  }
  const unknown = args.find((a) => a.startsWith("-"));
  if (unknown) { console.error(`unknown option ${unknown}; usage: node scripts/run-notebooks.js [--timeout S] [NOTEBOOK.ipynb ...]`); process.exit(2); }
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-notebooks-"));
  const failed = [];
  try {
    const env = kernelEnv(dir);
    for (const path of notebooksToRun(args)) {
      const started = Date.now();
      try {
        executeNotebook(path, env, { cellTimeoutS, recordTiming: false, writeTo: path });
        console.log(`${path}: executed in ${((Date.now() - started) / 1000).toFixed(1)} s, written back`);
      } catch (e) {
        failed.push(path);
        console.error(`${path}: not written back\n${e.message}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (failed.length) {
    console.error(`FAIL: ${failed.length} notebook(s) did not run clean: ${failed.join(", ")}`);
    process.exit(1);
  }
}

module.exports = { executeNotebook, kernelEnv, notebooksToRun };

if (require.main === module) main(process.argv.slice(2));
