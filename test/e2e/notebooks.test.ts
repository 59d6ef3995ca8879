/**
 * The article's notebooks on watching, allocating and releasing memory
 * (notebooks/monitoring, allocation, releasing-memory) and the quickstart:
 * each executes with nbconvert and the installed kernelspec without an error,
 * the numbers its tagged cells display say what its text says, and the
 * outputs committed with it have the structure of a fresh run (they are not
 * stale). Each notebook is executed once and read by both checks.
 */
import { jupyterTest, kernelspecEnv } from "../jupyter";
import { checkQuickstart } from "./quickstart";
import {
  cellTagged, committedAndSource, errorOutputs, executeNotebook, magicData, Notebook, notebookPath, outputStructure, readNotebookFile,
  stderrOutputs, taggedData,
} from "./notebook_exec";

const MiB = 1024 * 1024;
/** A block's size: its bytes rounded up to the allocator's 512. */
const block = (bytes: number) => Math.ceil(bytes / 512) * 512;

let env: NodeJS.ProcessEnv | undefined;
const runs = new Map<string, Notebook>();

/** The notebook executed by nbconvert (once per file run), checked to have run without errors or stderr. */
function executed(name: string): Notebook {
  let nb = runs.get(name);
  if (!nb) {
    env ??= kernelspecEnv();
    nb = executeNotebook(notebookPath(name), env);
    runs.set(name, nb);
  }
  expect(errorOutputs(nb)).toEqual([]);
  expect(stderrOutputs(nb)).toEqual([]);
  return nb;
}

/** The device the notebook chose in its first cell (cuda:0 with a GPU, else cpu). */
function deviceOf(nb: Notebook): string {
  const out = cellTagged(nb, "setup").outputs.filter((o: any) => o.output_type === "stream").map((o: any) => [].concat(o.text).join("")).join("");
  const m = /device: (cpu|cuda:\d+)/.exec(out);
  if (!m) throw new Error(`expected the setup cell to print the device, got ${JSON.stringify(out)}`);
  return m[1];
}

const kNotebookTimeout = 600000;

jupyterTest("monitoring.ipynb: allocated, peak, summary, capacity and the training timeline", async () => {
  const nb = executed("monitoring");
  const device = deviceOf(nb);

  // A 1000 × 1000 float32 tensor is one 4,000,256-byte block; x @ x exists only inside the tidy, so the peak holds both.
  const a = taggedData(nb, "allocated");
  expect(a.device).toBe(device);
  expect(a.after_x - a.start).toBe(block(4000000));
  expect(a.after_product).toBe(a.after_x);
  expect(a.peak - a.start).toBeGreaterThanOrEqual(2 * block(4000000));
  if (device === "cpu") expect(a.cuda_allocated).toBe(0);
  else expect(a.cuda_allocated).toBe(a.after_product);

  const s = taggedData(nb, "summary");
  expect(s["allocated_bytes.all.current"]).toBe(a.after_product);
  expect(s["reserved_bytes.all.current"]).toBeGreaterThanOrEqual(s["allocated_bytes.all.current"]);
  expect(s.num_ooms).toBe(0);

  const c = taggedData(nb, "capacity");
  expect(c.total).toBeGreaterThan(0);
  expect(c.free).toBeLessThanOrEqual(c.total);
  if (device === "cpu") expect([c.name, c.total_memory, c.device_count]).toEqual([null, null, 0]);
  else expect(c.total_memory).toBe(c.total);

  // %memory after training: AdamW keeps two moments per parameter; zeroGrad() left no gradient; backward freed what it saved.
  const mem = magicData(nb, "training-memory", "memory");
  const training = mem.devices.find((d: any) => d.device === device).training;
  const parameterBytes = 4 * (784 * 512 + 512 + 512 * 10 + 10);
  expect(training).toEqual({ parameter: parameterBytes, gradient: 0, optimizer: 2 * parameterBytes, saved: 0 });

  // The timeline: the first step adds the optimizer state (two blocks per parameter), the next nine add nothing.
  const timeline = magicData(nb, "timeline", "memory").timeline;
  const at = (tag: string) => {
    const count = cellTagged(nb, tag).execution_count;
    const point = timeline.find((p: any) => p.cell === count);
    if (!point) throw new Error(`no timeline point for the cell tagged ${tag} (In[${count}])`);
    return point.devices.find((d: any) => d.device === device);
  };
  const parameterBlocks = [784 * 512, 512, 512 * 10, 10].reduce((n, k) => n + block(4 * k), 0);
  expect(at("step-1").allocated - at("model").allocated).toBe(2 * parameterBlocks);
  expect(at("steps").allocated).toBe(at("step-1").allocated);
  expect(at("step-1").peak).toBeGreaterThan(at("step-1").allocated);
  expect(at("steps").reserved).toBeGreaterThanOrEqual(at("steps").allocated);
}, kNotebookTimeout);

