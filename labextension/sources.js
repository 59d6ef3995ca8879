// The sources of the prebuilt extension and their hash, which the build
// records in prebuilt/tsgpu-memory/sources.json and a test compares with the
// sources in the tree: a committed build older than its sources fails it.
"use strict";
const { createHash } = require("crypto");
const { readdirSync, readFileSync } = require("fs");
const { join } = require("path");

const DIR = __dirname;
/** Where the build goes (package.json's jupyterlab.outputDir) and the record of what it was built from. */
const PREBUILT = join(DIR, "prebuilt", "tsgpu-memory");
const RECORD = join(PREBUILT, "sources.json");

/** The files the build is made from, relative to labextension/, sorted. */
function sourceFiles() {
  const inDir = (d, ext) => readdirSync(join(DIR, d)).filter((f) => f.endsWith(ext)).map((f) => `${d}/${f}`);
  return ["package.json", "package-lock.json", "tsconfig.json", ...inDir("src", ".ts"), ...inDir("style", ".css")].sort();
}

/** sha256 over every source file's name and bytes, in order. */
function sourcesHash() {
  const h = createHash("sha256");
  for (const f of sourceFiles()) {
    h.update(f);
    h.update("\0");
    h.update(readFileSync(join(DIR, f)));
    h.update("\0");
  }
  return h.digest("hex");
}

module.exports = { DIR, PREBUILT, RECORD, sourceFiles, sourcesHash };
