/**
 * Convolution, pooling, batch norm and interpolate on CPU against PyTorch
 * (test/native/torch_reference.ts): the same random inputs through both,
 * forward values and the gradients of every input (torch.autograd.grad on
 * both sides), and the errors PyTorch also raises.
 */
import * as torch from '../../native/index';
import { compareWithTorch, RefCase } from './torch_reference';

type T = torch.Tensor;
const F = torch.nn.functional;
const PF = 'torch.nn.functional';

/** Forward value and the gradients of sum(out * g) with respect to `wrt`, on both sides. */
function withGrads(name: string, inputs: Record<string, T>, wrt: string[], py: string, f: (x: Record<string, T>) => T, tol?: { rtol?: number; atol?: number }): RefCase[] {
  const names = Object.keys(inputs);
  const args = names.map((k) => (wrt.includes(k) ? `${k}.clone().requires_grad_()` : k)).join(', ');
  const gradPy = `(lambda ${names.join(', ')}: (lambda out_: [out_] + list(torch.autograd.grad((out_ * torch.linspace(-1, 1, out_.numel(), dtype=out_.dtype).reshape(out_.shape)).sum(), [${wrt.join(', ')}])))(${py}))(${args})`;
  return [{
    name: `${name}: forward and gradients`,
    inputs,
    torch: gradPy,
    run: (xs) => {
      const own: Record<string, T> = {};
      for (const [k, v] of Object.entries(xs)) own[k] = wrt.includes(k) ? v.clone().requiresGrad_() : v;
      const y = f(own);
      const g = torch.linspace(-1, 1, y.numel, { dtype: y.dtype }).reshape(y.shape);
      const grads = torch.autograd.grad(y.mul(g).sum(), wrt.map((k) => own[k])) as T[];
      return [y.detach(), ...grads];
    },
    ...tol,
  }];
}

torch.manualSeed(11);
const r = (...s: number[]) => torch.randn(s);
const tol = { rtol: 1e-4, atol: 1e-4 };

