// Source of optimization.ipynb (node scripts/make-notebook.js notebooks/optimization.cells.js notebooks/optimization.ipynb).
module.exports = [
  ["md", `# Needing less memory: mixed precision, checkpointing, model parallel

Three ways to fit more training into the same memory, each measured here rather than promised:

1. **Mixed precision**: run the matrix products in bfloat16 under \`torch.autocast\`, with \`torch.amp.GradScaler\`
   in the loop; compare peak memory and time per step with float32.
2. **Activation checkpointing**: \`torch.utils.checkpointSequential\` keeps only the inputs of each segment and
   recomputes the rest during backward; compare the peak with an ordinary step.
3. **The largest batch that fits** under a fixed memory cap, before and after both, and the often quoted
   ResNet-152 claim (batch 64 → 192 "with mixed precision and checkpointing") measured.
4. **Model parallel**: the two-GPU \`ParallelLinear\`, where two GPUs exist.

The device is chosen in the first cell: the first GPU when there is one, the CPU otherwise. Host tensors go
through the same caching allocator as GPU tensors, so every number below is real on either device.`],
  ["code", `import type { Tensor, nn, optim } from "tsgpu";
type GradScaler = InstanceType<typeof torch.amp.GradScaler>;
type ResNet = InstanceType<typeof torch.vision.models.ResNet>;
const device = torch.cuda.isAvailable() ? "cuda:0" : "cpu";
const deviceType: "cuda" | "cpu" = device.startsWith("cuda") ? "cuda" : "cpu";
const MiB = 2 ** 20;
const mib = (bytes: number) => \`\${(bytes / MiB).toFixed(1)} MiB\`;
/** Shows numbers for programs (the tests read them): JSON, with a one-line text form for plain frontends. */
const showData = (data: object) => display.mime({ "application/json": data, "text/plain": JSON.stringify(data) });
console.log(\`device: \${device}\`);
torch.cuda.isAvailable() ? torch.cuda.getDeviceProperties(0).name : torch.cuda.unavailableReason()`],
  ["md", `## The experiment's parts

A multi-layer perceptron (\`Linear\` and \`ReLU\` layers) on random data, trained with SGD. The forward pass
disposes each layer's output as soon as the next layer has read it: what backward needs, the autograd graph
keeps by itself, so what stays allocated during a step is exactly the graph's saved tensors plus the one layer
being computed. \`trainStep\` takes a *mode*: \`amp\` runs forward and loss inside
\`torch.autocast(deviceType, { dtype: "bfloat16" })\` (the loss itself is computed in float32, as autocast's op
list says), and \`checkpoint\` splits the layers into that many segments for \`checkpointSequential\`.
\`measure\` resets the peak statistic, runs two warm-up steps and five timed steps (reporting the fastest, the
one least disturbed by whatever else the machine was doing), and reports the peak above what was allocated
before.`],
  ["code", `type Mode = { amp: boolean; checkpoint: number };
const kFloat32: Mode = { amp: false, checkpoint: 0 };

const kInputs = 32;

/** A Sequential of depth Linear+ReLU pairs of the given width (kInputs inputs, 10 classes), seeded. */
function makeMLP(width: number, depth: number) {
  torch.manualSeed(0);
  const layers: nn.Module[] = [];
  for (let i = 0; i < depth; i++) layers.push(new torch.nn.Linear(i === 0 ? kInputs : width, width, { device }), new torch.nn.ReLU());
  layers.push(new torch.nn.Linear(width, 10, { device }));
  return new torch.nn.Sequential(...layers);
}

/** Runs modules in order, disposing each intermediate output once the next module has read it. */
function runLayers(modules: Iterable<nn.Module>, x: Tensor): Tensor {
  let h = x;
  for (const m of modules) {
    const next = m.forward(h) as Tensor;
    if (h !== x) h.dispose();
    h = next;
  }
  return h;
}

/**
 * Forward (as mode says), backward through the GradScaler, optimizer step; returns the loss. The forward runs in
 * torch.tidy, so a forward that fails (out of memory) frees what it made at once, and the loss is disposed
 * whether backward succeeds or not.
 */
function trainStep(model: nn.Sequential, opt: optim.SGD, scaler: GradScaler,
                   x: Tensor, y: Tensor, mode: Mode): number {
  const loss = torch.tidy(() => torch.autocast(deviceType, { dtype: "bfloat16", enabled: mode.amp }, () => {
    const logits = mode.checkpoint > 0 ? torch.utils.checkpointSequential(model, mode.checkpoint, x) : runLayers(model.children(), x);
    return torch.crossEntropy(logits, y);
  }));
  const scaled = scaler.scale(loss);
  try {
    scaled.backward();
    scaler.step(opt);
    scaler.update();
    return Number(loss.item());
  } finally {
    opt.zeroGrad();
    if (scaled !== loss) scaled.dispose();
    loss.dispose();
  }
}

/** Peak bytes above the allocation before, and the fastest of five steps in milliseconds, after two warm-up steps. */
function measure(model: nn.Sequential, batch: number, mode: Mode) {
  const opt = new torch.optim.SGD(model.parameters(), { lr: 0.01 });
  const scaler = new torch.amp.GradScaler(deviceType, { enabled: mode.amp });
  torch.manualSeed(1);
  const x = torch.randn([batch, kInputs], { device });
  const y = torch.randint(0, 10, [batch], { device });
  for (let i = 0; i < 2; i++) trainStep(model, opt, scaler, x, y, mode);
  torch.memory.resetPeakStats(device);
  const base = torch.memory.allocated(device);
  let loss = 0, ms = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    loss = trainStep(model, opt, scaler, x, y, mode);
    ms = Math.min(ms, performance.now() - t0);
  }
  const peak = torch.memory.maxAllocated(device) - base;
  x.dispose();
  y.dispose();
  return { peak_bytes: peak, ms_per_step: Math.round(ms * 10) / 10, loss: Math.round(loss * 1e4) / 1e4, scale: scaler.getScale() };
}`],
  ["md", `## 1. Mixed precision

Sixteen layers of width 64 and a batch of 1024: the activations (1024 × 64 floats per layer, 256 KiB each in
float32) outweigh the weights (16 KiB per layer), which is the case where mixed precision pays. Under
autocast the matrix products take bfloat16 inputs: the graph saves bfloat16 activations (half the bytes) and a
bfloat16 copy of each weight for the length of the autocast region.

\`GradScaler\` multiplies the loss before backward and divides the gradients before the step, so that small
float16 gradients do not flush to zero. bfloat16 has float32's exponent range and needs no scaling, but the
loop is written the way float16 training needs it, and the scaler's scale is reported.`],
  ["code", `const mlp = makeMLP(64, 16);
const kBatch = 1024, kSegments = 6;
const fp32 = measure(mlp, kBatch, kFloat32);
const bf16 = measure(mlp, kBatch, { amp: true, checkpoint: 0 });
console.log(\`float32:            peak \${mib(fp32.peak_bytes)} above the model, \${fp32.ms_per_step} ms per step\`);
console.log(\`bfloat16 autocast:  peak \${mib(bf16.peak_bytes)} above the model, \${bf16.ms_per_step} ms per step (scale \${bf16.scale})\`);
showData({ device, batch: kBatch, float32: fp32, bfloat16: bf16,
  peak_ratio: Math.round((bf16.peak_bytes / fp32.peak_bytes) * 1000) / 1000,
  time_ratio: Math.round((bf16.ms_per_step / fp32.ms_per_step) * 100) / 100 });`, { tags: ["amp"] }],
  ["md", `In the committed run on \`{{amp:device}}\`, the peak fell to {{amp:peak_ratio|f2}} of float32's
({{amp:float32/peak_bytes|mib1}} in float32, {{amp:bfloat16/peak_bytes|mib1}} under autocast): the saved activations are half
the size, and what stays in float32 is the weights' gradients and the loss. The article's "50% less memory"
is about what a model like this one, whose activations dominate, can get; for a model whose weights dominate,
autocast saves little and adds a bfloat16 copy of every weight for the length of the region.

Time depends on the hardware and on the size of the products. A bfloat16 step took {{amp:time_ratio|f2}} times as
long as a float32 one in the committed run ({{amp:bfloat16/ms_per_step}} ms against {{amp:float32/ms_per_step}} ms). On a GPU
with bfloat16 tensor cores, large products run several times faster, though products as small as these are
bound by the launches and the casts more than by arithmetic; tsgpu's CPU kernels widen bfloat16 operands to
float32 before multiplying, so on the CPU the casts only add work. Times also move with whatever else the
machine is doing.`],
  ["md", `## 2. Activation checkpointing

The same network, with its 33 modules split into six segments (about the square root of their number, the
usual choice). During forward only each segment's input is kept; during backward each segment runs again
(with the random state of the first run, so dropout would draw the same masks) and its graph is freed as soon
as it has been used. The price is one extra forward pass.`],
  ["code", `const plain = measure(mlp, kBatch, kFloat32);
const ckpt = measure(mlp, kBatch, { amp: false, checkpoint: kSegments });
console.log(\`no checkpointing:       peak \${mib(plain.peak_bytes)}, \${plain.ms_per_step} ms per step\`);
console.log(\`checkpointing (6 seg.): peak \${mib(ckpt.peak_bytes)}, \${ckpt.ms_per_step} ms per step\`);
showData({ device, batch: kBatch, segments: kSegments, none: plain, checkpoint: ckpt,
  peak_ratio: Math.round((ckpt.peak_bytes / plain.peak_bytes) * 1000) / 1000,
  time_ratio: Math.round((ckpt.ms_per_step / plain.ms_per_step) * 100) / 100 });`, { tags: ["checkpoint"] }],
  ["md", `The peak fell to {{checkpoint:peak_ratio|f2}} of the plain step's ({{checkpoint:checkpoint/peak_bytes|mib1}} against
{{checkpoint:none/peak_bytes|mib1}} in the committed run): between forward and backward only the six segments' inputs are kept,
and during backward one segment's activations at a time. The loss stays where it was ({{checkpoint:checkpoint/loss}} against
{{checkpoint:none/loss}}; the two measurements train the same model one after the other), since the recomputed forward
is the same computation. The price is one forward pass more per step; the times the cell prints
({{checkpoint:checkpoint/ms_per_step}} ms against {{checkpoint:none/ms_per_step}} ms in the committed run) are as noisy as steps of a few
milliseconds are.`],
  ["md", `## 3. The largest batch that fits

A fixed budget makes "fits" mean the same on a laptop and on an H200: \`torch.memory.setMemoryFraction\` (PyTorch's
\`set_per_process_memory_fraction\`, for the CPU device too) caps what the allocator may reserve, and a request
past the cap fails with \`OutOfMemoryError\` after the allocator has freed its cache and retried, exactly as a
full GPU does. The cap here is what is reserved now plus 8 MiB. A binary search over batch sizes (multiples
of 64) finds the largest one whose training step succeeds, first in float32, then with bfloat16 autocast and
checkpointing together.

The sizes are chosen so that every tensor stays under 1 MiB: the allocator serves those from 2 MiB segments,
so the cap is felt in steps of 2 MiB. A tensor of 1 MiB or more comes from a segment of 20 MiB (as in
PyTorch), and under a tight cap one more such segment is all or nothing.`],
  ["code", `/** Whether one training step at this batch succeeds under the cap (an OutOfMemoryError means no). */
function fits(model: nn.Sequential, batch: number, mode: Mode): boolean {
  const opt = new torch.optim.SGD(model.parameters(), { lr: 0.01 });
  const scaler = new torch.amp.GradScaler(deviceType, { enabled: mode.amp });
  let x: Tensor | null = null, y: Tensor | null = null;
  try {
    x = torch.randn([batch, kInputs], { device });
    y = torch.randint(0, 10, [batch], { device });
    trainStep(model, opt, scaler, x, y, mode);
    return true;
  } catch (e) {
    if ((e as Error).name !== "OutOfMemoryError") throw e;
    return false;
  } finally {
    x?.dispose();
    y?.dispose();
  }
}

/** The largest multiple of 64 that fits: doubling, then bisection. */
function largestBatch(model: nn.Sequential, mode: Mode) {
  let lo = 0, hi = 64, trials = 0;
  while (fits(model, hi, mode)) { lo = hi; hi *= 2; trials++; }
  trials++;
  while (hi - lo > 64) {
    const mid = Math.floor((lo + hi) / 128) * 64;
    if (fits(model, mid, mode)) lo = mid; else hi = mid;
    trials++;
  }
  return { batch: lo, trials };
}`],
  ["code", `torch.memory.emptyCache(device);
const total = torch.memory.memGetInfo(device)[1];
const capBytes = torch.memory.reserved(device) + 8 * MiB;
torch.memory.setMemoryFraction(capBytes / total, device);
const before = largestBatch(mlp, kFloat32);
const after = largestBatch(mlp, { amp: true, checkpoint: kSegments });
torch.memory.setMemoryFraction(1, device);
console.log(\`cap: \${mib(capBytes)} reserved\`);
console.log(\`float32, no checkpointing:          largest batch \${before.batch}\`);
console.log(\`bfloat16 autocast + checkpointing:  largest batch \${after.batch}  (\${(after.batch / before.batch).toFixed(2)}×)\`);
showData({ device, cap_bytes: capBytes, before: { mode: kFloat32, ...before }, after: { mode: { amp: true, checkpoint: kSegments }, ...after },
  ratio: Math.round((after.batch / before.batch) * 100) / 100 });`, { tags: ["largest-batch"] }],
  ["md", `## 4. The ResNet-152 claim

A widely copied sentence says that on ResNet-152, mixed precision and gradient checkpointing together take the
batch from 64 to 192 at a 15% loss of speed. The cell below puts it to the test as stated: one float32 step at
batch 64 against one bfloat16 + checkpointed step at batch 192 (every residual block its own segment), on
224 × 224 images, comparing peak memory and images per second. That needs a GPU; on the CPU it runs the same
experiment scaled down to ResNet-18 on 32 × 32 images at batches 8 and 24, which takes seconds instead of
minutes and still shows which way each number moves.`],
  ["code", `const resnetCase = deviceType === "cuda"
  ? { model: "resnet152", image: 224, batches: [64, 192], steps: 3 }
  : { model: "resnet18", image: 32, batches: [8, 24], steps: 1 };

/** Logits of a torchvision ResNet, each residual block checkpointed on its own when asked. */
function resnetForward(net: ResNet, x: Tensor, checkpointed: boolean): Tensor {
  if (!checkpointed) return net.forward(x);
  let h = runLayers([net.conv1, net.bn1, net.relu, net.maxpool], x);
  for (const layer of [net.layer1, net.layer2, net.layer3, net.layer4]) {
    for (const block of layer.children()) {
      const next = torch.utils.checkpoint((t: Tensor) => block.forward(t) as Tensor, h);
      h.dispose();
      h = next;
    }
  }
  return runLayers([net.avgpool, new torch.nn.Flatten(), net.fc], h);
}

/** Peak bytes above the model and images per second of training steps at this batch. */
function resnetRun(net: ResNet, batch: number, optimized: boolean) {
  const opt = new torch.optim.SGD(net.parameters(), { lr: 0.01, momentum: 0.9 });
  const scaler = new torch.amp.GradScaler(deviceType, { enabled: optimized });
  torch.manualSeed(2);
  const x = torch.randn([batch, 3, resnetCase.image, resnetCase.image], { device });
  const y = torch.randint(0, 1000, [batch], { device });
  const step = () => {
    const loss = torch.tidy(() => torch.autocast(deviceType, { dtype: "bfloat16", enabled: optimized },
      () => torch.crossEntropy(resnetForward(net, x, optimized), y)));
    const scaled = scaler.scale(loss);
    scaled.backward();
    scaler.step(opt);
    scaler.update();
    opt.zeroGrad();
    loss.item();
    if (scaled !== loss) scaled.dispose();
    loss.dispose();
  };
  step();
  torch.memory.resetPeakStats(device);
  const base = torch.memory.allocated(device);
  const t0 = performance.now();
  for (let i = 0; i < resnetCase.steps; i++) step();
  const seconds = (performance.now() - t0) / 1000;
  const peak = torch.memory.maxAllocated(device) - base;
  x.dispose();
  y.dispose();
  return { batch, amp: optimized, checkpoint: optimized, peak_bytes: peak, images_per_s: Math.round((batch * resnetCase.steps / seconds) * 10) / 10 };
}

const net = (torch.vision.models as any)[resnetCase.model]({ device }) as ResNet;
const baseline = resnetRun(net, resnetCase.batches[0], false);
const optimized = resnetRun(net, resnetCase.batches[1], true);
console.log(\`\${resnetCase.model} at \${resnetCase.image}×\${resnetCase.image}\`);
console.log(\`  float32, batch \${baseline.batch}:                   peak \${mib(baseline.peak_bytes)}, \${baseline.images_per_s} images/s\`);
console.log(\`  bfloat16 + checkpointing, batch \${optimized.batch}:  peak \${mib(optimized.peak_bytes)}, \${optimized.images_per_s} images/s\`);
const parameterBytes = [...net.parameters()].reduce((n, p) => n + p.nbytes, 0);
showData({ device, ...resnetCase, parameter_bytes: parameterBytes, baseline, optimized,
  peak_ratio: Math.round((optimized.peak_bytes / baseline.peak_bytes) * 1000) / 1000,
  throughput_ratio: Math.round((optimized.images_per_s / baseline.images_per_s) * 100) / 100 });`, { tags: ["resnet"] }],
  ["md", `In the committed run (\`{{resnet:model}}\` at {{resnet:image}} × {{resnet:image}} on \`{{resnet:device}}\`), three times the batch took
{{resnet:peak_ratio|f2}} times the peak: {{resnet:baseline/peak_bytes|mib1}} at batch {{resnet:baseline/batch}} in float32,
{{resnet:optimized/peak_bytes|mib1}} at batch {{resnet:optimized/batch}} with bfloat16 and checkpointing. Part of every peak is the
gradients, as large as the parameters ({{resnet:parameter_bytes|mib1}}), which no technique here shrinks; the activations'
share, the part that grows with the batch, is what mixed precision halves and checkpointing cuts to the
blocks' inputs. At 32 × 32 (the CPU's ResNet-18) the gradients are most of the peak; at 224 × 224 (ResNet-152
on a GPU) the activations are.

The sentence's speed figures do not add up by themselves. If "speed" means steps per second, three times the
images per step at 85% of the steps per second is 2.55 times the images per second (+155%), not +200%; if it
means images per second, throughput cannot rise at all. Checkpointing adds a second forward pass per step
(about a third more work), so any gain in images per second has to come from faster bfloat16 products; in the
committed run the optimized step's images per second were {{resnet:throughput_ratio|f2}} times the baseline's
({{resnet:optimized/images_per_s}} against {{resnet:baseline/images_per_s}}).`],
  ["md", `## 5. Model parallel: a Linear split over two GPUs

When one GPU cannot hold a layer, its output features can be split between two: each GPU holds half of the
weight and computes half of the output, and the halves are joined on the first GPU. Autograd follows the
copies between devices, so backward sends each half of the gradient to the GPU that holds its weight.`],
  ["code", `class ParallelLinear extends torch.nn.Module {
  w0: nn.Parameter;
  w1: nn.Parameter;
  constructor(inFeatures: number, outFeatures: number) {
    super();
    const half = Math.floor(outFeatures / 2);
    this.w0 = new torch.nn.Parameter(torch.randn([half, inFeatures], { device: "cuda:0" }).mul(inFeatures ** -0.5));
    this.w1 = new torch.nn.Parameter(torch.randn([outFeatures - half, inFeatures], { device: "cuda:1" }).mul(inFeatures ** -0.5));
  }
  forward(x: Tensor): Tensor {
    const y0 = x.matmul(this.w0.t());
    const y1 = x.to("cuda:1").matmul(this.w1.t());
    return torch.cat([y0, y1.to("cuda:0")], 1);
  }
}

const gpus = torch.cuda.isAvailable() ? torch.cuda.deviceCount() : 0;
let parallel: Record<string, unknown> = { ran: false, gpus, reason: "", per_device_parameter_bytes: null, output_shape: null, grads_on: null };
if (gpus >= 2) {
  torch.manualSeed(3);
  const layer = new ParallelLinear(8192, 8192);
  const out = layer.forward(torch.randn([64, 8192], { device: "cuda:0" }));
  out.sum().backward();
  parallel = { ran: true, gpus, reason: "",
    per_device_parameter_bytes: { "cuda:0": layer.w0.nbytes, "cuda:1": layer.w1.nbytes },
    output_shape: out.shape, grads_on: [String(layer.w0.grad!.device), String(layer.w1.grad!.device)] };
  console.log(\`each GPU holds \${mib(layer.w0.nbytes)} of the weight; output \${out.shape.join(" × ")} on \${out.device}\`);
} else {
  parallel.reason = gpus === 1 ? "one GPU on this machine: the layer needs cuda:0 and cuda:1"
    : \`no GPU on this machine (\${torch.cuda.unavailableReason()}): the layer needs cuda:0 and cuda:1\`;
  console.log(\`skipped: \${parallel.reason}\`);
}
showData(parallel);`, { tags: ["parallel"] }],
  ["md", `## What this shows

The numbers of the committed run, on \`{{amp:device}}\` (another device gives its own):

| technique | what was measured | result |
| --- | --- | --- |
| bfloat16 autocast + GradScaler | peak of a training step, batch {{amp:batch}} | {{amp:peak_ratio|f2}} × float32's |
| checkpointing, {{checkpoint:segments}} segments | peak of a training step, batch {{checkpoint:batch}} | {{checkpoint:peak_ratio|f2}} × none |
| both, under a {{largest-batch:cap_bytes|mib}} cap | largest batch that trains | {{largest-batch:before/batch}} → {{largest-batch:after/batch}} ({{largest-batch:ratio|f2}}×) |
| both, \`{{resnet:model}}\` at {{resnet:image}} × {{resnet:image}} | peak at 3× the batch | {{resnet:peak_ratio|f2}} × |

Memory is the part that transfers from one machine to another; time does not (a CPU pays for bfloat16; a
GPU with bfloat16 tensor cores gains from it on large products), which is why each cell prints both.`],
];
