/** Notebooks executed by nbconvert with the installed kernelspec: the quickstart, and what the kernel logs. */
import { spawnSync } from "child_process";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { jupyterTest, kernelspecEnv } from "../jupyter";
import { executeNotebook, notebookPath } from "./notebook_exec";
import { checkQuickstart } from "./quickstart";

jupyterTest("jupyter nbconvert --execute runs the quickstart and %memory reports the tensor", async () => {
  checkQuickstart(executeNotebook(notebookPath("quickstart"), kernelspecEnv(), 120));
}, 120000);

jupyterTest("the kernel's routine log lines (shut down) reach nbconvert's stderr only at TSGPU_LOG_LEVEL=debug", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-nbconvert-"));
  const nb = join(dir, "one.ipynb");
  writeFileSync(nb, JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {},
    cells: [{ id: "one", cell_type: "code", source: "1 + 1", metadata: {}, outputs: [], execution_count: null }] }));
  const convert = (env: NodeJS.ProcessEnv) => spawnSync("jupyter", ["nbconvert", "--to", "notebook", "--execute", nb, "--output-dir", dir,
    "--output", "executed", "--ExecutePreprocessor.kernel_name=tsgpu"], { env, encoding: "utf8", timeout: 60000 });
  const env = kernelspecEnv();
  delete env.TSGPU_LOG_LEVEL;
  const quiet = convert(env);
  expect(quiet.status).toBe(0);
  expect(quiet.stderr).toContain("Writing");
  expect(quiet.stderr).not.toContain("[tsgpu]");
  const debug = convert({ ...env, TSGPU_LOG_LEVEL: "debug" });
  expect(debug.status).toBe(0);
  expect(debug.stderr).toContain("[tsgpu] shut down");
}, 120000);
