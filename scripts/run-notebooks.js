#!/usr/bin/env node
// Executes notebooks with the tsgpu kernel and writes each executed notebook back in place, so that the outputs
// committed with a notebook are those of a real run, and the figures its text quotes are those outputs':
//   node scripts/run-notebooks.js                                   every notebooks/*.ipynb
//   node scripts/run-notebooks.js notebooks/allocation.ipynb ...    the ones named
//   --runner nbconvert|tsgpu   who executes: Jupyter's `jupyter nbconvert --execute` with the installed kernelspec,
//                              or `tsgpu run` (no Python needed; it stores outputs as nbconvert does). Default:
//                              nbconvert where `jupyter nbconvert` runs, else tsgpu (the script says which).
//   --timeout S                the limit of one cell (default 300 s)
// It needs the built kernel (npm run build). The kernels keep their history, caches and Jupyter's runtime files
// in a temporary folder (with nbconvert, the kernelspec is installed into a temporary prefix too), so nothing of
// the user's own is read or written. A notebook with a source beside it (NAME.cells.js, see
// scripts/make-notebook.js) is run as its source makes it, and the placeholders of the source's markdown are
// filled from the run's outputs (scripts/notebook-figures.js). Cells run top to bottom as "Run All" runs them; a
// notebook whose run fails (an error output not tagged raises-exception, a timeout, a placeholder without its
// value) is left as it was, and the script names it and exits with status 1. Execution timestamps are not
// recorded (they would change every line of metadata at each run).
"use strict";
const { execFileSync, spawnSync } = require("child_process");
const { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } = require("fs");
const { tmpdir } = require("os");
const { basename, dirname, join, resolve } = require("path");
const { notebookFromCells } = require("./make-notebook");
const { fillNotebook } = require("./notebook-figures");

const root = join(__dirname, "..");
const CLI = join(root, "dist", "kernel", "cli.js");

/** The environment that keeps the kernels' files in `dir` (the type checker runs without its startup snapshot there). */
function isolatedKernelEnv(dir, base = process.env) {
  const { isolatedEnv } = require(join(root, "dist", "test", "isolation.js"));
  return { ...base, ...isolatedEnv(join(dir, "home")), TSGPU_CHECKER_SNAPSHOT: "0" };
}

/**
 * Installs the tsgpu kernelspec into a fresh prefix under `dir` and returns the environment that makes Jupyter
 * find it and keeps the kernels' files in `dir`.
 */
function kernelEnv(dir, base = process.env) {
  const prefix = join(dir, "kernelspec");
  const env = { ...isolatedKernelEnv(dir, base), JUPYTER_PATH: join(prefix, "share", "jupyter") };
  execFileSync(process.execPath, [CLI, "install", "--prefix", prefix], { env, stdio: "pipe" });
  return env;
}

/** Whether `jupyter nbconvert` runs here. */
function nbconvertAvailable() {
  const r = spawnSync("jupyter", ["nbconvert", "--version"], { stdio: "pipe" });
  return r.status === 0;
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

/**
 * Executes the notebook at `path` with `tsgpu run` (the kernel of dist/, no Jupyter), in the environment `env`,
 * and returns the executed notebook's JSON, stored as nbconvert stores it. Throws (with the run's last lines)
 * when a cell fails or runs past `cellTimeoutS` (default 300). `writeTo`: a path that receives the file.
 */
function executeWithTsgpu(path, env, { cellTimeoutS = 300, writeTo } = {}) {
  const out = mkdtempSync(join(tmpdir(), "tsgpu-nb-"));
  const file = join(out, basename(path));
  try {
    const r = spawnSync(process.execPath, [CLI, "run", path, "--output", file, "--timeout", String(cellTimeoutS)],
      { env, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
    if (r.status !== 0) {
      const tail = `${r.stdout ?? ""}\n${r.stderr ?? ""}${r.error ? "\n" + r.error.message : ""}`.trim().split("\n").slice(-25).join("\n");
      throw new Error(`tsgpu run failed on ${path} (status ${r.status}):\n${tail}`);
    }
    const nb = JSON.parse(readFileSync(file, "utf8"));
    if (writeTo) copyFileSync(file, writeTo);
    return nb;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Runs one notebook and writes it back: built from NAME.cells.js when that exists beside it (into a hidden file
 * next to it, so the kernel's working folder is the same), executed by `runner`, its markdown filled from the
 * source's placeholders, written as nbformat writes a notebook. Nothing is written when any of it fails.
 */
function runAndWriteBack(path, runner, env, cellTimeoutS) {
  const sourceFile = path.replace(/\.ipynb$/, ".cells.js");
  const source = existsSync(sourceFile) ? require(resolve(sourceFile)) : null;
  const input = source ? join(dirname(path), `.${basename(path, ".ipynb")}.run-notebooks.ipynb`) : path;
  try {
    if (source) writeFileSync(input, JSON.stringify(notebookFromCells(source), null, 1) + "\n");
    const nb = runner === "tsgpu" ? executeWithTsgpu(input, env, { cellTimeoutS }) : executeNotebook(input, env, { cellTimeoutS, recordTiming: false });
    if (source) fillNotebook(nb, source);
    const { notebookJson } = require(join(root, "dist", "kernel", "commands", "notebook.js"));
    writeFileSync(path, notebookJson(nb));
  } finally {
    if (source) rmSync(input, { force: true });
  }
}

/** The notebooks a run covers: those named, else every notebooks/*.ipynb (executed copies, *.out.ipynb, left out). */
function notebooksToRun(args) {
  if (args.length) return args.map((a) => resolve(a));
  const dir = join(root, "notebooks");
  return readdirSync(dir).filter((f) => f.endsWith(".ipynb") && !f.endsWith(".out.ipynb") && !f.startsWith(".")).sort().map((f) => join(dir, f));
}

function main(argv) {
  const args = [...argv];
  const usage = "usage: node scripts/run-notebooks.js [--runner nbconvert|tsgpu] [--timeout S] [NOTEBOOK.ipynb ...]";
  const option = (name) => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const timeout = option("--timeout");
  const cellTimeoutS = timeout === undefined ? 300 : Number(timeout);
  if (!(cellTimeoutS > 0)) { console.error(`expected a number of seconds for --timeout, got ${timeout}`); process.exit(2); }
  let runner = option("--runner");
  if (runner !== undefined && runner !== "nbconvert" && runner !== "tsgpu") { console.error(`--runner is nbconvert or tsgpu, got ${runner}\n${usage}`); process.exit(2); }
  const unknown = args.find((a) => a.startsWith("-"));
  if (unknown) { console.error(`unknown option ${unknown}; ${usage}`); process.exit(2); }
  if (runner === undefined) {
    runner = nbconvertAvailable() ? "nbconvert" : "tsgpu";
    if (runner === "tsgpu") console.log("jupyter nbconvert does not run here: executing with tsgpu run (--runner tsgpu)");
  }
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-notebooks-"));
  const failed = [];
  try {
    const env = runner === "nbconvert" ? kernelEnv(dir) : isolatedKernelEnv(dir);
    for (const path of notebooksToRun(args)) {
      const started = Date.now();
      try {
        runAndWriteBack(path, runner, env, cellTimeoutS);
        console.log(`${path}: executed by ${runner} in ${((Date.now() - started) / 1000).toFixed(1)} s, written back`);
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

module.exports = { executeNotebook, executeWithTsgpu, kernelEnv, isolatedKernelEnv, notebooksToRun, runAndWriteBack };

if (require.main === module) main(process.argv.slice(2));
