/**
 * scripts/run-notebooks.js, which makes the outputs committed with the
 * notebooks: it writes each executed notebook back in place, and leaves one
 * whose run failed as it was, naming it and exiting with status 1.
 */
import { spawnSync } from "child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { ROOT } from "../helpers";
import { jupyterTest } from "../jupyter";
import { readNotebookFile, stdoutOf } from "../e2e/notebook_exec";

const SCRIPT = join(ROOT, "scripts", "run-notebooks.js");

/** A notebook of one code cell, as scripts/make-notebook.js writes one. */
function notebookWith(source: string): string {
  return JSON.stringify({
    cells: [{ cell_type: "code", execution_count: null, id: "cell-0", metadata: {}, outputs: [], source }],
    metadata: { kernelspec: { name: "tsgpu", display_name: "TypeScript (tsgpu)", language: "typescript" } },
    nbformat: 4, nbformat_minor: 5,
  }, null, 1) + "\n";
}

jupyterTest("writes an executed notebook back with its outputs, and leaves a failing one as it was", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-notebooks-test-"));
  const good = join(dir, "good.ipynb"), bad = join(dir, "bad.ipynb");
  writeFileSync(good, notebookWith("console.log(String(6 * 7));"));
  const badText = notebookWith("throw new Error('no such tensor');");
  writeFileSync(bad, badText);
  const r = spawnSync(process.execPath, [SCRIPT, good, bad], { encoding: "utf8", timeout: 240000 });
  expect(r.status).toBe(1);
  expect(r.stdout).toContain(`${good}: executed in`);
  expect(r.stderr).toContain(`${bad}: not written back`);
  expect(r.stderr).toContain("no such tensor");
  expect(r.stderr).toContain(`FAIL: 1 notebook(s) did not run clean: ${bad}`);
  const executed = readNotebookFile(good);
  expect(executed.cells[0].execution_count).toBe(1);
  expect(stdoutOf(executed.cells[0])).toBe("42\n");
  // No execution timestamps: a re-run changes only what the cells show.
  expect(executed.cells[0].metadata.execution).toBeUndefined();
  expect(readFileSync(bad, "utf8")).toBe(badText);
}, 300000);

test("an unknown option or a bad timeout is refused with what was expected", () => {
  const unknown = spawnSync(process.execPath, [SCRIPT, "--all"], { encoding: "utf8" });
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toContain("unknown option --all; usage: node scripts/run-notebooks.js [--timeout S] [NOTEBOOK.ipynb ...]");
  const timeout = spawnSync(process.execPath, [SCRIPT, "--timeout", "soon"], { encoding: "utf8" });
  expect(timeout.status).toBe(2);
  expect(timeout.stderr).toContain("expected a number of seconds for --timeout, got soon");
});
