// Source of leak-remedies.ipynb (node scripts/make-notebook.js notebooks/leak-remedies.cells.js notebooks/leak-remedies.ipynb).
module.exports = [
  ["md", `# When memory will not come back: out of memory, leaks, and their remedies

A notebook keeps everything a cell leaves behind: its variables, its results in \`Out\`, the error it raised,
and even the suspended frames of a cell that was interrupted while it waited. Each of these keeps tensors, and
their memory, alive long after the reader has stopped thinking about them. This notebook provokes an
out-of-memory error and recovers from it without restarting, then creates each kind of leak on purpose,
finds it with \`%memory --tensors\` and frees it with \`%xdel\` or \`%reset -f\`.

The device is chosen in the first cell: the first GPU when there is one, the CPU otherwise (host tensors go
through the same caching allocator, so the numbers are real on either).`],
  ["code", `import type { Tensor } from "tsgpu";
const device = torch.cuda.isAvailable() ? "cuda:0" : "cpu";
const MiB = 2 ** 20;
const mib = (bytes: number) => \`\${(bytes / MiB).toFixed(2)} MiB\`;
/** Shows numbers for programs (the tests read them): JSON, with a one-line text form for plain frontends. */
const showData = (data: object) => display.mime({ "application/json": data, "text/plain": JSON.stringify(data) });
console.log(\`device: \${device}\`);
showData({ device, start_allocated: torch.memory.allocated(device) });`, { tags: ["start"] }],
  ["md", `## 1. Out of memory in the middle of training

A small model and a training step. To run out of memory on any machine in a second, the allocator is capped
at what it holds now plus 32 MiB with \`torch.memory.setMemoryFraction\` (PyTorch's
\`set_per_process_memory_fraction\`, here for the CPU device too): past the cap a request fails as it would on
a full GPU.`],
  ["code", `torch.manualSeed(0);
const model = new torch.nn.Sequential(new torch.nn.Linear(512, 1024, { device }), new torch.nn.ReLU(),
  new torch.nn.Linear(1024, 1024, { device }), new torch.nn.ReLU(), new torch.nn.Linear(1024, 10, { device }));
const opt = new torch.optim.SGD(model.parameters(), { lr: 0.01 });

/** One training step on a random batch; every temporary is freed when it returns or throws. */
function trainStep(batch: number): number {
  const loss = torch.tidy(() => {
    const x = torch.randn([batch, 512], { device });
    const y = torch.randint(0, 10, [batch], { device });
    return torch.crossEntropy(model.forward(x), y);
  });
  try {
    loss.backward();
    opt.step();
    return Number(loss.item());
  } finally {
    opt.zeroGrad();
    loss.dispose();
  }
}

torch.memory.emptyCache(device);
const capBytes = torch.memory.reserved(device) + 32 * MiB;
torch.memory.setMemoryFraction(capBytes / torch.memory.memGetInfo(device)[1], device);
console.log(\`parameters: \${mib(torch.memory.allocated(device))}; allocator capped at \${mib(capBytes)} reserved\`);`],
  ["md", `A batch of 8192 needs more than the cap: its input alone is 16 MiB, and the graph saves two 32 MiB
activations. The step fails with \`OutOfMemoryError\`, whose message is PyTorch's: what was asked for, what the
device has, what is allocated and what is only cached.`],
  ["code", `trainStep(8192);`, { tags: ["oom", "raises-exception"] }],
  ["md", `The kernel is still running, with its variables: \`model\` and \`opt\` are intact, and the failed step's
temporaries were freed when \`torch.tidy\` unwound. \`%memory\` counts the failure under \`num_ooms\`; before it
gave up, the allocator had already handed its unused cache back and retried once.`],
  ["code", `%memory`, { tags: ["after-oom"] }],
  ["md", `The remedies, in the order a reader would try them. \`%empty_cache\` returns the segments that nothing uses:
here the one that the failed step's input left in the cache when \`torch.tidy\` freed it. It also says what it
cannot return: segments still holding live tensors (the parameters). Then a smaller batch fits.`],
  ["code", `%empty_cache`, { tags: ["oom-empty-cache"] }],
  ["code", `const recoveredLoss = trainStep(1024);
torch.memory.setMemoryFraction(1, device);
console.log(\`batch 1024 trains: loss \${recoveredLoss.toFixed(4)}\`);
showData({ batch: 1024, loss: Math.round(recoveredLoss * 1e4) / 1e4, num_ooms: torch.memory.stats(device).num_ooms });`, { tags: ["oom-recovered"] }],
  ["md", `## 2. A variable

The plainest leak: a tensor bound to a name. \`%memory --tensors\` lists live tensors by what holds them, with
the cell and line that made them.`],
  ["code", `const features = torch.randn([2048, 1024], { device });`],
  ["code", `%memory --tensors`, { tags: ["leak-variable-found"] }],
  ["md", `\`%xdel features\` removes the name and every reference the kernel keeps to its value, and says what it
freed: 8 MiB.`],
  ["code", `%xdel features`, { tags: ["leak-variable-fix"] }],
  ["code", `%memory --tensors`, { tags: ["leak-variable-gone"] }],
  ["md", `## 3. The output history

A cell whose last expression is a tensor shows it, and the kernel keeps the value in \`Out[N]\` (and \`_\`), as
IPython does. Nothing in the notebook's code names it, yet it stays allocated.`],
  ["code", `torch.ones([1024, 1024], { device })`, { tags: ["leak-output"] }],
  ["code", `%memory --tensors`, { tags: ["leak-output-found"] }],
  ["md", `\`%reset -f out\` clears only the output history; the variables stay.`],
  ["code", `%reset -f out`, { tags: ["leak-output-fix"] }],
  ["code", `%memory --tensors`, { tags: ["leak-output-gone"] }],
  ["md", `## 4. An interrupted cell

A cell interrupted while it awaits (the ■ button, or Kernel > Interrupt) stops, but the function it awaited
is only suspended: its frames, and the tensors in its locals, live on as long as whatever it was waiting for
(here a 10-minute timer). So that this notebook runs unattended, the cell interrupts itself the way a
terminal's Ctrl-C does: a child process sends the kernel SIGINT half a second in.`],
  ["code", `import { execFile } from "child_process";

async function longJob(): Promise<number> {
  const workspace = torch.zeros([1024, 1024], { device });
  await new Promise((resolve) => setTimeout(resolve, 600_000));
  return Number(workspace.sum().item());
}

// Ctrl-C from outside, half a second in: another Node.js process sends this kernel SIGINT.
setTimeout(() => execFile(process.execPath, ["-e", \`process.kill(\${process.pid}, "SIGINT")\`]), 500);
await longJob();`, { tags: ["leak-interrupt", "raises-exception"] }],
  ["md", `No variable names \`workspace\`, yet its 4 MiB are listed: held by the frames of \`longJob\`, suspended at
its await in the interrupted cell, with the pending timer that keeps them waiting.`],
  ["code", `%memory --tensors`, { tags: ["leak-interrupt-found"] }],
  ["md", `## 5. A kept error

The kernel keeps the last error a cell raised, so that it can be looked at after the fact; an error object
that carries a tensor (here a batch that failed a check) keeps the tensor alive, although no variable names
it. Only the last error is kept: the next failing cell replaces it.`],
  ["code", `class BatchError extends Error {
  constructor(message: string, readonly batch: Tensor) { super(message); this.name = "BatchError"; }
}

/** Throws when the batch holds NaN, with the batch attached for inspection. */
function checkBatch(batch: Tensor): void {
  if (torch.tidy(() => batch.isnan().any().item())) throw new BatchError("the batch holds NaN", batch);
}

checkBatch(torch.full([512, 1024], Number.NaN, { device }));`, { tags: ["leak-error", "raises-exception"] }],
  ["md", `Both leaks are listed now: the kept error of the \`BatchError\` cell (the tensor under its \`.batch\`), and
still the frames of \`longJob\`.`],
  ["code", `%memory --tensors`, { tags: ["leaks-found"] }],
  ["md", `\`%reset -f\` is the remedy for both, and for everything else: it drops every variable (\`model\`, \`opt\`,
\`trainStep\`…), the output history, the kept error and the timers that cells left pending, collects garbage,
and says what it freed. Allocated memory is back at its value in the first cell.`],
  ["code", `%reset -f`, { tags: ["reset"] }],
  ["code", `%memory --tensors`, { tags: ["leaks-gone"] }],
  ["md", `## 6. Processes, and a restart

Memory that no tensor of this kernel holds may belong to another process: an earlier kernel that did not
exit, a data-loader worker, another notebook. \`%memory --processes\` lists the processes that use each GPU
(from NVML), with this kernel marked; without a GPU it says why. (\`CUDA_LAUNCH_BLOCKING=1\`, sometimes suggested
for this, makes kernel launches synchronous for debugging; it frees nothing that another process holds.)`],
  ["code", `%memory --processes`, { tags: ["processes"] }],
  ["md", `\`%restart\` releases everything the kernel holds natively and ends the process; the notebook's kernel
manager starts a fresh one. In JupyterLab or Notebook the kernel indicator goes busy, then idle, with an empty
namespace; running the \`%memory --processes\` cell again then shows no trace of the old process (and the new
kernel once it has allocated memory on the GPU). The cell is tagged \`skip-execution\`: a notebook run unattended
(\`jupyter nbconvert --execute\`, \`scripts/run-notebooks.js\`) has no manager to start another kernel, and its
client would take the exit for a dead kernel, so such runs leave it out; run it by hand.`],
  ["code", `%restart`, { tags: ["restart", "skip-execution"] }],
];
