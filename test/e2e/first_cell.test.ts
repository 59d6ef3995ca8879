/**
 * Short sessions through the real tools: the type warnings of a notebook's
 * first cell are in its outputs, with `tsgpu run` and with nbconvert.
 */
import { execFileSync, spawnSync } from "child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { CLI } from "../helpers";
import { jupyterTest, kernelspecEnv } from "../jupyter";

const WARNING = "warning TS2322 at Cell In[1], line 1, column 7: Type 'string' is not assignable to type 'number'.";

let dir: string;
let notebook: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tsgpu-first-cell-"));
  notebook = join(dir, "typed.ipynb");
  const cell = (source: string) => ({ cell_type: "code", source, metadata: {}, outputs: [], execution_count: null });
  writeFileSync(notebook, JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [cell('const s: number = "hello";'), cell("s")] }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The stderr text of a notebook cell's outputs. */
function cellStderr(nb: any, index: number): string {
  return nb.cells[index].outputs.filter((o: any) => o.output_type === "stream" && o.name === "stderr").map((o: any) => [].concat(o.text).join("")).join("");
}

const env = () => ({ ...process.env, TSGPU_HISTORY_FILE: join(dir, "history.jsonl") });

test("tsgpu run: the first cell's type warning is printed and kept in the notebook", () => {
  const out = join(dir, "run.out.ipynb");
  const r = spawnSync(process.execPath, [CLI, "run", notebook, "--output", out], { encoding: "utf8", timeout: 90000, env: env() });
  expect(r.status).toBe(0);
  expect(r.stdout).toContain(WARNING);
  expect(cellStderr(JSON.parse(readFileSync(out, "utf8")), 0)).toContain(WARNING);
}, 90000);

jupyterTest("jupyter nbconvert --execute: the first cell's type warning is in its outputs", async () => {
  execFileSync("jupyter", ["nbconvert", "--to", "notebook", "--execute", notebook, "--output-dir", dir, "--output", "nbconvert.out",
    "--ExecutePreprocessor.kernel_name=tsgpu", "--ExecutePreprocessor.timeout=90"], { env: { ...kernelspecEnv(), ...env() }, stdio: "pipe" });
  expect(cellStderr(JSON.parse(readFileSync(join(dir, "nbconvert.out.ipynb"), "utf8")), 0)).toContain(WARNING);
}, 90000);
