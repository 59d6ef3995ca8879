/**
 * The command line's rough edges, through the real `tsgpu` command: path
 * errors are one line naming the path, `tsgpu run` has --help and
 * --allow-errors, refuses notebooks of other languages and checks --output
 * before any cell runs, and `tsgpu install` never hangs on a folder it
 * cannot create.
 */
import { spawnSync } from "child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { CLI } from "../helpers";

function tsgpu(args: string[], timeout = 30000) {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", timeout });
  if (r.error) throw new Error(`tsgpu ${args.join(" ")}: ${r.error.message}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}

function notebook(dir: string, name: string, cells: string[], metadata: Record<string, unknown> = {}): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata,
    cells: cells.map((source) => ({ cell_type: "code", source, metadata: {}, outputs: [], execution_count: null })) }));
  return file;
}

/** stderr is exactly one line and it names `path`. */
function oneLineNaming(stderr: string, path: string): void {
  expect(stderr.endsWith("\n")).toBe(true);
  expect(stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(stderr).toContain(path);
}

describe("tsgpu run", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-cli-"));

  test("a missing file, a folder, a file that is not JSON and JSON that is not a notebook: one line naming the path", () => {
    mkdirSync(join(dir, "folder.ipynb"));
    writeFileSync(join(dir, "text.ipynb"), "hello\nworld\n");
    writeFileSync(join(dir, "list.ipynb"), "[1, 2]");
    const cases: [string, RegExp][] = [
      [join(dir, "missing.ipynb"), /^tsgpu run: cannot read \S+missing\.ipynb: no such file or folder \(ENOENT\)$/],
      [join(dir, "folder.ipynb"), /^tsgpu run: cannot read \S+folder\.ipynb: it is a folder, expected a notebook file/],
      [join(dir, "text.ipynb"), /^tsgpu run: \S+text\.ipynb is not a notebook: it is not JSON \(.*\)$/],
      [join(dir, "list.ipynb"), /^tsgpu run: \S+list\.ipynb is not a notebook: it has no "cells" list$/],
    ];
    for (const [file, message] of cases) {
      const r = tsgpu(["run", file]);
      expect(r.status).toBe(1);
      oneLineNaming(r.stderr, file);
      expect(r.stderr.trimEnd()).toMatch(message);
      expect(r.stdout).toBe("");
    }
  });

  test("--help shows the options and exits 0", () => {
    const r = tsgpu(["run", "--help"]);
    expect(r.status).toBe(0);
    for (const opt of ["usage: tsgpu run NOTEBOOK", "--output FILE", "--allow-errors", "--help"]) expect(r.stdout).toContain(opt);
    const bad = tsgpu(["run", "--frobnicate", "x.ipynb"]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe('tsgpu run: unknown option --frobnicate (see "tsgpu run --help")\n');
  });

  test("--allow-errors runs every cell, keeps the failure in its output and exits 0", () => {
    const file = notebook(dir, "errors.ipynb", ['throw new Error("first fails");', 'console.log("second runs");']);
    const out = join(dir, "errors.out.ipynb");
    const r = tsgpu(["run", file, "--allow-errors", "--output", out]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("Error: first fails");
    expect(r.stdout).toContain("second runs");
    expect(r.stderr).toBe("tsgpu run: 1 cell failed (--allow-errors: every cell ran)\n");
    const cells = JSON.parse(readFileSync(out, "utf8")).cells;
    expect(cells[0].outputs).toEqual([expect.objectContaining({ output_type: "error", evalue: "first fails" })]);
    expect(cells[1].outputs).toEqual([expect.objectContaining({ output_type: "stream", text: ["second runs\n"] })]);
    expect(cells.map((c: any) => c.execution_count)).toEqual([1, 2]);
    const stops = tsgpu(["run", file]);
    expect(stops.status).toBe(1);
    expect(stops.stdout).not.toContain("second runs");
  }, 60000);

  test("a notebook of another language is refused before a kernel starts", () => {
    const marker = join(dir, "python-ran");
    const file = notebook(dir, "python.ipynb", [`open(${JSON.stringify(marker)}, "w")`],
      { kernelspec: { name: "python3", display_name: "Python 3", language: "python" }, language_info: { name: "python" } });
    const r = tsgpu(["run", file]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`tsgpu run: ${file} is a python notebook (kernel "python3"); tsgpu runs TypeScript notebooks\n`);
    expect(r.stdout).toBe("");
    const ts = notebook(dir, "typescript.ipynb", ["1 + 1"], { kernelspec: { name: "tslab", display_name: "TypeScript", language: "typescript" } });
    expect(tsgpu(["run", ts]).status).toBe(0);
  }, 60000);

  test("--output is checked before any cell runs", () => {
    const marker = join(dir, "cell-ran");
    const file = notebook(dir, "writes.ipynb", [`require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`]);
    for (const [out, why] of [[join(dir, "no-such-folder", "x.ipynb"), "does not exist"], [dir, "it is a folder"]]) {
      const r = tsgpu(["run", file, "--output", out]);
      expect(r.status).toBe(1);
      oneLineNaming(r.stderr, out);
      expect(r.stderr).toContain(why);
      expect(r.stdout).toBe("");
      expect(existsSync(marker)).toBe(false);
    }
    const missing = tsgpu(["run", file, "--output"]);
    expect(missing.stderr).toBe('tsgpu run: --output needs a file name (see "tsgpu run --help")\n');
    expect(missing.status).toBe(2);
  });

  // Places that refuse the write only when it is tried: a file is made and removed beside the target first.
  const unwritable: [string, string, RegExp][] = [];
  if (existsSync("/sys/kernel")) unwritable.push(["sysfs", "/sys/out.ipynb", /^tsgpu run: cannot write \/sys\/out\.ipynb: cannot make a file in \/sys: (permission denied \(EACCES\)|operation not permitted \(EPERM\))$/]);
  if (existsSync("/proc/version")) unwritable.push(["procfs", "/proc/version", /^tsgpu run: cannot write \/proc\/version: the folder \/proc takes no new files \(ENOENT\)$/]);
  if (unwritable.length < 2) console.log("the /sys and /proc cases of --output are left out: this system has no /sys or /proc");
  test.each(unwritable)("--output on %s (%s) is one line naming it before any cell runs, exit 1", (_, out, message) => {
    const marker = join(dir, `ran-${_}`);
    const file = notebook(dir, `probe-${_}.ipynb`, [`require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`]);
    const r = tsgpu(["run", file, "--output", out]);
    expect(r.status).toBe(1);
    oneLineNaming(r.stderr, out);
    expect(r.stderr.trimEnd()).toMatch(message);
    expect(r.stderr).not.toMatch(/EIO|i\/o error/);
    expect(r.stdout).toBe("");
    expect(existsSync(marker)).toBe(false);
  });

  test("--output in a read-only folder is one line naming it before any cell runs, and leaves nothing there", () => {
    const ro = join(mkdtempSync(join(tmpdir(), "tsgpu-ro-")), "read-only");
    mkdirSync(ro);
    const marker = join(ro, "..", "cell-ran");
    const file = notebook(join(ro, ".."), "ro.ipynb", [`require("fs").writeFileSync(${JSON.stringify(marker)}, "ran")`]);
    chmodSync(join(ro, ".."), 0o755);
    chmodSync(ro, 0o555);
    // root writes into any folder whatever its mode: the command runs as another user then (nobody).
    const asOther = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    if (asOther.uid !== undefined) chownSync(join(ro, ".."), 65534, 65534);
    const out = join(ro, "out.ipynb");
    const r = spawnSync(process.execPath, [CLI, "run", file, "--output", out], { encoding: "utf8", timeout: 30000, ...asOther, env: { ...process.env, HOME: tmpdir() } });
    expect(r.status).toBe(1);
    oneLineNaming(r.stderr, out);
    expect(r.stderr.trimEnd()).toMatch(/: permission denied \(EACCES\)$/);
    expect(readdirSync(ro)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("tsgpu install", () => {
  const procfs = existsSync("/proc/self");
  if (!procfs) console.log("the /proc test is skipped: this system has no /proc");
  (procfs ? test : test.skip)("a --prefix the system refuses to create (/proc/nope) is one line at once, not a hang", () => {
    const r = tsgpu(["install", "--prefix", "/proc/nope/deeper"], 10000);
    expect(r.error).toBeUndefined(); // no timeout
    expect(r.status).toBe(1);
    oneLineNaming(r.stderr, "/proc/nope");
    expect(r.stderr).toBe("tsgpu install: --prefix /proc/nope/deeper: cannot create the folder /proc/nope: /proc does not accept new folders (ENOENT)\n");
  });

  test("a --prefix below a file names the file", () => {
    const file = join(mkdtempSync(join(tmpdir(), "tsgpu-cli-")), "a-file");
    writeFileSync(file, "x");
    const r = tsgpu(["install", "--prefix", join(file, "sub")]);
    expect(r.status).toBe(1);
    oneLineNaming(r.stderr, file);
    expect(r.stderr).toContain(`${file} is a file, not a folder`);
  });
});

test("tsgpu kernel with a missing, folder or non-JSON connection file: one line naming the path", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-cli-"));
  writeFileSync(join(dir, "text.json"), "not\njson\n");
  for (const [file, why] of [[join(dir, "missing.json"), "no such file or folder"], [dir, "it is a folder"], [join(dir, "text.json"), "is not JSON"]]) {
    const r = tsgpu(["kernel", file]);
    expect(r.status).toBe(1);
    oneLineNaming(r.stderr, file);
    expect(r.stderr).toMatch(new RegExp(`^tsgpu kernel: .*${why}`));
  }
});
