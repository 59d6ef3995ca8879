/** `tsgpu run` executes the quickstart through the kernel over zeromq. */
import { spawnSync } from "child_process";
import { mkdtempSync, readFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import * as torch from "../../native/index";
import { native } from "../../native/addon";
import { CLI, cudaDriverLibraryFound, NO_DRIVER_REASON, ROOT } from "../helpers";
import { checkQuickstart } from "./quickstart";

test("tsgpu run prints the cells' output and writes the executed notebook", () => {
  const out = join(mkdtempSync(join(tmpdir(), "tsgpu-run-")), "quickstart.out.ipynb");
  const r = spawnSync(process.execPath, [CLI, "run", join(ROOT, "notebooks", "quickstart.ipynb"), "--output", out], { encoding: "utf8", timeout: 120000 });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  expect(r.stdout).toContain("allocated: 4000256 bytes");
  expect(r.stdout).toContain("Live tensors");
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
