/** The quickstart notebook executed by nbconvert with the installed kernelspec. */
import { execFileSync } from "child_process";
import { mkdtempSync, readFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { ROOT } from "../helpers";
import { jupyterTest, kernelspecEnv } from "../jupyter";
import { checkQuickstart } from "./quickstart";

jupyterTest("jupyter nbconvert --execute runs the quickstart and %memory reports the tensor", async () => {
  const out = mkdtempSync(join(tmpdir(), "tsgpu-nbconvert-"));
  execFileSync("jupyter", ["nbconvert", "--to", "notebook", "--execute", join(ROOT, "notebooks", "quickstart.ipynb"),
    "--output-dir", out, "--output", "executed", "--ExecutePreprocessor.kernel_name=tsgpu", "--ExecutePreprocessor.timeout=120"],
  { env: kernelspecEnv(), stdio: "pipe" });
  checkQuickstart(JSON.parse(readFileSync(join(out, "executed.ipynb"), "utf8")));
}, 120000);