const cases: RefCase[] = [
  ...withGrads('conv2d 3x3, bias, padding 1', { x: r(2, 3, 7, 6), w: r(4, 3, 3, 3), b: r(4) }, ['x', 'w', 'b'],
    `${PF}.conv2d(x, w, b, padding=1)`, ({ x, w, b }) => F.conv2d(x, w, b, { padding: 1 }), tol),
  ...withGrads('conv2d stride 2, dilation 2, no bias', { x: r(2, 2, 9, 8), w: r(3, 2, 3, 2) }, ['x', 'w'],
    `${PF}.conv2d(x, w, stride=2, dilation=2, padding=(1, 2))`, ({ x, w }) => F.conv2d(x, w, null, { stride: 2, dilation: 2, padding: [1, 2] }), tol),
  ...withGrads('conv2d groups 2, stride (2, 1)', { x: r(1, 4, 6, 6), w: r(6, 2, 3, 3), b: r(6) }, ['x', 'w', 'b'],
    `${PF}.conv2d(x, w, b, stride=(2, 1), groups=2)`, ({ x, w, b }) => F.conv2d(x, w, b, { stride: [2, 1], groups: 2 }), tol),
  ...withGrads('conv2d depthwise (groups = channels)', { x: r(2, 3, 5, 5), w: r(3, 1, 3, 3) }, ['x', 'w'],
    `${PF}.conv2d(x, w, padding=1, groups=3)`, ({ x, w }) => F.conv2d(x, w, null, { padding: 1, groups: 3 }), tol),
  ...withGrads("conv2d padding 'same' with an even kernel and dilation", { x: r(1, 2, 6, 7), w: r(3, 2, 4, 2) }, ['x', 'w'],
    `${PF}.conv2d(x, w, padding='same', dilation=(1, 2))`, ({ x, w }) => F.conv2d(x, w, null, { padding: 'same', dilation: [1, 2] }), tol),
  ...withGrads("conv2d padding 'valid', unbatched 3-D input", { x: r(3, 5, 6), w: r(2, 3, 2, 3), b: r(2) }, ['x', 'w', 'b'],
    `${PF}.conv2d(x, w, b, padding='valid')`, ({ x, w, b }) => F.conv2d(x, w, b, { padding: 'valid' }), tol),
  ...withGrads('conv2d 1x1 stride 2 (a ResNet shortcut)', { x: r(2, 4, 5, 5), w: r(8, 4, 1, 1) }, ['x', 'w'],
    `${PF}.conv2d(x, w, stride=2)`, ({ x, w }) => F.conv2d(x, w, null, { stride: 2 }), tol),
  ...withGrads('convTranspose2d stride 2, padding 1, outputPadding 1, bias', { x: r(2, 3, 4, 5), w: r(3, 2, 3, 3), b: r(2) }, ['x', 'w', 'b'],
    `${PF}.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1)`,
    ({ x, w, b }) => F.convTranspose2d(x, w, b, { stride: 2, padding: 1, outputPadding: 1 }), tol),
  ...withGrads('convTranspose2d groups 2, dilation 2', { x: r(1, 4, 3, 3), w: r(4, 3, 2, 3) }, ['x', 'w'],
    `${PF}.conv_transpose2d(x, w, groups=2, dilation=2)`, ({ x, w }) => F.convTranspose2d(x, w, null, { groups: 2, dilation: 2 }), tol),
  ...withGrads('maxPool2d 3x3 stride 2 padding 1', { x: r(2, 3, 7, 8) }, ['x'],
    `${PF}.max_pool2d(x, 3, 2, 1)`, ({ x }) => F.maxPool2d(x, 3, { stride: 2, padding: 1 })),
  ...withGrads('maxPool2d 2x2 ceilMode, dilation 2, unbatched', { x: r(2, 7, 7) }, ['x'],
    `${PF}.max_pool2d(x, 2, 2, 0, 2, ceil_mode=True)`, ({ x }) => F.maxPool2d(x, 2, { stride: 2, dilation: 2, ceilMode: true })),
  {
    name: 'maxPool2d returnIndices (flat positions in each plane)',
    inputs: { x: r(2, 2, 6, 5) },
    torch: `${PF}.max_pool2d(x, (3, 2), (2, 1), 1, return_indices=True)`,
    run: ({ x }) => F.maxPool2d(x, [3, 2], { stride: [2, 1], padding: 1, returnIndices: true }),
  },
  ...withGrads('avgPool2d 3x3 stride 2 padding 1 (countIncludePad)', { x: r(2, 3, 7, 6) }, ['x'],
    `${PF}.avg_pool2d(x, 3, 2, 1)`, ({ x }) => F.avgPool2d(x, 3, { stride: 2, padding: 1 })),
  ...withGrads('avgPool2d without countIncludePad, ceilMode', { x: r(1, 2, 7, 7) }, ['x'],
    `${PF}.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)`,
    ({ x }) => F.avgPool2d(x, 3, { stride: 2, padding: 1, ceilMode: true, countIncludePad: false })),
  ...withGrads('avgPool2d divisorOverride', { x: r(1, 2, 6, 6) }, ['x'],
    `${PF}.avg_pool2d(x, 2, divisor_override=3)`, ({ x }) => F.avgPool2d(x, 2, { divisorOverride: 3 })),
  ...withGrads('adaptiveAvgPool2d to 1x1', { x: r(2, 3, 5, 4) }, ['x'],
    `${PF}.adaptive_avg_pool2d(x, 1)`, ({ x }) => F.adaptiveAvgPool2d(x, 1)),
  ...withGrads('adaptiveAvgPool2d 7x5 to (3, None) and 5x7 to 3x4, overlapping windows', { x: r(2, 2, 7, 5), y: r(1, 2, 5, 7) }, ['x', 'y'],
    `torch.cat([${PF}.adaptive_avg_pool2d(x, (3, None)).flatten(), ${PF}.adaptive_avg_pool2d(y, (3, 4)).flatten()])`,
    ({ x, y }) => torch.cat([F.adaptiveAvgPool2d(x, [3, null]).flatten(), F.adaptiveAvgPool2d(y, [3, 4]).flatten()])),
  ...withGrads('interpolate nearest, size', { x: r(1, 2, 4, 5) }, ['x'],
    `${PF}.interpolate(x, size=(7, 3), mode='nearest')`, ({ x }) => F.interpolate(x, { size: [7, 3] })),
  ...withGrads('interpolate nearest, scaleFactor 2 and 1.5', { x: r(1, 2, 3, 4) }, ['x'],
    `${PF}.interpolate(x, scale_factor=(2, 1.5), mode='nearest')`, ({ x }) => F.interpolate(x, { scaleFactor: [2, 1.5] })),
  ...withGrads('interpolate bilinear', { x: r(2, 2, 4, 5) }, ['x'],
    `${PF}.interpolate(x, size=(6, 9), mode='bilinear')`, ({ x }) => F.interpolate(x, { size: [6, 9], mode: 'bilinear' }), tol),
  ...withGrads('interpolate bilinear alignCorners, downscale', { x: r(1, 3, 6, 7) }, ['x'],
    `${PF}.interpolate(x, size=(4, 3), mode='bilinear', align_corners=True)`,
    ({ x }) => F.interpolate(x, { size: [4, 3], mode: 'bilinear', alignCorners: true }), tol),
  ...withGrads('interpolate bilinear scaleFactor 0.5', { x: r(1, 2, 6, 8) }, ['x'],
    `${PF}.interpolate(x, scale_factor=0.5, mode='bilinear')`, ({ x }) => F.interpolate(x, { scaleFactor: 0.5, mode: 'bilinear' }), tol),
  ...withGrads('batchNorm training (batch statistics)', { x: r(4, 3, 5, 2), w: r(3), b: r(3), rm: r(3), rv: torch.rand([3]).add(0.5) }, ['x', 'w', 'b'],
    `${PF}.batch_norm(x, rm.clone(), rv.clone(), w, b, True, 0.1, 1e-5)`,
    ({ x, w, b, rm, rv }) => F.batchNorm(x, rm.clone(), rv.clone(), w, b, { training: true }), tol),
  ...withGrads('batchNorm eval (running statistics)', { x: r(4, 3, 5, 2), w: r(3), b: r(3), rm: r(3), rv: torch.rand([3]).add(0.5) }, ['x', 'w', 'b'],
    `${PF}.batch_norm(x, rm, rv, w, b, False, 0.1, 1e-3)`,
    ({ x, w, b, rm, rv }) => F.batchNorm(x, rm, rv, w, b, { eps: 1e-3 }), tol),
  {
    name: 'batchNorm training updates the running statistics (momentum 0.3, unbiased variance)',
    inputs: { x: r(3, 4, 3, 3), rm: r(4), rv: torch.rand([4]).add(0.5) },
    torch: `(lambda m, v: (${PF}.batch_norm(x, m, v, None, None, True, 0.3, 1e-5), m, v))(rm.clone(), rv.clone())`,
    run: ({ x, rm, rv }) => {
      const m = rm.clone(), v = rv.clone();
      return [F.batchNorm(x, m, v, null, null, { training: true, momentum: 0.3 }), m, v];
    },
    ...tol,
  },
  {
    name: 'batchNorm on a 2-D input [N, C]',
    inputs: { x: r(6, 3), rm: r(3), rv: torch.rand([3]).add(0.5) },
    torch: `(lambda m, v: (${PF}.batch_norm(x, m, v, None, None, True), m, v))(rm.clone(), rv.clone())`,
    run: ({ x, rm, rv }) => {
      const m = rm.clone(), v = rv.clone();
      return [F.batchNorm(x, m, v, null, null, { training: true }), m, v];
    },
    ...tol,
  },
  {
    name: 'conv2d in float64',
    inputs: { x: torch.randn([2, 3, 5, 5], { dtype: 'float64' }), w: torch.randn([2, 3, 3, 3], { dtype: 'float64' }) },
    torch: `${PF}.conv2d(x, w, stride=2, padding=1)`,
    run: ({ x, w }) => F.conv2d(x, w, null, { stride: 2, padding: 1 }),
  },
  // Bad input: both sides refuse, and the runtime's message names the problem and the shapes.
  { name: 'conv2d: input channels that do not match the weight', inputs: { x: r(2, 3, 5, 5), w: r(4, 2, 3, 3) }, torch: `${PF}.conv2d(x, w)`,
    run: ({ x, w }) => F.conv2d(x, w), error: /Given groups=1, weight of size \[4, 2, 3, 3\], expected input\[2, 3, 5, 5\] to have 2 channels, but got 3 channels instead/ },
  { name: 'conv2d: a kernel larger than the padded input', inputs: { x: r(1, 1, 3, 3), w: r(1, 1, 5, 5) }, torch: `${PF}.conv2d(x, w, padding=0)`,
    run: ({ x, w }) => F.conv2d(x, w), error: /Calculated padded input size per channel: \(3 x 3\)\. Kernel size: \(5 x 5\)\. Kernel size can't be greater than actual input size.*\[1, 1, 3, 3\].*\[1, 1, 5, 5\]/ },
  { name: 'conv2d: groups that do not divide the output channels', inputs: { x: r(1, 4, 5, 5), w: r(3, 2, 3, 3) }, torch: `${PF}.conv2d(x, w, groups=2)`,
    run: ({ x, w }) => F.conv2d(x, w, null, { groups: 2 }), error: /Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size \[3, 2, 3, 3\]/ },
  { name: 'conv2d: groups that do not divide the input channels', inputs: { x: r(1, 5, 5, 5), w: r(4, 2, 3, 3) }, torch: `${PF}.conv2d(x, w, groups=2)`,
    run: ({ x, w }) => F.conv2d(x, w, null, { groups: 2 }), error: /expected input\[1, 5, 5, 5\] to have 4 channels, but got 5 channels/ },
  { name: 'conv2d: a 2-D input (rank named)', inputs: { x: r(5, 5), w: r(1, 1, 3, 3) }, torch: `${PF}.conv2d(x, w)`,
    run: ({ x, w }) => F.conv2d(x, w), error: /Expected 3D \(unbatched\) or 4D \(batched\) input to conv2d, but got input of size: \[5, 5\] \(2-D\)/ },
  { name: 'conv2d: a 5-D input (rank named)', inputs: { x: r(1, 1, 1, 5, 5), w: r(1, 1, 3, 3) }, torch: `${PF}.conv2d(x, w)`,
    run: ({ x, w }) => F.conv2d(x, w), error: /input of size: \[1, 1, 1, 5, 5\] \(5-D\)/ },
  { name: "conv2d: padding 'same' with a stride", inputs: { x: r(1, 1, 5, 5), w: r(1, 1, 3, 3) }, torch: `${PF}.conv2d(x, w, stride=2, padding='same')`,
    run: ({ x, w }) => F.conv2d(x, w, null, { stride: 2, padding: 'same' }), error: /padding='same' is not supported for strided convolutions/ },
  { name: 'conv2d: a bias of the wrong size', inputs: { x: r(1, 2, 5, 5), w: r(3, 2, 3, 3), b: r(4) }, torch: `${PF}.conv2d(x, w, b)`,
    run: ({ x, w, b }) => F.conv2d(x, w, b), error: /expected bias to be 1-dimensional with 3 elements, but got bias of size \[4\]/ },
  { name: 'convTranspose2d: input channels that do not match the weight', inputs: { x: r(1, 3, 4, 4), w: r(2, 2, 3, 3) }, torch: `${PF}.conv_transpose2d(x, w)`,
    run: ({ x, w }) => F.convTranspose2d(x, w), error: /weight of size \[2, 2, 3, 3\], expected input\[1, 3, 4, 4\] to have 2 channels, but got 3 channels/ },
  { name: 'maxPool2d: padding over half the kernel', inputs: { x: r(1, 1, 5, 5) }, torch: `${PF}.max_pool2d(x, 2, padding=2)`,
    run: ({ x }) => F.maxPool2d(x, 2, { padding: 2 }), error: /pad should be at most half of effective kernel size, but got pad=2, kernel_size=2/ },
  { name: 'maxPool2d: a kernel larger than the input', inputs: { x: r(1, 1, 2, 2) }, torch: `${PF}.max_pool2d(x, 3)`,
    run: ({ x }) => F.maxPool2d(x, 3), error: /Given input size: \(1x2x2\)\. Calculated output size: \(1x0x0\)\. Output size is too small/ },
  { name: 'batchNorm: one value per channel in training', inputs: { x: r(1, 3), rm: r(3), rv: r(3) }, torch: `${PF}.batch_norm(x, rm, rv, training=True)`,
    run: ({ x, rm, rv }) => F.batchNorm(x, rm, rv, null, null, { training: true }), error: /Expected more than 1 value per channel when training, got input size \[1, 3\]/ },
  { name: 'batchNorm: running statistics of the wrong size', inputs: { x: r(2, 3, 2, 2), rm: r(4), rv: r(4) }, torch: `${PF}.batch_norm(x, rm, rv)`,
    run: ({ x, rm, rv }) => F.batchNorm(x, rm, rv), error: /runningMean should contain 3 elements not 4/ },
  { name: 'interpolate: both size and scaleFactor', inputs: { x: r(1, 1, 2, 2) }, torch: `${PF}.interpolate(x, size=4, scale_factor=2)`,
    run: ({ x }) => F.interpolate(x, { size: 4, scaleFactor: 2 }), error: /only one of size or scale_factor should be defined/ },
  { name: 'interpolate: alignCorners with nearest', inputs: { x: r(1, 1, 2, 2) }, torch: `${PF}.interpolate(x, size=4, align_corners=True)`,
    run: ({ x }) => F.interpolate(x, { size: 4, alignCorners: true }), error: /align_corners option can only be set with the interpolating modes/ },
];
compareWithTorch(cases);
