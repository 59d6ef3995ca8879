/**
 * cuDNN's convolutions on CUDA (kernels in native/src/ops/cuda/cudnn_conv.cu,
 * cuDNN loaded at run time) and PyTorch's switches for them,
 * `torch.backends.cudnn`: `enabled`, `benchmark` (time every algorithm once
 * per shape and keep the fastest), `deterministic` and `allowTf32`. conv2d
 * and convTranspose2d call these on CUDA tensors of a floating dtype while
 * cuDNN is enabled and loaded; elsewhere they take the im2col path, and on
 * CUDA a one-time warning says why.
 */
import { native, CudnnChoice } from '../addon';
import { Tensor } from '../tensor';
import { emptyTensor, runInto, runOp } from './helpers';

/** The convolution parameters the three ops take (already checked by conv2d / convTranspose2d). */
export interface CudnnConvParams {
  stride: [number, number];
  padding: [number, number];
  dilation: [number, number];
  groups: number;
}

const CUDNN_DTYPES = new Set<string>(['float32', 'float64', 'float16', 'bfloat16']);

/** torch.backends.cudnn: PyTorch's switches, with its defaults. */
export const cudnn = {
  /** Use cuDNN for convolutions where it loaded (default true). */
  enabled: true,
  /** Time every algorithm the first time a shape is seen and keep the fastest (default false, as PyTorch). */
  benchmark: false,
  /** Only deterministic algorithms (default false). */
  deterministic: false,
  /** Let float32 convolutions use TF32 tensor cores (PyTorch's default for cuDNN: true). */
  allowTf32: true,
  /** Whether cuDNN loaded (false on a machine without it, or a build without CUDA). */
  isAvailable(): boolean {
    return native.cudnnInfo().available;
  },
  /** cuDNN's version as PyTorch gives it (91400 for 9.14.0), or null when it is not available. */
  version(): number | null {
    const m = /^cuDNN (\d+)\.(\d+)\.(\d+)/.exec(native.cudnnInfo().description);
    return m ? Number(m[1]) * 10000 + Number(m[2]) * 100 + Number(m[3]) : null;
  },
  /** "cuDNN 9.14.0 (/usr/lib/x86_64-linux-gnu/libcudnn.so.9)", or why it did not load and where it looked. */
  description(): string {
    return native.cudnnInfo().description;
  },
  /** The algorithms chosen so far, one per pass and shape (what benchmark mode remembers), oldest first. */
  choices(): CudnnChoice[] {
    return native.cudnnChoices();
  },
  /** Forgets the chosen algorithms: the next call of each shape chooses (and, in benchmark mode, times) again. */
  clearChoices(): void {
    native.cudnnClearChoices();
  },
};

let noticeShown = false;

/**
 * Whether a convolution of `input` (and `weight`) runs on cuDNN. On CUDA,
 * when it cannot (cuDNN missing or turned off), warns once per process with
 * the reason and returns false.
 */
export function useCudnn(input: Tensor): boolean {
  if (!input.device.startsWith('cuda') || !CUDNN_DTYPES.has(input.dtype)) return false;
  if (!cudnn.enabled) return false;
  const info = native.cudnnInfo();
  if (info.available) return true;
  if (!noticeShown) {
    noticeShown = true;
    // eslint-disable-next-line no-console
    console.warn(`tsgpu: CUDA convolutions use im2col and matmul (slower, and their columns take memory): ${info.description}`);
  }
  return false;
}

function attrs(p: CudnnConvParams) {
  return { stride: p.stride, padding: p.padding, dilation: p.dilation, groups: p.groups, benchmark: cudnn.benchmark, deterministic: cudnn.deterministic, allowTf32: cudnn.allowTf32 };
}

/** Dense operands for cuDNN: `t`, or a contiguous copy (pushed to `temps`). */
function dense(t: Tensor, temps: Tensor[]): Tensor {
  if (t.isContiguous()) return t;
  const c = t.contiguous();
  temps.push(c);
  return c;
}

function withDense(ts: Tensor[], body: (ds: Tensor[]) => Tensor): Tensor {
  const temps: Tensor[] = [];
  try {
    return body(ts.map((t) => dense(t, temps)));
  } finally {
    for (const t of temps) t.dispose();
  }
}

/** conv2d of x [N, C, H, W] with weight [O, C/groups, KH, KW] into [N, O, ...outputSize] (no bias). Differentiable. */
export function cudnnConvolution(x: Tensor, weight: Tensor, p: CudnnConvParams, outputSize: [number, number]): Tensor {
  return withDense([x, weight], ([xd, wd]) =>
    runInto(emptyTensor([x.shape[0], weight.shape[0], outputSize[0], outputSize[1]], x.dtype, x.device), (out) =>
      runOp('convolution', [out], [xd, wd], attrs(p))));
}

/** The gradient of conv2d's input of shape `inputShape` from gradOut and the weight (convTranspose2d's forward). Differentiable. */
export function cudnnConvolutionBackwardInput(gradOut: Tensor, weight: Tensor, p: CudnnConvParams, inputShape: readonly number[]): Tensor {
  return withDense([gradOut, weight], ([gd, wd]) =>
    runInto(emptyTensor(inputShape.slice(), gradOut.dtype, gradOut.device), (out) =>
      runOp('convolutionBackwardInput', [out], [gd, wd], attrs(p))));
}

/** The gradient of conv2d's weight of shape `weightShape` from gradOut and the input. */
export function cudnnConvolutionBackwardWeight(gradOut: Tensor, x: Tensor, p: CudnnConvParams, weightShape: readonly number[]): Tensor {
  return withDense([gradOut, x], ([gd, xd]) =>
    runInto(emptyTensor(weightShape.slice(), gradOut.dtype, gradOut.device), (out) =>
      runOp('convolutionBackwardWeight', [out], [gd, xd], attrs(p))));
}

/** The parameters of a recorded call (the autograd node's attributes) as CudnnConvParams. */
export function paramsOf(a: Record<string, unknown>): CudnnConvParams {
  const two = (v: unknown) => [Number((v as number[])[0]), Number((v as number[])[1])] as [number, number];
  return { stride: two(a.stride), padding: two(a.padding), dilation: two(a.dilation), groups: Number(a.groups ?? 1) };
}