jupyterTest("allocation.ipynb: Linear(10000, 10000), the cache, fragmentation, the allocator settings, the rejected setting", async () => {
  const nb = executed("allocation");
  const device = deviceOf(nb);

  // 100,010,000 float32 parameters: 400,040,000 bytes = 381.5 MiB, allocated by the constructor.
  const l = taggedData(nb, "linear");
  expect(l.parameter_count).toBe(100010000);
  expect(l.parameter_bytes).toBe(400040000);
  expect(l.parameter_mib.toFixed(1)).toBe("381.5");
  expect(l.after_init.requested - l.before.requested).toBe(400040000);
  if (device === "cpu") {
    // The weight's segment is rounded up to 2 MiB; the rest (under 1 MiB) is too small to split off, so the block
    // is the whole segment. The bias is one 512-byte-rounded block of a 2 MiB small segment.
    const weightSegment = Math.ceil(400000000 / (2 * MiB)) * 2 * MiB;
    expect(l.after_init.allocated - l.before.allocated).toBe(weightSegment + block(40000));
    expect(l.after_init.reserved - l.before.reserved).toBe(weightSegment + 2 * MiB);
  } else {
    expect(l.after_init.allocated - l.before.allocated).toBeGreaterThanOrEqual(block(400000000) + block(40000));
    expect(l.after_init.reserved - l.before.reserved).toBeGreaterThanOrEqual(l.after_init.allocated - l.before.allocated);
  }

  // The forward pass adds the input and the output row, inside the small segment the bias opened.
  const f = taggedData(nb, "forward");
  expect(f.output_shape).toEqual([1, 10000]);
  expect(f.after_forward.allocated - l.after_init.allocated).toBe(2 * block(40000));
  expect(f.after_forward.reserved).toBe(l.after_init.reserved);

  // Freed: allocated back, reserved kept; a second layer takes the cache without asking the device; emptyCache releases.
  const c = taggedData(nb, "cache");
  expect(c.freed.allocated).toBe(l.before.allocated);
  expect(c.freed.reserved).toBe(f.after_forward.reserved);
  expect(c.second_model_device_allocs).toBe(0);
  expect(c.second_model.reserved).toBe(c.freed.reserved);
  expect(c.emptied.allocated).toBe(l.before.allocated);
  expect(c.released_bytes).toBeGreaterThanOrEqual(400040448);
  expect(c.emptied.reserved).toBe(c.freed.reserved - c.released_bytes);

  // Fragmentation with PyTorch's settings: the 8 MiB buffer split the cached 64 MiB segment and left 56 MiB free in it.
  const summary = magicData(nb, "fragment-summary", "memory").devices.find((d: any) => d.device === device).stats;
  expect(summary["inactive_split_bytes.all.current"]).toBe(56 * MiB);
  expect(summary["allocated_bytes.all.current"] - l.before.allocated).toBe(72 * MiB);
  const fragmentCell = cellTagged(nb, "fragment").execution_count;
  const sites = magicData(nb, "fragment-where", "memory").where.filter((w: any) => w.device === device && w.cell_number === fragmentCell);
  expect(sites.map((w: any) => w.bytes).sort((x: number, y: number) => x - y)).toEqual([8 * MiB, 64 * MiB]);

  // The same steps under each setting.
  const s = taggedData(nb, "settings");
  const [pytorch, expandable, defaults, maxSplit] = s.cases;
  for (const row of s.cases) expect(row.allocated).toBe(72 * MiB);
  expect([pytorch.reserved, pytorch.non_releasable]).toEqual([128 * MiB, 56 * MiB]);
  expect([maxSplit.reserved, maxSplit.non_releasable]).toEqual([84 * MiB, 12 * MiB]);
  if (device === "cpu") {
    // No mappable memory on the host: expandable segments change nothing, and no segment is idle to reclaim.
    expect(expandable.reserved).toBe(pytorch.reserved);
    expect(defaults.reserved).toBe(pytorch.reserved);
  } else {
    expect(expandable.reserved).toBe(72 * MiB);
  }
  expect(s.settings_in_force).toContain("max_split_size_mb:32");
  expect(s.settings_in_force).toContain("expandable_segments:True,reclaim_idle_segments:True");

  // The article's cuda_memory_pool: rejected for its form, then for its key, naming the real keys; nothing changed.
  const r = taggedData(nb, "rejected");
  expect(r.as_written).toContain("expected key:value");
  expect(r.as_key_value).toContain("cuda_memory_pool");
  for (const key of ["max_split_size_mb", "roundup_power2_divisions", "garbage_collection_threshold", "expandable_segments"]) {
    expect(r.as_key_value).toContain(key);
  }
  expect(r.settings_in_force).toBe(s.settings_in_force);
}, kNotebookTimeout);

