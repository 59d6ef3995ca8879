// Source of monitoring.ipynb (node scripts/make-notebook.js notebooks/monitoring.cells.js notebooks/monitoring.ipynb).
// Cells tagged for test/e2e/notebooks.test.ts, which reads the numbers they display.
module.exports = [
  ["md", `# Watching memory: how much, how high, how much is there

Three questions come up whenever a model does not fit: how much do my tensors hold *now*, what was the *highest*
they held, and how much can the device hold at all. This notebook answers each with the runtime's own counters,
then follows a short training run cell by cell with \`%memory --timeline\`.

It runs on a GPU (\`cuda:0\`) and on a machine without one (\`cpu\`). \`torch.cuda.*\` reads CUDA devices only
(without CUDA every statistic reads 0, as PyTorch's does); \`torch.memory.*\` reads any device, \`cpu\` included,
because host tensors go through the same caching allocator. On CUDA both give the same numbers.`],
  ["code", `const device = torch.cuda.isAvailable() ? "cuda:0" : "cpu";
torch.manualSeed(0);
const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MiB).toFixed(2) + " MiB";
/** Shows numbers as JSON, for programs that read the notebook (its text form is the same JSON on one line). */
const showData = (data: object) => display.mime({ "application/json": data, "text/plain": JSON.stringify(data) });
console.log("device: " + device);`, { tags: ["setup"] }],
  ["md", `## Now and highest: \`memoryAllocated\` and \`maxMemoryAllocated\`

A 1000 × 1000 float32 tensor asks for 4,000,000 bytes (3.81 MiB). The allocator hands out blocks in multiples of
512 bytes, so the counter grows by 4,000,256. The cell then computes \`x @ x\` inside \`torch.tidy\`: the
product (another 4,000,256 bytes) lives only while the sum is taken, so *allocated* is back where it was
afterwards, while the *peak* remembers it.`],
  ["code", `torch.memory.resetPeakStats(device);
const start = torch.memory.allocated(device);
const x = torch.randn([1000, 1000], { device });
const afterX = torch.memory.allocated(device);
const total = torch.tidy(() => x.matmul(x).sum().item());
const afterProduct = torch.memory.allocated(device);
const peak = torch.memory.maxAllocated(device);
console.log("allocated after x:       " + mib(afterX - start));
console.log("allocated after x @ x:   " + mib(afterProduct - start) + " (the product is gone)");
console.log("peak during the cell:    " + mib(peak - start) + " (x and the product at once)");
console.log("torch.cuda.memoryAllocated(): " + torch.cuda.memoryAllocated() +
  (torch.cuda.isAvailable() ? "" : " (no CUDA device in use)"));
showData({ device, start, after_x: afterX, after_product: afterProduct, peak,
  cuda_allocated: torch.cuda.memoryAllocated(), sum_is_finite: Number.isFinite(total) });`,
  { tags: ["allocated"] }],
  ["md", `## The whole picture: \`memorySummary\`

\`torch.memory.summary(device)\` (or \`torch.cuda.memorySummary()\` for a CUDA device) prints PyTorch's
\`memory_summary\` table: allocated, active and reserved memory, the free parts of split blocks that cannot be
released, and counts of allocations and segments, each split into the small pool (requests up to 1 MiB, carved
from 2 MiB segments) and the large pool. \`torch.memory.stats(device)\` has the same numbers with PyTorch's flat
key names.`],
  ["code", `console.log(torch.memory.summary(device, { abbreviated: true }));
const s = torch.memory.stats(device);
const keys = ["allocated_bytes.all.current", "allocated_bytes.all.peak", "reserved_bytes.all.current",
  "segment.all.current", "allocation.all.current", "inactive_split_bytes.all.current",
  "num_device_alloc", "num_alloc_retries", "num_ooms"];
showData(Object.fromEntries(keys.map((k) => [k, s[k]])));`, { tags: ["summary"] }],
  ["md", `\`x\`'s block sits in a 20 MiB segment (requests between 1 MiB and 10 MiB share such segments) and the sum's
scalar in a 2 MiB small one: in the committed run on \`{{allocated:device}}\`, {{summary:segment.all.current}} segments,
{{summary:reserved_bytes.all.current|mib}} reserved for {{summary:allocated_bytes.all.current|mib}} allocated. The free rest of \`x\`'s segment
({{summary:inactive_split_bytes.all.current|mib}}) is the *Non-releasable* row: it can go back to the device only with the whole
segment, once \`x\` is gone.

## How much there is: \`getDeviceProperties\` and \`memGetInfo\`

Before planning a batch size, check what each device can hold: \`torch.cuda.getDeviceProperties(i).totalMemory\`
for every GPU (when training over several, the smallest one decides), and \`memGetInfo\` for what is free right
now (other processes and the CUDA context take their share). Without CUDA, \`getDeviceProperties\` throws an
error that says why, and \`torch.memory.memGetInfo("cpu")\` reports the host's memory (or the cap set with
\`TSGPU_CPU_MEMORY_LIMIT\`).`],
  ["code", `for (let i = 0; i < torch.cuda.deviceCount(); i++) {
  const p = torch.cuda.getDeviceProperties(i);
  console.log("cuda:" + i + ": " + p.name + ", " + mib(Number(p.totalMemory)) +
    ", compute capability " + p.major + "." + p.minor);
}
let props: Record<string, string | number | boolean> | null = null;
try {
  props = torch.cuda.getDeviceProperties(0);
} catch (e) {
  console.log("torch.cuda.getDeviceProperties(0): " + (e as Error).message);
}
const [free, capacity] = torch.memory.memGetInfo(device);
console.log(device + ": " + mib(free) + " free of " + mib(capacity));
showData({ device, name: props === null ? null : props.name,
  total_memory: props === null ? null : props.totalMemory, device_count: torch.cuda.deviceCount(), free, total: capacity });`, { tags: ["capacity"] }],
  ["md", `## A short training run, cell by cell

A two-layer network (784 → 512 → 10) trained with AdamW on one batch of random data. Every cell records the
memory of each device when it finishes, and \`%memory --timeline\` draws them. What to look for:

- the model's cell adds its parameters (407,050 floats, 1.55 MiB) and the batch (0.77 MiB);
- the first step adds AdamW's two moment buffers per parameter (\`exp_avg\`, \`exp_avg_sq\`): twice the
  parameters. The gradients are freed again by \`zeroGrad()\` (which sets them to null by default), and the
  activations saved for backward are freed by backward itself, so they show only in the peak;
- the next nine steps add nothing: a flat line. A line that climbs with every step would be a leak.`],
  ["code", `const model = new torch.nn.Sequential(
  new torch.nn.Linear(784, 512), new torch.nn.ReLU(), new torch.nn.Linear(512, 10)).to(device);
const opt = new torch.optim.AdamW(model.parameters(), { lr: 1e-3 });
const xs = torch.randn([256, 784], { device });
const ys = torch.randint(0, 10, [256], { device });
function trainStep(): number {
  const loss = torch.tidy(() => torch.crossEntropy(model.forward(xs), ys));
  loss.backward();
  opt.step();
  opt.zeroGrad();
  const value = Number(loss.item());
  loss.dispose();
  return value;
}
console.log("parameters: " + mib([...model.parameters()].reduce((n, p) => n + p.nbytes, 0)));`, { tags: ["model"] }],
  ["code", `console.log("step 1, loss " + trainStep().toFixed(4));`, { tags: ["step-1"] }],
  ["code", `const losses: number[] = [];
for (let i = 0; i < 9; i++) losses.push(trainStep());
console.log("steps 2-10, losses " + losses.map((l) => l.toFixed(4)).join(" "));`, { tags: ["steps"] }],
  ["md", `\`%memory\` splits what is allocated by what holds it: parameters, gradients, optimizer state and tensors
saved for backward.`],
  ["code", `%memory`, { tags: ["training-memory"] }],
  ["code", `%memory --timeline`, { tags: ["timeline"] }],
  ["md", `Hover a point of the chart for its cell and numbers. The steps after the first leave *allocated* flat, and
*reserved* stays above it: the caching allocator keeps the segments the activations and gradients used, ready
for the next step, instead of handing them back to the device.`],
];
