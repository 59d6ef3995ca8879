/**
 * The training notebooks (optimization.ipynb, leak-remedies.ipynb) executed
 * by nbconvert with the installed kernelspec: they run with no error but the
 * ones they provoke on purpose, their numbers say what their text says
 * (bfloat16 autocast and checkpointing lower the peak, a larger batch fits
 * after, each leak is named by `%memory --tensors` and gone after its
 * remedy), and the committed outputs have the structure of a fresh run.
 */
import { jupyterTest, kernelspecEnv } from "../jupyter";
import { magicMime } from "../../magics/mime";
import { cellTagged, committedAndSource, errorOutputs, executeNotebook, Notebook, notebookPath, outputData, outputStructure, readNotebookFile } from "./notebook_exec";

const JSON_MIME = "application/json";
const MEMORY = magicMime("memory");
const MiB = 2 ** 20;

/** Executes each notebook once, on first use, with one kernelspec for the file. */
const executed = (() => {
  let env: NodeJS.ProcessEnv | null = null;
  const runs = new Map<string, Notebook>();
  return (name: string): Notebook => {
    env ??= kernelspecEnv();
    if (!runs.has(name)) runs.set(name, executeNotebook(notebookPath(name), env));
    return runs.get(name)!;
  };
})();

/** The one JSON object a tagged cell displayed under `mime`. */
function dataOf(nb: Notebook, tag: string, mime = JSON_MIME): any {
  const data = outputData(cellTagged(nb, tag), mime);
  if (data.length !== 1) throw new Error(`expected one ${mime} output in the cell tagged "${tag}", found ${data.length}`);
  return data[0];
}

/** The holder groups of the `%memory --tensors` cell tagged `tag`. */
function holdersOf(nb: Notebook, tag: string): { label: string; kind: string; bytes: number; cell: number | null }[] {
  return dataOf(nb, tag, MEMORY).holders;
}

/** The cells that wrote to stderr (type-check warnings among them), by their first line. */
function stderrCells(nb: Notebook): string[] {
  return nb.cells.filter((c) => (c.outputs ?? []).some((o: any) => o.output_type === "stream" && o.name === "stderr"))
    .map((c) => [].concat(c.source).join("").split("\n")[0]);
}

const kRun = 240000;

/** The committed notebook is its source's, and its outputs have the structure of a fresh run's. */
function notStale(name: string): void {
  jupyterTest("the committed notebook is its source's, with outputs of the structure of a fresh run", async () => {
    const [cells, source] = committedAndSource(name);
    expect(cells).toEqual(source); // the committed run is of the current source
    expect(outputStructure(readNotebookFile(notebookPath(name)))).toEqual(outputStructure(executed(name)));
  }, kRun);
}

describe("optimization.ipynb", () => {
  jupyterTest("executes with nbconvert with no error output", async () => {
    expect(errorOutputs(executed("optimization"))).toEqual([]);
    expect(stderrCells(executed("optimization"))).toEqual([]);
  }, kRun);

  jupyterTest("bfloat16 autocast with GradScaler peaks lower than float32 on the same model and batch", async () => {
    const amp = dataOf(executed("optimization"), "amp");
    expect(amp.float32.peak_bytes).toBeGreaterThan(0);
    expect(amp.bfloat16.peak_bytes).toBeLessThan(amp.float32.peak_bytes);
    expect(Number.isFinite(amp.bfloat16.loss)).toBe(true);
    expect(amp.bfloat16.scale).toBeGreaterThan(1); // the scaler was on, and no step overflowed it down to 1
    expect(amp.float32.scale).toBe(1); // disabled: getScale() is 1
  }, kRun);

  jupyterTest("checkpointing lowers the peak of a training step", async () => {
    const ck = dataOf(executed("optimization"), "checkpoint");
    expect(ck.segments).toBeGreaterThan(1);
    expect(ck.checkpoint.peak_bytes).toBeLessThan(ck.none.peak_bytes);
    // The same model, data and steps: recomputation changes memory, not the loss.
    expect(ck.checkpoint.loss).toBeCloseTo(ck.none.loss, 3);
  }, kRun);

  jupyterTest("under the same cap a larger batch fits with autocast and checkpointing", async () => {
    const lb = dataOf(executed("optimization"), "largest-batch");
    expect(lb.cap_bytes).toBeGreaterThan(0);
    expect(lb.before.batch).toBeGreaterThanOrEqual(64);
    expect(lb.after.batch).toBeGreaterThan(lb.before.batch);
    expect(lb.before.batch % 64).toBe(0);
    expect(lb.after.batch % 64).toBe(0);
  }, kRun);

  jupyterTest("the ResNet cell measures both configurations (ResNet-152 on CUDA, ResNet-18 scaled down on CPU)", async () => {
    const r = dataOf(executed("optimization"), "resnet");
    expect(r.model).toBe(r.device.startsWith("cuda") ? "resnet152" : "resnet18");
    for (const run of [r.baseline, r.optimized]) {
      expect(run.peak_bytes).toBeGreaterThan(0);
      expect(run.images_per_s).toBeGreaterThan(0);
    }
    expect([r.baseline.batch, r.optimized.batch]).toEqual(r.batches);
    expect(r.optimized.batch).toBe(3 * r.baseline.batch);
  }, kRun);

  jupyterTest("ParallelLinear runs on two GPUs or says why it is skipped", async () => {
    const p = dataOf(executed("optimization"), "parallel");
    if (p.gpus >= 2) {
      expect(p.ran).toBe(true);
      expect(p.grads_on).toEqual(["cuda:0", "cuda:1"]);
    } else {
      expect(p.ran).toBe(false);
      expect(p.reason).toMatch(/needs cuda:0 and cuda:1/);
    }
  }, kRun);

  notStale("optimization");
});

