#!/usr/bin/env node
// The Python the tests compare against and drive JupyterLab with: a virtual
// environment under build/pyref made from Debian's python3 with pip, holding
// PyTorch 2 for CPU, safetensors, numpy and JupyterLab 4. pip finds them in
// the machine's package index (pip's own configuration); the environment is
// kept between runs and made again when the package list below changes.
//
//   node scripts/pyref.js          # makes it if needed, prints its python's path
//
// Exits 1 with the package pip could not install; scripts/test.js then fails
// under CI and falls back to Debian's python3-torch elsewhere.
"use strict";
const { spawnSync } = require("child_process");
const { existsSync, readFileSync, writeFileSync, rmSync } = require("fs");
const { join } = require("path");

const root = join(__dirname, "..");
const dir = join(root, "build", "pyref");
const PY = join(dir, "bin", "python");
/** What the tests import from it (the stamp file records this list). */
const PACKAGES = ["torch", "safetensors", "numpy", "jupyterlab"];
const stamp = join(dir, "tsgpu-packages.txt");

function ensurePyref(log = console.log) {
  const want = PACKAGES.join(" ");
  if (existsSync(PY) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) return { python: PY };
  rmSync(dir, { recursive: true, force: true });
  log(`Making the reference Python environment in ${dir} (${want}); this happens once`);
  let r = spawnSync("/usr/bin/python3", ["-m", "venv", dir], { stdio: "inherit" });
  if (r.status !== 0) return { error: "python3 -m venv failed (Debian's python3-venv)" };
  r = spawnSync(join(dir, "bin", "pip"), ["install", "-q", "--retries", "0", "--timeout", "5", ...PACKAGES], { stdio: "inherit" });
  if (r.status !== 0) return { error: `pip could not install ${want}` };
  r = spawnSync(PY, ["-c", `import ${PACKAGES.join(", ")}`], { encoding: "utf8" });
  if (r.status !== 0) return { error: (r.stderr || "").trim().split("\n").pop() };
  writeFileSync(stamp, want);
  return { python: PY };
}

module.exports = { ensurePyref, PYREF_PYTHON: PY };

if (require.main === module) {
  const r = ensurePyref((s) => console.error(s));
  if (r.error) { console.error(`pyref: ${r.error}`); process.exit(1); }
  console.log(r.python);
}
