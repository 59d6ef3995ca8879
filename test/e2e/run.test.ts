/** `tsgpu run` executes the quickstart through the kernel over zeromq. */
import { spawnSync } from "child_process";
import { mkdtempSync, readFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import * as torch from "../../native/index";
import { native } from "../../native/addon";
import { CLI, cudaDriverLibraryFound, NO_DRIVER_REASON, ROOT } from "../helpers";
import { checkQuickstart } from "./quickstart";
import { jupyterTest, kernelspecEnv } from "../jupyter";

test("tsgpu run prints the cells' output and writes the executed notebook", () => {
  const out = join(mkdtempSync(join(tmpdir(), "tsgpu-run-")), "quickstart.out.ipynb");
  const r = spawnSync(process.execPath, [CLI, "run", join(ROOT, "notebooks", "quickstart.ipynb"), "--output", out], { encoding: "utf8", timeout: 120000 });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("allocated: 4000256 bytes");
  expect(r.stdout).toMatch(/allocated\s+3\.81 MiB\s+[█░]{20}\s+1 live tensor/);
  expect(r.stdout).toContain("Wrote " + out);
  // Where CUDA cannot be used, the notebook and %memory say why (in plain words when there is no driver).
  if (!torch.cuda.isAvailable()) expect(r.stdout).toContain(`CUDA unavailable: ${torch.cuda.unavailableReason()}`);
  if (!torch.cuda.isAvailable() && native.builtWithCuda && !cudaDriverLibraryFound()) expect(r.stdout).toContain(`CUDA unavailable: ${NO_DRIVER_REASON}`);
  const nb = JSON.parse(readFileSync(out, "utf8"));
  checkQuickstart(nb);
  expect(nb.cells.filter((c: any) => c.cell_type === "code").every((c: any) => typeof c.execution_count === "number")).toBe(true);
}, 120000);

test("tsgpu run exits non-zero and shows the traceback when a cell fails", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-"));
  const nb = { nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [
    { cell_type: "code", source: "const a = 1;\nthrow new RangeError(`bad ${a}`);", metadata: {}, outputs: [], execution_count: null },
    { cell_type: "code", source: "console.log('not reached')", metadata: {}, outputs: [], execution_count: null },
  ] };
  require("fs").writeFileSync(join(dir, "fail.ipynb"), JSON.stringify(nb));
  const r = spawnSync(process.execPath, [CLI, "run", join(dir, "fail.ipynb")], { encoding: "utf8", timeout: 60000 });
  expect(r.status).toBe(1);
  expect(r.stdout).toContain("RangeError: bad 1");
  expect(r.stdout).toContain("----> 2 throw new RangeError");
  expect(r.stdout).not.toContain("not reached");
}, 60000);

test("tsgpu run with a file that is not a notebook is a clear error", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-"));
  require("fs").writeFileSync(join(dir, "x.ipynb"), "{}");
  const r = spawnSync(process.execPath, [CLI, "run", join(dir, "x.ipynb")], { encoding: "utf8" });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain('is not a notebook: it has no "cells" list');
});

/**
 * A notebook of every kind of output, run by `tsgpu run` and by `jupyter nbconvert --execute`: the two files are
 * the same byte for byte (skip-execution and blank cells left as they were, a raises-exception cell's error kept
 * and the run going on, consecutive execution counts, streams, displays updated by id, clear_output with wait,
 * the kernel's language_info).
 */
jupyterTest("tsgpu run stores a notebook as nbconvert does", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-"));
  const code = (source: string, tags?: string[]) => ({ cell_type: "code", source, metadata: tags ? { tags } : {}, outputs: [], execution_count: null });
  const nb = { nbformat: 4, nbformat_minor: 5, metadata: { kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" } }, cells: [
    { cell_type: "markdown", source: "# outputs", metadata: {}, id: "md" },
    code("console.log('one');\nconsole.log('two');\nconsole.error('to stderr');\nconsole.log('50%\\r100%');\n1 + 1"),
    code("display.json({ b: 1, a: [1, 2] }, { displayId: 'progress' });\ndisplay.html('<b>x</b>\\n<i>y</i>');"),
    code("   \n"),
    code("console.log('skipped')", ["skip-execution"]),
    code("throw new RangeError('expected')", ["raises-exception"]),
    code("updateDisplay('progress', { b: 2 });\nconsole.log('before clear');\nclearOutput({ wait: true });\nconsole.log('after clear');\n'last'"),
  ].map((c: any, i) => ({ id: `cell-${i}`, ...c })) };
  const path = join(dir, "kinds.ipynb");
  require("fs").writeFileSync(path, JSON.stringify(nb));
  const r = spawnSync(process.execPath, [CLI, "run", path, "--output", join(dir, "tsgpu.ipynb")], { encoding: "utf8", timeout: 60000 });
  expect(r.status).toBe(0);
  const env = kernelspecEnv();
  const n = spawnSync("jupyter", ["nbconvert", "--to", "notebook", "--execute", path, "--output-dir", dir, "--output", "nbconvert",
    "--ExecutePreprocessor.kernel_name=tsgpu", "--ExecutePreprocessor.record_timing=False"], { env, encoding: "utf8", timeout: 120000 });
  expect(n.status).toBe(0);
  const ours = readFileSync(join(dir, "tsgpu.ipynb"), "utf8");
  expect(ours).toBe(readFileSync(join(dir, "nbconvert.ipynb"), "utf8"));
  const cells = JSON.parse(ours).cells;
  expect(cells.map((c: any) => c.execution_count ?? null)).toEqual([null, 1, 2, null, null, 3, 4]);
  expect(cells[5].outputs.map((o: any) => o.ename)).toEqual(["RangeError"]);
  expect(cells[1].outputs.map((o: any) => o.text ?? o.data["text/plain"])).toEqual([["one\n", "two\n"], ["to stderr\n"], ["100%\n"], ["2"]]);
  expect(cells[2].outputs[0].data).toEqual({ "text/plain": ["{ b: 2 }"] }); // the display updated by the later cell
  expect(cells[6].outputs.map((o: any) => o.text ?? o.data["text/plain"])).toEqual([["after clear\n"], ["'last'"]]);
}, 180000);
