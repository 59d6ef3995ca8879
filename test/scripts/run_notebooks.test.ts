/**
 * scripts/run-notebooks.js, which makes the outputs committed with the
 * notebooks: through nbconvert or `tsgpu run`, it writes each executed notebook
 * back in place (built from its source and with its text's figures filled
 * where it has a source), and leaves one whose run failed as it was, naming it
 * and exiting with status 1.
 */
import { spawnSync } from "child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "fs";
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

/** Runs the script on a good and a failing notebook with `runner`, and checks what it wrote and said. */
function writesBackGoodLeavesBad(runner: "nbconvert" | "tsgpu"): void {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-notebooks-test-"));
  const good = join(dir, "good.ipynb"), bad = join(dir, "bad.ipynb");
  writeFileSync(good, notebookWith("console.log(String(6 * 7));"));
  const badText = notebookWith("throw new Error('no such tensor');");
  writeFileSync(bad, badText);
  const r = spawnSync(process.execPath, [SCRIPT, "--runner", runner, good, bad], { encoding: "utf8", timeout: 240000 });
  expect(r.status).toBe(1);
  expect(r.stdout).toContain(`${good}: executed by ${runner} in`);
  expect(r.stderr).toContain(`${bad}: not written back`);
  expect(r.stderr).toContain("no such tensor");
  expect(r.stderr).toContain(`FAIL: 1 notebook(s) did not run clean: ${bad}`);
  const executed = readNotebookFile(good);
  expect(executed.cells[0].execution_count).toBe(1);
  expect(stdoutOf(executed.cells[0])).toBe("42\n");
  // No execution timestamps: a re-run changes only what the cells show.
  expect(executed.cells[0].metadata.execution).toBeUndefined();
  expect(readFileSync(bad, "utf8")).toBe(badText);
}

jupyterTest("nbconvert: writes an executed notebook back with its outputs, and leaves a failing one as it was", async () => {
  writesBackGoodLeavesBad("nbconvert");
}, 300000);

test("tsgpu run: writes an executed notebook back with its outputs, and leaves a failing one as it was", () => {
  writesBackGoodLeavesBad("tsgpu");
}, 300000);

test("a notebook with a source is run as its source makes it, with the figures of its text filled from the run", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-run-notebooks-test-"));
  const cells = [
    ["md", "# Figures\n\nThe tensor held {{size:bytes|int}} bytes ({{size:bytes|mib}}) on `{{size:device}}`."],
    ["code", "const t = torch.zeros([1024, 1024]);\ndisplay.mime({ \"application/json\": { device: String(t.device), bytes: t.nbytes }, \"text/plain\": \"size\" });", { tags: ["size"] }],
  ];
  writeFileSync(join(dir, "fig.cells.js"), `module.exports = ${JSON.stringify(cells)};\n`);
  writeFileSync(join(dir, "fig.ipynb"), "{}\n"); // stale: the run starts from the source, not from this file
  const r = spawnSync(process.execPath, [SCRIPT, "--runner", "tsgpu", join(dir, "fig.ipynb")], { encoding: "utf8", timeout: 120000 });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  const nb = readNotebookFile(join(dir, "fig.ipynb"));
  expect([].concat(nb.cells[0].source).join("")).toBe("# Figures\n\nThe tensor held 4,194,304 bytes (4 MiB) on `cpu`.");
  expect(nb.cells[1].execution_count).toBe(1);
  expect(readdirSync(dir).sort()).toEqual(["fig.cells.js", "fig.ipynb"]); // the notebook built from the source is gone

  // A placeholder without its value: the notebook is not written back, and the message names the placeholder.
  writeFileSync(join(dir, "fig.cells.js"), `module.exports = ${JSON.stringify([["md", "{{size:count}}"], cells[1]])};\n`);
  const before = readFileSync(join(dir, "fig.ipynb"), "utf8");
  const missing = spawnSync(process.execPath, [SCRIPT, "--runner", "tsgpu", join(dir, "fig.ipynb")], { encoding: "utf8", timeout: 120000 });
  expect(missing.status).toBe(1);
  expect(missing.stderr).toContain('{{size:count}}: the output of the cell tagged "size" has no count');
  expect(readFileSync(join(dir, "fig.ipynb"), "utf8")).toBe(before);
}, 240000);

test("an unknown option, runner or a bad timeout is refused with what was expected", () => {
  const usage = "usage: node scripts/run-notebooks.js [--runner nbconvert|tsgpu] [--timeout S] [NOTEBOOK.ipynb ...]";
  const unknown = spawnSync(process.execPath, [SCRIPT, "--all"], { encoding: "utf8" });
  expect(unknown.status).toBe(2);
  expect(unknown.stderr).toContain(`unknown option --all; ${usage}`);
  const runner = spawnSync(process.execPath, [SCRIPT, "--runner", "papermill"], { encoding: "utf8" });
  expect(runner.status).toBe(2);
  expect(runner.stderr).toContain(`--runner is nbconvert or tsgpu, got papermill\n${usage}`);
  const timeout = spawnSync(process.execPath, [SCRIPT, "--timeout", "soon"], { encoding: "utf8" });
  expect(timeout.status).toBe(2);
  expect(timeout.stderr).toContain("expected a number of seconds for --timeout, got soon");
});
