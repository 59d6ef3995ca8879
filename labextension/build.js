#!/usr/bin/env node
// npm run build:labextension: rebuilds the prebuilt JupyterLab extension
// (prebuilt/tsgpu-memory, kept in git) from src/ and style/. It installs the
// folder's own dependencies (JupyterLab's builder and packages; the
// repository's npm install never pulls them), compiles the TypeScript, and
// runs JupyterLab's `jupyter labextension build` from the reference Python
// (TSGPU_PYTHON, else build/pyref: node scripts/pyref.js makes it) against
// that JupyterLab's own package metadata, so that nothing is fetched for it;
// then records the sources' hash (sources.js).
"use strict";
const { spawnSync } = require("child_process");
const { existsSync, rmSync, writeFileSync } = require("fs");
const { dirname, join } = require("path");
const { DIR, PREBUILT, RECORD, sourceFiles, sourcesHash } = require("./sources");

function run(cmd, args, options = {}) {
  console.error(`$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { cwd: DIR, stdio: "inherit", ...options });
  if (r.status !== 0) { console.error(`build:labextension: ${cmd} failed (exit ${r.status ?? r.signal})`); process.exit(1); }
}

const python = process.env.TSGPU_PYTHON || join(DIR, "..", "build", "pyref", "bin", "python");
if (!existsSync(python)) { console.error(`build:labextension: no Python with JupyterLab at ${python} (node scripts/pyref.js makes one, or set TSGPU_PYTHON)`); process.exit(1); }
const core = spawnSync(python, ["-c", "import jupyterlab, os; print(os.path.join(os.path.dirname(jupyterlab.__file__), 'staging', 'package.json'))"], { encoding: "utf8" });
if (core.status !== 0) { console.error(`build:labextension: ${python} has no JupyterLab: ${core.stderr.trim()}`); process.exit(1); }

run("npm", ["ci", "--no-audit", "--no-fund"]);
run(join(DIR, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"]);
rmSync(PREBUILT, { recursive: true, force: true });
const bin = dirname(python);
run(join(bin, "jupyter"), ["labextension", "build", "--core-package-file", core.stdout.trim(), "."], { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
writeFileSync(RECORD, JSON.stringify({ sha256: sourcesHash(), files: sourceFiles() }, null, 1) + "\n");
console.error(`build:labextension: ${PREBUILT}`);