describe("leak-remedies.ipynb", () => {
  jupyterTest("executes with nbconvert; the only errors are the three it provokes", async () => {
    const nb = executed("leak-remedies");
    const errorsOf = (tag: string) => (cellTagged(nb, tag).outputs as any[]).filter((o) => o.output_type === "error").map((o) => o.ename);
    expect(errorsOf("oom")).toEqual(["OutOfMemoryError"]);
    expect(errorsOf("leak-error")).toEqual(["BatchError"]);
    expect(errorsOf("leak-interrupt")).toEqual(["InterruptError"]);
    expect(errorOutputs(nb)).toHaveLength(3);
    expect(stderrCells(nb)).toEqual([]);
  }, kRun);

  jupyterTest("the out-of-memory error is counted, and a smaller batch trains in the same kernel", async () => {
    const nb = executed("leak-remedies");
    const { device } = dataOf(nb, "start");
    const after = dataOf(nb, "after-oom", MEMORY).devices.find((d: any) => d.device === device);
    expect(after.stats.num_ooms).toBe(1);
    expect(dataOf(nb, "oom-empty-cache", magicMime("empty_cache")).devices.find((d: any) => d.device === device)).toBeDefined();
    const rec = dataOf(nb, "oom-recovered");
    expect(Number.isFinite(rec.loss)).toBe(true);
    expect(rec.num_ooms).toBe(1);
  }, kRun);

  jupyterTest("a variable: named by %memory --tensors, freed by %xdel", async () => {
    const nb = executed("leak-remedies");
    expect(holdersOf(nb, "leak-variable-found")).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "variable", label: "features", bytes: 8 * MiB })]));
    expect(dataOf(nb, "leak-variable-fix", magicMime("xdel"))).toMatchObject({ freed_tensors: 1, freed_bytes: 8 * MiB });
    expect(holdersOf(nb, "leak-variable-gone").filter((h) => h.label === "features")).toEqual([]);
  }, kRun);

  jupyterTest("the output history: Out[N] named, freed by %reset -f out", async () => {
    const nb = executed("leak-remedies");
    const n = cellTagged(nb, "leak-output").execution_count;
    expect(holdersOf(nb, "leak-output-found")).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "output", label: `Out[${n}]`, bytes: 4 * MiB })]));
    expect(holdersOf(nb, "leak-output-gone").filter((h) => h.kind === "output")).toEqual([]);
  }, kRun);

  jupyterTest("an interrupted cell and a kept error: each named, both freed by %reset -f, allocated back to its start", async () => {
    const nb = executed("leak-remedies");
    const intCell = cellTagged(nb, "leak-interrupt").execution_count;
    const errCell = cellTagged(nb, "leak-error").execution_count;
    const framesIn = (tag: string) => holdersOf(nb, tag).filter((h) => h.kind === "frames");
    for (const tag of ["leak-interrupt-found", "leaks-found"]) {
      const [frames, ...more] = framesIn(tag);
      expect(more).toEqual([]);
      expect(frames.label).toContain("the frames of `longJob`");
      expect(frames.label).toContain(`interrupted cell ${intCell}`);
      expect(frames.bytes).toBe(4 * MiB);
    }
    expect(holdersOf(nb, "leaks-found")).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: "error", label: `the kept error of cell ${errCell} (.batch)`, bytes: 2 * MiB }),
    ]));
    const { device, start_allocated } = dataOf(nb, "start");
    const reset = dataOf(nb, "reset", magicMime("reset"));
    expect(reset.kept_error_cleared).toBe(true);
    expect(reset.timers_stopped).toBe(1);
    expect(reset.devices.find((d: any) => d.device === device).after).toBe(start_allocated);
    expect(holdersOf(nb, "leaks-gone")).toEqual([]);
  }, kRun);

  jupyterTest("%memory --processes answers (NVML's list, or why there is none), and %restart is the last cell, left out of unattended runs", async () => {
    const nb = executed("leak-remedies");
    const p = dataOf(nb, "processes", MEMORY);
    if (p.available) expect(p.devices.length).toBeGreaterThan(0);
    else expect(p.reason).not.toBe("");
    const code = nb.cells.filter((c) => c.cell_type === "code");
    // nbclient skips cells tagged skip-execution: an unattended run has no manager to start the next kernel, and
    // nbclient would take the exit for a dead kernel (it did, on a loaded machine). %restart is tested in test/magics.
    expect(code[code.length - 1].metadata.tags).toEqual(["restart", "skip-execution"]);
    expect(code[code.length - 1].execution_count).toBeNull();
    expect(code[code.length - 1].outputs).toEqual([]);
  }, kRun);

  notStale("leak-remedies");
});
