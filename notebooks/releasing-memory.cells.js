// Source of releasing-memory.ipynb:
//   node scripts/make-notebook.js notebooks/releasing-memory.cells.js notebooks/releasing-memory.ipynb
// Cells tagged for test/e2e/notebooks.test.ts, which reads the numbers they display.
module.exports = [
  ["md", `# Giving memory back

JavaScript has no \`del\`: a tensor nobody references any more is freed when the garbage collector gets to it,
which is soon when many such tensors pile up (the runtime asks for a collection once they hold 128 MiB) but
never at a moment you choose. This notebook frees memory on purpose, measures what each way gives back, and
ends where it started:

- \`dispose()\`, \`using\` and \`torch.tidy\` free tensors at a point in the code;
- \`torch.noGrad\` keeps a forward pass from holding its activations for a backward pass that never comes;
- \`zeroGrad({ setToNone: true })\` frees gradients instead of filling them with zeros;
- \`%empty_cache\` hands cached memory back to the device, and says what it has to keep.

The device is chosen in the first cell: \`cuda:0\` where there is a GPU, \`cpu\` elsewhere.`],
  ["code", `const device = torch.cuda.isAvailable() ? "cuda:0" : "cpu";
torch.manualSeed(0);
type Tensor = ReturnType<typeof torch.randn>;
const MiB = 1024 * 1024;
const mib = (bytes: number) => (bytes / MiB).toFixed(2) + " MiB";
const allocated = () => torch.memory.allocated(device);
const start = allocated();
/** Shows numbers as JSON, for programs that read the notebook (its text form is the same JSON on one line). */
const showData = (data: object) => display.mime({ "application/json": data, "text/plain": JSON.stringify(data) });
console.log("device: " + device + ", allocated at the start: " + mib(start));`, { tags: ["setup"] }],
  ["md", `## \`dispose()\`: free it now

A 4096 × 4096 float32 tensor is 64 MiB. \`dispose()\` returns its block to the allocator at once (what
\`del\` followed by the end of the last reference does in Python). The memory stays *reserved*: the allocator
keeps the segment for the next tensor of that size.`],
  ["code", `const big = torch.randn([4096, 4096], { device });
const withBig = allocated() - start;
big.dispose();
const afterDispose = allocated() - start;
console.log("allocated with the tensor: " + mib(withBig) + ", after dispose(): " + mib(afterDispose) +
  ", still reserved: " + mib(torch.memory.reserved(device)));
showData({ device, with_tensor: withBig, after_dispose: afterDispose, reserved: torch.memory.reserved(device) });`, { tags: ["dispose"] }],
  ["md", `## \`using\`: free it when the block ends

A \`using\` declaration disposes the tensor when its block is left, however it is left (a \`return\`, an
exception, an interrupt). At a cell's top level the block is the cell.`],
  ["code", `let insideBlock = 0;
{
  using scratch = torch.randn([4096, 4096], { device });
  insideBlock = allocated() - start;
  console.log("scratch's first element: " + Number(torch.tidy(() => scratch.index(0, 0).item())).toFixed(4));
}
const afterBlock = allocated() - start;
console.log("inside the block: " + mib(insideBlock) + ", after it: " + mib(afterBlock));
showData({ inside_block: insideBlock, after_block: afterBlock });`, { tags: ["using"] }],
  ["md", `## \`torch.tidy\`: free every intermediate

\`a.mul(2).add(1).pow(2).sum().sqrt()\` makes four tensors on the way to its result; inside \`torch.tidy\` all of
them are freed when the function returns, except what it returns. Here it returns a number (\`item()\`), so
nothing stays, and the peak shows the intermediates that existed for a moment: in the committed run on
\`{{dispose:device}}\`, {{tidy:peak_above_start|mib}} above the start, with \`a\` itself {{tidy:input_bytes|mib}}.`],
  ["code", `const a = torch.randn([2048, 2048], { device });
torch.memory.resetPeakStats(device);
const beforeTidy = allocated();
const norm = Number(torch.tidy(() => a.mul(2).add(1).pow(2).sum().sqrt().item()));
const tidyKept = allocated() - beforeTidy;
const tidyPeak = torch.memory.maxAllocated(device) - beforeTidy;
a.dispose();
console.log("norm " + norm.toFixed(1) + "; kept after tidy: " + tidyKept + " bytes; " +
  "peak above the start of the cell: " + mib(tidyPeak) + " (a is " + mib(2048 * 2048 * 4) + ")");
showData({ kept: tidyKept, peak_above_start: tidyPeak, input_bytes: 2048 * 2048 * 4 });`, { tags: ["tidy"] }],
  ["md", `## \`torch.noGrad\` against grad mode

A network of four 1024-wide layers with ReLUs, on a batch of 1024 rows (each activation is 4 MiB). The forward
pass below frees each layer's output as soon as the next layer has used it. In grad mode that frees little:
the graph keeps the activations that backward will need (the inputs of the linear layers and the outputs of the
ReLUs) until backward runs or the loss is disposed. Under \`torch.noGrad\` nothing is recorded, so at most two
activations exist at a time.`],
  ["code", `const layers = [
  new torch.nn.Linear(1024, 1024, { device }), new torch.nn.ReLU(),
  new torch.nn.Linear(1024, 1024, { device }), new torch.nn.ReLU(),
  new torch.nn.Linear(1024, 1024, { device }), new torch.nn.ReLU(),
  new torch.nn.Linear(1024, 1024, { device }), new torch.nn.ReLU(),
  new torch.nn.Linear(1024, 10, { device }),
];
const params = layers.flatMap((l) => [...l.parameters()]);
const x = torch.randn([1024, 1024], { device });
const y = torch.randint(0, 10, [1024], { device });
/** The forward pass, freeing each intermediate as soon as the next layer has read it. */
function forward(input: Tensor): Tensor {
  let h = input;
  for (const layer of layers) {
    const next: Tensor = torch.tidy(() => layer.forward(h));
    if (h !== input) h.dispose();
    h = next;
  }
  return h;
}
/** Allocated memory that a forward pass keeps, and its peak, above what was allocated before it. */
function forwardMemory(run: () => Tensor) {
  torch.memory.resetPeakStats(device);
  const base = allocated();
  const out = run();
  const kept = allocated() - base;
  const peak = torch.memory.maxAllocated(device) - base;
  out.dispose();
  return { kept, peak, after_dispose: allocated() - base };
}
const gradMode = forwardMemory(() => forward(x));
const noGradMode = forwardMemory(() => torch.noGrad(() => forward(x)));
console.log("grad mode: keeps " + mib(gradMode.kept) + " after the forward pass, peak " + mib(gradMode.peak));
console.log("noGrad:    keeps " + mib(noGradMode.kept) + " after the forward pass, peak " + mib(noGradMode.peak));
showData({ grad_mode: gradMode, no_grad: noGradMode, output_bytes: 1024 * 10 * 4 });`, { tags: ["no-grad"] }],
  ["md", `In the committed run on \`{{dispose:device}}\`, grad mode kept {{no-grad:grad_mode/kept|mib}} after the forward pass (the four ReLU
outputs, 4 MiB each, and the 40 KiB output) and peaked at {{no-grad:grad_mode/peak|mib}}; under \`noGrad\` only the output
stayed ({{no-grad:no_grad/kept|int}} bytes), and the peak was {{no-grad:no_grad/peak|mib}} (two activations are 8 MiB). Disposing the output freed the graph behind it, so both end at zero.

## \`zeroGrad({ setToNone: true })\` against zero-filling

After \`backward()\` every parameter has a gradient of its own size: as much memory again as the parameters. The
article's "before" prints each gradient's storage size (here \`p.grad.untypedStorage().nbytes\`, as PyTorch's
\`untyped_storage().nbytes()\`); \`zeroGrad({ setToNone: false })\` fills them with zeros and
keeps every byte, \`zeroGrad({ setToNone: true })\` (tsgpu's default, as PyTorch's since 2.0) drops them, and the
next backward makes new ones.`],
  ["code", `const opt = new torch.optim.SGD(params, { lr: 0.01 });
const loss = torch.tidy(() => torch.crossEntropy(forward(x), y));
loss.backward();
loss.dispose();
const withGrads = allocated();
for (const p of params.slice(0, 2)) {
  const storageBytes = p.grad!.untypedStorage().nbytes;
  console.log("gradient of a " + JSON.stringify(p.shape) + " parameter: " + storageBytes + " bytes of storage");
}
const gradientBlockBytes = params.reduce((n, p) => n + Math.ceil(p.grad!.nbytes / 512) * 512, 0);
opt.zeroGrad({ setToNone: false });
const zeroFilled = allocated();
const gradientsAfterZeroFill = params.filter((p) => p.grad !== null).length;
opt.zeroGrad({ setToNone: true });
const setToNone = allocated();
console.log("gradients: " + mib(gradientBlockBytes) + "; zero-filling frees " + mib(withGrads - zeroFilled) +
  ", setToNone frees " + mib(zeroFilled - setToNone));
showData({ parameters: params.length, gradient_block_bytes: gradientBlockBytes, with_grads: withGrads,
  zero_filled: zeroFilled, set_to_none: setToNone, gradients_after_zero_fill: gradientsAfterZeroFill,
  gradients_after_set_to_none: params.filter((p) => p.grad !== null).length });`,
  { tags: ["zero-grad"] }],
  ["md", `## \`%empty_cache\`, and what it cannot release

Everything is disposed now except one 3 MiB tensor, \`keep\`. Allocated memory is back to the start, plus
\`keep\`; reserved memory still holds the segments of everything freed above. \`%empty_cache\` returns every
segment that no tensor uses. The segment that holds \`keep\` stays (a segment goes back whole or not at all), and
the report names \`keep\` as its holder, and its \`kept_bytes\` say how much reserved memory that segment keeps:
far more than \`keep\`'s 3 MiB when \`keep\` was placed in a large segment that the tensors above had reused. Memory outside the allocator — on a GPU, the CUDA context of the kernel
process, a few hundred MiB that \`%memory\` shows in its own row — goes only when the process ends: restart the
kernel.`],
  ["code", `for (const layer of layers) layer.dispose();
x.dispose();
y.dispose();
const keep = torch.randn([768, 1024], { device });
console.log("allocated above the start: " + mib(allocated() - start) +
  ", reserved: " + mib(torch.memory.reserved(device)));`, { tags: ["free-all"] }],
  ["code", `%empty_cache`, { tags: ["empty-cache"] }],
  ["md", `Once \`keep\` is disposed too, nothing holds a segment and the cache empties completely.`],
  ["code", `keep.dispose();`],
  ["code", `%empty_cache`, { tags: ["empty-cache-final"] }],
  ["code", `console.log("allocated: " + mib(start) + " at the start, " + mib(allocated()) + " now; reserved: " +
  mib(torch.memory.reserved(device)));
showData({ start, end: allocated(), reserved: torch.memory.reserved(device) });`, { tags: ["end"] }],
];