jupyterTest("releasing-memory.ipynb: dispose, using, tidy, noGrad, zeroGrad(setToNone) and %empty_cache give memory back", async () => {
  const nb = executed("releasing-memory");
  const device = deviceOf(nb);
  const big = 4096 * 4096 * 4;

  const d = taggedData(nb, "dispose");
  expect([d.with_tensor, d.after_dispose]).toEqual([big, 0]);
  expect(d.reserved).toBeGreaterThanOrEqual(big);
  expect(taggedData(nb, "using")).toEqual({ inside_block: big, after_block: 0 });

  const t = taggedData(nb, "tidy");
  expect(t.kept).toBe(0);
  expect(t.peak_above_start).toBeGreaterThanOrEqual(3 * t.input_bytes);

  // noGrad keeps only the output and peaks lower; grad mode keeps the graph's activations until the output is disposed.
  const g = taggedData(nb, "no-grad");
  expect(g.no_grad.kept).toBe(block(g.output_bytes));
  expect(g.grad_mode.kept).toBeGreaterThanOrEqual(g.no_grad.kept + 4 * 1024 * 1024 * 4);
  expect(g.no_grad.peak).toBeLessThan(g.grad_mode.peak);
  expect([g.grad_mode.after_dispose, g.no_grad.after_dispose]).toEqual([0, 0]);

  // Zero-filling keeps every gradient's bytes; setToNone frees all of them.
  const z = taggedData(nb, "zero-grad");
  expect(z.zero_filled).toBe(z.with_grads);
  expect(z.gradients_after_zero_fill).toBe(z.parameters);
  expect(z.with_grads - z.set_to_none).toBe(z.gradient_block_bytes);
  expect(z.gradients_after_set_to_none).toBe(0);

  // %empty_cache keeps the segment that holds `keep` and names it; with keep disposed, nothing stays reserved.
  const e = magicData(nb, "empty-cache", "empty_cache").devices.find((r: any) => r.device === device);
  expect(e.released_bytes).toBeGreaterThan(0);
  expect(e.kept_bytes).toBeGreaterThanOrEqual(block(768 * 1024 * 4));
  expect(e.holders.map((h: any) => h.label)).toContain("keep");
  const end = taggedData(nb, "end");
  expect(end.end).toBe(end.start);
  const final = magicData(nb, "empty-cache-final", "empty_cache").devices.find((r: any) => r.device === device);
  if (end.start === 0) expect([final.reserved_after, end.reserved]).toEqual([0, 0]);
}, kNotebookTimeout);

jupyterTest("quickstart.ipynb: the committed run passes the quickstart's checks", async () => {
  checkQuickstart(readNotebookFile(notebookPath("quickstart")));
});

describe("the committed outputs are those of a run of the notebook as it is (not stale)", () => {
  for (const name of ["quickstart", "monitoring", "allocation", "releasing-memory"]) {
    jupyterTest(`${name}.ipynb`, async () => {
      const committed = readNotebookFile(notebookPath(name));
      // The notebook's cells are those of its reviewed source (scripts/make-notebook.js made it from NAME.cells.js),
      // with the figures its markdown quotes filled from the committed outputs (scripts/notebook-figures.js).
      const [cells, source] = committedAndSource(name);
      expect(cells).toEqual(source);
      expect(committed.cells.filter((c) => c.cell_type === "code").every((c) => c.execution_count !== null)).toBe(true);
      expect(outputStructure(executed(name))).toEqual(outputStructure(committed));
    }, kNotebookTimeout);
  }
});
