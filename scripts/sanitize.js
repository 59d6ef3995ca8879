#!/usr/bin/env node
// The sanitizer run: builds the native code with AddressSanitizer and
// UndefinedBehaviorSanitizer in a folder of its own (build-sanitize/, CPU
// only; the normal build/ is never touched), then runs under them
//  1. the C++ unit tests (the executables are instrumented themselves);
//  2. a set of jest suites of the allocator, storages, ops and autograd core,
//     and the kernel's start -> cell -> shutdown -> exit cycle
//     (test/kernel/exit_cycle.test.ts), with Node loading the instrumented
//     addons (TSGPU_NATIVE_DIR) and the sanitizer runtimes preloaded.
// The code is built with -fno-sanitize-recover, so a report ends the process
// that made it and fails the test; the run fails on any failed test.
//
//   node scripts/sanitize.js                 build, then everything above
//   node scripts/sanitize.js dist/test/x.js  build, then only those jest files
//
// `npm test` runs it as one step (scripts/test.js). TSGPU_SKIP_SANITIZE=1 skips
// that step on a developer's machine; under CI it always runs.
"use strict";
const { spawnSync } = require("child_process");
const { existsSync } = require("fs");
const { join } = require("path");

const root = join(__dirname, "..");
/** The sanitizer build's folder, and where its addons and test executables land. */
const BUILD_DIR = join(root, "build-sanitize");
const OUT_DIR = join(BUILD_DIR, "Release");
const SANITIZERS = "address,undefined";

/** The C++ unit tests of the CMakeLists (tsgpu_cuda_gemm_tests needs CUDA, which this build leaves out). */
const CPP_TESTS = ["tsgpu_core_tests", "tsgpu_runtime_tests", "tsgpu_ops_tests", "tsgpu_cpu_tests"];

/**
 * The jest suites run under the sanitizers: the allocator and its statistics, storages and views, ops
 * (CPU kernels against PyTorch, reductions, indexing, linalg), autograd's core, the runtime in several
 * environments (worker threads that end before the process), interrupts between chunks, and the exit cycle.
 */
const JEST_SUITES = [
  "test/native/memory.test.js",
  "test/native/summary.test.js",
  "test/native/tensor.test.js",
  "test/native/small_op.test.js",
  "test/native/temporaries.test.js",
  "test/native/teardown.test.js",
  "test/native/interrupt.test.js",
  "test/native/errors.test.js",
  "test/native/torch_views.test.js",
  "test/native/torch_index.test.js",
  "test/native/torch_reduce.test.js",
  "test/native/linalg.test.js",
  "test/native/autograd/graph_memory.test.js",
  "test/native/autograd/torch_grad.test.js",
  "test/kernel/exit_cycle.test.js",
].map((f) => join("dist", f));

function run(cmd, args, opts = {}) {
  console.log(`\n$ ${cmd} ${args.join(" ")}`);
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.error) console.error(r.error.message);
  return r.status === null ? 1 : r.status;
}

/** The path of a runtime library of the C++ compiler the build used (gcc and clang both answer -print-file-name). */
function compilerLibrary(name) {
  const cxx = process.env.CXX || "c++";
  const r = spawnSync(cxx, [`-print-file-name=${name}`], { encoding: "utf8" });
  const file = (r.stdout || "").trim();
  if (r.status !== 0 || !file.startsWith("/") || !existsSync(file)) {
    throw new Error(`the sanitizer runtime ${name} was not found by ${cxx} -print-file-name (install the compiler's libasan and libubsan)`);
  }
  return file;
}

/**
 * The environment that runs Node (and the kernels and checkers it starts) on the instrumented addons:
 *  - LD_PRELOAD: libasan first, since it must replace malloc before anything allocates (Node is not
 *    instrumented, so nothing else loads it first), and libubsan;
 *  - ASAN_OPTIONS: detect_leaks=0, since Node and V8 keep memory to the end of the process on purpose
 *    (the isolate's heap, the platform) and the leak report at exit would list only theirs;
 *    allow_user_segv_handler=1 lets V8 keep its own SIGSEGV handler (WebAssembly's bounds traps);
 *    abort_on_error=0 and exitcode=86 make a report a plain failing status, with the report on stderr;
 *  - UBSAN_OPTIONS: print_stacktrace=1 (the code is built not to recover, so the first report ends it).
 */
function sanitizerEnv(base = process.env) {
  return {
    ...base,
    LD_PRELOAD: [compilerLibrary("libasan.so"), compilerLibrary("libubsan.so"), base.LD_PRELOAD].filter(Boolean).join(":"),
    ASAN_OPTIONS: "detect_leaks=0:allow_user_segv_handler=1:abort_on_error=0:exitcode=86:print_summary=1",
    UBSAN_OPTIONS: "print_stacktrace=1:halt_on_error=1",
    TSGPU_NATIVE_DIR: OUT_DIR,
  };
}

/** Builds the instrumented variant (incremental; a fresh one compiles every native file once). */
function build() {
  const cmakeJs = join(root, "node_modules", "cmake-js", "bin", "cmake-js");
  return run(process.execPath, [cmakeJs, "compile", "--log-level", "warn", "-O", BUILD_DIR, "-p", "2",
    `--CDTSGPU_SANITIZE=${SANITIZERS}`, "--CDTSGPU_ENABLE_CUDA=OFF"]);
}

/**
 * The whole sanitizer step: builds, runs the C++ tests and the jest suites (or `jestFiles`) under it with
 * `env` around it (npm test's isolated folders). Returns the names of the parts that failed.
 */
function runSanitized({ env = process.env, jestFiles = JEST_SUITES, jestArgs = [] } = {}) {
  const started = Date.now();
  const failed = [];
  if (build() !== 0) return ["sanitizer build"];
  const built = Date.now();
  let senv;
  try { senv = sanitizerEnv(env); } catch (e) { console.error(`FAIL: ${e.message}`); return ["sanitizer runtime"]; }
  for (const t of CPP_TESTS) {
    if (run(join(OUT_DIR, t), [], { env: { ...env, ASAN_OPTIONS: senv.ASAN_OPTIONS, UBSAN_OPTIONS: senv.UBSAN_OPTIONS } }) !== 0) failed.push(`${t} under the sanitizers`);
  }
  const jest = join(root, "node_modules", "jest", "bin", "jest.js");
  // The exit cycle ten times here (a kernel starts about three times slower on the instrumented build; the
  // normal suite runs it 50 times).
  const jestEnv = { ...senv, TSGPU_EXIT_CYCLES: env.TSGPU_EXIT_CYCLES || "10" };
  if (run(process.execPath, [jest, "--ci", ...jestArgs, ...jestFiles], { env: jestEnv }) !== 0) failed.push("jest suites under the sanitizers");
  const s = (ms) => `${(ms / 1000).toFixed(0)} s`;
  console.log(`\nsanitizer step: build ${s(built - started)}, tests ${s(Date.now() - built)}, total ${s(Date.now() - started)}`);
  return failed;
}

module.exports = { BUILD_DIR, OUT_DIR, CPP_TESTS, JEST_SUITES, sanitizerEnv, runSanitized };

if (require.main === module) {
  const files = process.argv.slice(2);
  const failed = runSanitized(files.length ? { jestFiles: files } : {});
  if (failed.length) { console.error(`\nFAIL: ${failed.join(", ")}`); process.exit(1); }
  console.log("\nNo sanitizer reports.");
}
