// Source of allocation.ipynb (node scripts/make-notebook.js notebooks/allocation.cells.js notebooks/allocation.ipynb).
// Cells tagged for test/e2e/notebooks.test.ts, which reads the numbers they display.
module.exports = [
  ["md", `# How memory is handed out: tensors, segments and the caching pool

Two layers stand between a tensor and the device. A tensor gets its memory the moment it is created, as a
*block*; blocks are carved out of *segments*, which the caching allocator requests from the device only when no
segment it already holds has room, and keeps after the tensors in them are freed. So "allocated" (bytes in
blocks that tensors use) and "reserved" (bytes of segments the allocator holds) tell different stories.
This notebook measures both for one large layer, shows what happens when the pieces stop fitting together
(fragmentation), and compares the allocator settings that deal with it.

The device is chosen in the first cell: \`cuda:0\` where there is a GPU, \`cpu\` elsewhere (host tensors use the same
allocator).`],
  ["code", `const device = torch.cuda.isAvailable() ? "cuda:0" : "cpu";
torch.manualSeed(0);
const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MiB).toFixed(2) + " MiB";
const memoryNow = () => {
  const s = torch.memory.stats(device);
  return { requested: s["requested_bytes.all.current"], allocated: s["allocated_bytes.all.current"],
    reserved: s["reserved_bytes.all.current"] };
};
/** Shows numbers as JSON, for programs that read the notebook (its text form is the same JSON on one line). */
const showData = (data: object) => display.mime({ "application/json": data, "text/plain": JSON.stringify(data) });
console.log("device: " + device + "; allocator settings: " + torch.memory.getAllocatorSettings());
memoryNow()`, { tags: ["setup"] }],
  ["md", `## One \`Linear(10000, 10000)\`

It has a 10000 × 10000 weight and a bias of 10000: 100,010,000 float32 parameters, 400,040,000 bytes, which is
**381.5 MiB**, not "about 40MB" (40 MB would be a tenth of the weight). And the memory is taken when the layer is
built, not at its first forward pass: the constructor creates and initializes the parameters.`],
  ["code", `const before = memoryNow();
const model = new torch.nn.Linear(10000, 10000, { device });
const parameterBytes = [...model.parameters()].reduce((n, p) => n + p.numel * p.itemsize, 0);
const afterInit = memoryNow();
console.log("parameters: " + parameterBytes.toLocaleString("en-US") + " bytes = " + mib(parameterBytes));
console.log("allocated by the constructor: " + mib(afterInit.allocated - before.allocated) +
  ", reserved: " + mib(afterInit.reserved - before.reserved));
showData({ device, parameter_count: [...model.parameters()].reduce((n, p) => n + p.numel, 0),
  parameter_bytes: parameterBytes, parameter_mib: parameterBytes / MiB, before, after_init: afterInit,
  added: { allocated: afterInit.allocated - before.allocated, reserved: afterInit.reserved - before.reserved } });`, { tags: ["linear"] }],
  ["md", `*Requested* is exactly the parameters' 400,040,000 bytes. *Allocated* is a little more: in the committed run
on \`{{linear:device}}\` the constructor added {{linear:added/allocated|int}} bytes allocated and {{linear:added/reserved|mib}} reserved.
Where segments are not expandable (always on \`cpu\`), the allocator places them this way: the weight's
400,000,000 bytes are a large request, which gets a segment of its own rounded up to a multiple of 2 MiB
(191 × 2 MiB = 400,556,032 bytes), and the 556,032 bytes left over are too few to split off as a free block (the
large pool splits a block only when more than 1 MiB would remain), so the weight's block is the whole segment.
The bias (40,000 bytes, rounded up to 40,448) is a small request: it is placed in a 2 MiB segment of the small
pool, which the next small tensors share. That makes 400,596,480 bytes allocated and 384 MiB reserved. With
expandable segments (tsgpu's default on CUDA) the pool grows in place instead, and what it took is the figure
above.

Now a forward pass on one input row. It adds two small tensors (the input and the output, 40,000 bytes each,
rounded up to 40,448), and they fit in the small segment the bias opened: reserved memory does not move.`],
  ["code", `const row = torch.randn([1, 10000], { device });
const output = model.forward(row);
const afterForward = memoryNow();
console.log("the forward pass allocated " + (afterForward.allocated - afterInit.allocated).toLocaleString("en-US") +
  " bytes and reserved " + (afterForward.reserved - afterInit.reserved).toLocaleString("en-US") + " more");
showData({ after_forward: afterForward, output_shape: output.shape, output_bytes: output.nbytes });`, { tags: ["forward"] }],
  ["md", `## The cache

Freeing the layer gives its blocks back to the allocator, not to the device: *allocated* drops back to where it
started, *reserved* stays. A second layer of the same size then takes the cached segments, and the device is not
asked for anything (\`num_device_alloc\`, the count of requests to the device, does not move). \`emptyCache\`
finally returns the cached segments to the device.`],
  ["code", `output.dispose();
row.dispose();
model.dispose();
const freed = memoryNow();
const deviceAllocs = torch.memory.stats(device)["num_device_alloc"];
const second = new torch.nn.Linear(10000, 10000, { device });
const secondModel = memoryNow();
const deviceAllocsAfter = torch.memory.stats(device)["num_device_alloc"];
second.dispose();
const released = torch.memory.emptyCache(device);
const emptied = memoryNow();
console.log("after dispose:            allocated " + mib(freed.allocated) + ", reserved " + mib(freed.reserved));
console.log("second Linear:            allocated " + mib(secondModel.allocated) + ", reserved " + mib(secondModel.reserved) +
  ", new device requests: " + (deviceAllocsAfter - deviceAllocs));
console.log("after dispose + emptyCache: allocated " + mib(emptied.allocated) + ", reserved " + mib(emptied.reserved) +
  " (" + mib(released.releasedBytes) + " released)");
showData({ freed, second_model: secondModel, second_model_device_allocs: deviceAllocsAfter - deviceAllocs, emptied,
  released_bytes: released.releasedBytes });`,
  { tags: ["cache"] }],
  ["md", `## Fragmentation

A block bigger than the request is split, and the rest stays free inside the same segment. Free pieces of a
segment that is still partly in use cannot be given back to the device, and a request larger than each piece
does not fit in them however much is free in total: the allocator reserves a new segment. Here, with PyTorch's
own settings (\`expandable_segments:False\` and tsgpu's \`reclaim_idle_segments:False\`), is the smallest case:

1. a 64 MiB tensor is made and freed (its segment stays cached);
2. an 8 MiB buffer is made: it is carved out of the cached 64 MiB segment, which leaves 56 MiB free next to it;
3. another 64 MiB tensor is made: 56 MiB are free, but not 64 in one piece, so a second 64 MiB segment is
   reserved.

\`%memory --history on\` first, so that every block records the cell and line that made it (\`%memory --where\`).`],
  ["code", `%memory --history on`],
  ["code", `torch.memory.setAllocatorSettings("expandable_segments:False,reclaim_idle_segments:False");
const first = torch.empty([16 * MiB], { device });
first.dispose();
const buffer = torch.empty([2 * MiB], { device });
const activation = torch.empty([16 * MiB], { device });
const fragmented = torch.memory.stats(device);
console.log("allocated " + mib(fragmented["allocated_bytes.all.current"]) +
  ", reserved " + mib(fragmented["reserved_bytes.all.current"]) +
  ", free inside split segments " + mib(fragmented["inactive_split_bytes.all.current"]));`, { tags: ["fragment"] }],
  ["md", `The summary's *Non-releasable memory* row is that 56 MiB hole: free, but inside a segment that the 8 MiB buffer
still uses, so \`emptyCache\` cannot release it. *Segments* counts the two 64 MiB segments.`],
  ["code", `%memory --summary --abbreviated`, { tags: ["fragment-summary"] }],
  ["md", `\`%memory --where\` groups the live blocks by the line that made them: the buffer and the second 64 MiB tensor.`],
  ["code", `%memory --where`, { tags: ["fragment-where"] }],
  ["code", `buffer.dispose();
activation.dispose();
torch.memory.emptyCache(device);
memoryNow()`],
  ["md", `## Settings against fragmentation

The same three steps under each setting, from an empty cache each time (\`TSGPU_CUDA_ALLOC_CONF\` sets them at
start, as \`PYTORCH_CUDA_ALLOC_CONF\` does for PyTorch; \`setAllocatorSettings\` changes them in a running kernel):

- **PyTorch's defaults** (both of tsgpu's own settings off): 128 MiB reserved, as above.
- **\`expandable_segments:True\`**: a pool is one segment that grows at its end. The second 64 MiB tensor extends
  the free 56 MiB tail by 8 MiB instead of reserving a new segment. This needs the driver's virtual memory API,
  so it acts on CUDA only; on \`cpu\` the row equals PyTorch's.
- **tsgpu's defaults** (\`expandable_segments:True,reclaim_idle_segments:True\`): where segments cannot be
  expanded, whole idle segments are handed back before a new one is requested. Nothing here is idle (the first
  segment holds the buffer), so on \`cpu\` it changes nothing in this case.
- **\`max_split_size_mb:32\`**: blocks of 32 MiB or more are never split. The buffer cannot take a piece of the
  cached 64 MiB segment, so it gets a 20 MiB segment of its own, and the second 64 MiB tensor reuses the cached
  one whole. It is run last: it cannot be set back to "unlimited" without restarting the kernel.`],
  ["code", `function fragmentationCase(name: string, settings: string) {
  torch.memory.setAllocatorSettings(settings);
  torch.memory.emptyCache(device);
  const s0 = torch.memory.stats(device);
  const first = torch.empty([16 * MiB], { device });
  first.dispose();
  const buffer = torch.empty([2 * MiB], { device });
  const activation = torch.empty([16 * MiB], { device });
  const s = torch.memory.stats(device);
  buffer.dispose();
  activation.dispose();
  torch.memory.emptyCache(device);
  return {
    name,
    settings,
    allocated: s["allocated_bytes.all.current"] - s0["allocated_bytes.all.current"],
    reserved: s["reserved_bytes.all.current"] - s0["reserved_bytes.all.current"],
    non_releasable: s["inactive_split_bytes.all.current"],
    device_allocs: s["num_device_alloc"] - s0["num_device_alloc"],
  };
}
const cases = [
  fragmentationCase("PyTorch's defaults", "expandable_segments:False,reclaim_idle_segments:False"),
  fragmentationCase("expandable_segments", "expandable_segments:True,reclaim_idle_segments:False"),
  fragmentationCase("tsgpu's defaults", "expandable_segments:True,reclaim_idle_segments:True"),
  fragmentationCase("max_split_size_mb:32",
    "max_split_size_mb:32,expandable_segments:False,reclaim_idle_segments:False"),
];
console.table(cases.map((c) => ({ settings: c.name, allocated: mib(c.allocated), reserved: mib(c.reserved),
  "non-releasable": mib(c.non_releasable), "device requests": c.device_allocs })));
torch.memory.setAllocatorSettings("expandable_segments:True,reclaim_idle_segments:True");
showData({ device, cases, settings_in_force: torch.memory.getAllocatorSettings() });`, { tags: ["settings"] }],
  ["md", `In the committed run on \`{{settings:device}}\`, the {{settings:cases/0/allocated|mib}} of tensors took
{{settings:cases/0/reserved|mib}} reserved with PyTorch's settings ({{settings:cases/0/non_releasable|mib}} of it free but not releasable),
{{settings:cases/1/reserved|mib}} with \`expandable_segments\`, {{settings:cases/2/reserved|mib}} with tsgpu's defaults and
{{settings:cases/3/reserved|mib}} with \`max_split_size_mb:32\` (the cached 64 MiB segment reused whole, plus a 20 MiB segment
whose 12 MiB rest is the only free piece: {{settings:cases/3/non_releasable|mib}} not releasable). On \`cpu\` the two settings
that need mappable memory change nothing. On CUDA, where the pool's segment grows in place,
\`expandable_segments\` maps only the 8 MiB that the second tensor lacks, so the reservation is no more than the
tensors use.

## "cuda_memory_pool" is not a setting

The article sizes "the cache pool" with \`_set_allocator_settings("cuda_memory_pool=…")\`. PyTorch has no such
setting; its keys are \`max_split_size_mb\`, \`roundup_power2_divisions\`, \`garbage_collection_threshold\` and
\`expandable_segments\`, each written \`key:value\`. The pool has no fixed size to set: it grows with the requests
(up to \`setPerProcessMemoryFraction\` of the device, if set). tsgpu rejects the article's line, first for its
form, then, written as \`key:value\`, for its key, naming the keys it accepts; the settings in force do not change.`],
  ["code", `const poolSize = Math.round(1.2 * 400040000);
const attempt = (settings: string) => {
  try {
    torch.cuda.memory.setAllocatorSettings(settings);
    return "accepted";
  } catch (e) {
    return (e as Error).message;
  }
};
const asWritten = attempt("cuda_memory_pool=" + poolSize);
const asKeyValue = attempt("cuda_memory_pool:" + poolSize);
console.log("cuda_memory_pool=" + poolSize + ": " + asWritten);
console.log("cuda_memory_pool:" + poolSize + ": " + asKeyValue);
showData({ as_written: asWritten, as_key_value: asKeyValue, settings_in_force: torch.memory.getAllocatorSettings() });`,
  { tags: ["rejected"] }],
];
