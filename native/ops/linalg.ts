/**
 * Linear algebra: matmul (batched, broadcast), mm, bmm, addmm, linear, outer,
 * and scaledDotProductAttention, on the native `gemm` and `attention` ops
 * (BLAS or our blocked kernel on CPU; cuBLAS or our tiled kernel on CUDA) —
 * on CUDA without mask or dropout, attention runs the flash kernel
 * (flash_attention.ts);
 * plus the CPU thread count and torch.backends.cuda.matmul.allowTf32.
 */
import { native } from '../addon';
import { DType } from '../dtype';
import { shapeError, codedError } from '../errors';
import { formatShape, Tensor } from '../tensor';
import { argError, broadcastShapesFor, checkTensor, emptyTensor, runOp, sameDevice } from './helpers';
import { dropout } from './dropout';
import { unsupportedError } from './supports';
import { cudnn } from './cudnn';
import { enableFlashSdp, flashAttention, flashSdpEnabled, useFlashAttention } from './flash_attention';
import { expandTo, reshape, transpose, unsqueeze } from './views';

const GEMM_DTYPES: readonly DType[] = ['float32', 'float64', 'float16', 'bfloat16'];
/** The dtypes whose matrix products cpu composes without the gemm kernel (integerGemmInto). */
const INTEGER_PRODUCT_DTYPES: readonly DType[] = ['int8', 'uint8', 'int16', 'int32', 'int64'];

/** PyTorch's switches of the CUDA matmul, attention and cuDNN (torch.backends). */
export const backends = {
  /** torch.backends.cudnn: enabled, benchmark, deterministic, allowTf32, isAvailable(), version() (cudnn.ts). */
  cudnn,
  cuda: {
    matmul: {
      /** Let float32 matmuls on CUDA use TF32 tensor cores (PyTorch's default since 1.12: false). */
      allowTf32: false,
    },
    /** Allows or forbids the flash kernel of scaledDotProductAttention on CUDA (PyTorch's enable_flash_sdp; default on). */
    enableFlashSdp,
    /** Whether scaledDotProductAttention may use the flash kernel (PyTorch's flash_sdp_enabled). */
    flashSdpEnabled,
  },
};

/** PyTorch's float32 matmul precision: 'highest' (no TF32) or 'high'/'medium' (TF32 allowed on CUDA). */
export function setFloat32MatmulPrecision(precision: 'highest' | 'high' | 'medium'): void {
  if (precision !== 'highest' && precision !== 'high' && precision !== 'medium') {
    argError('setFloat32MatmulPrecision', "'highest', 'high' or 'medium'", 'precision', precision);
  }
  backends.cuda.matmul.allowTf32 = precision !== 'highest';
}

/** 'highest' unless TF32 is allowed for float32 matmuls ('high'). */
export function getFloat32MatmulPrecision(): 'highest' | 'high' {
  return backends.cuda.matmul.allowTf32 ? 'high' : 'highest';
}

/** Sets the number of threads CPU ops use (the caller's thread included), as torch.set_num_threads. */
export function setNumThreads(n: number): void {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) argError('setNumThreads', 'a positive integer', 'n', n);
  native.setNumThreads(n);
}

/** The number of threads CPU ops use, as torch.get_num_threads. */
export function getNumThreads(): number {
  return native.getNumThreads();
}

/** What the CPU and CUDA matmuls run on: e.g. { cpu: 'OpenBLAS 0.3.21 … (/usr/lib/…)', cuda: 'cuBLAS 13.0.0 (…)' }. */
export function matmulBackends(): { cpu: string; cuda: string; isa: string } {
  return native.linalgInfo();
}

let cudaNoticeShown = false;

/** Once per process, where CUDA matmuls fall back to the built-in kernel: a warning saying why. */
function cudaNotice(device: string): void {
  if (cudaNoticeShown || device === 'cpu') return;
  cudaNoticeShown = true;
  const engine = native.linalgInfo().cuda as string;
  if (engine.startsWith('built-in kernel')) {
    // eslint-disable-next-line no-console
    console.warn(`tsgpu: CUDA matmul uses the ${engine} (slower than cuBLAS)`);
  }
}

/** Refuses a `t` (argument `name`) of a dtype that the kernel `kernel` runs has no kernel for, in supports.ts's words. */
function checkFloat(op: string, name: string, t: Tensor, kernel: 'gemm' | 'attention' = 'gemm'): void {
  if (!GEMM_DTYPES.includes(t.dtype)) {
    throw unsupportedError(op, kernel, t.device, t.dtype, { reason: `dtype ${t.dtype} of ${name} is not supported` });
  }
}

/** PyTorch's name of an integer dtype in its "not implemented for" messages. */
const TORCH_SCALAR_NAME: Partial<Record<DType, string>> = { int64: 'Long', int32: 'Int', int16: 'Short', int8: 'Char', uint8: 'Byte', bool: 'Bool' };

/**
 * Whether a matrix product of `dtype` takes the integer path: integer dtypes
 * on cpu, as PyTorch's (its cuda matmul refuses them, and so does this one,
 * with PyTorch's reason). bool is refused on both, as PyTorch's.
 */
function integerProduct(op: string, dtype: DType, device: string): boolean {
  if (GEMM_DTYPES.includes(dtype)) return false;
  const name = TORCH_SCALAR_NAME[dtype] ?? dtype;
  const composed = { cpu: INTEGER_PRODUCT_DTYPES };
  if (dtype === 'bool') {
    throw unsupportedError(op, 'gemm', device, dtype, { reason: `"addmm" not implemented for '${name}'`, composed, hint: 'matrix products of bool tensors are not supported, as in PyTorch' });
  }
  if (device !== 'cpu') {
    throw unsupportedError(op, 'gemm', device, dtype, {
      reason: `"addmm_cuda" not implemented for '${name}'`, composed,
      hint: 'integer matrix products run on cpu only (as in PyTorch); cast to a floating dtype, or compute on cpu',
    });
  }
  return true;
}

/**
 * out [..., m, n] = a [..., m, k] · b [..., k, n] for integer dtypes on cpu
 * (no BLAS for integers): products of slices of k summed in int64, so that
 * the result wraps as PyTorch's does in the dtype. Memory stays near
 * 4M elements per step.
 */
function integerGemmInto(out: Tensor, a: Tensor, b: Tensor): void {
  const k = a.shape[a.ndim - 1];
  const outer = out.numel;
  const step = Math.max(1, Math.min(k, Math.floor((1 << 22) / Math.max(1, outer))));
  let acc: Tensor | null = null;
  try {
    for (let k0 = 0; k0 < k; k0 += step) {
      const c = Math.min(step, k - k0);
      const parts = [a.narrow(-1, k0, c), b.narrow(-2, k0, c)];
      const ac = parts[0].unsqueeze(-1);
      const bc = parts[1].unsqueeze(-3);
      const prod = ac.mul(bc);
      const sum = prod.sum(-2);
      for (const t of [...parts, ac, bc, prod]) t.dispose();
      if (acc === null) acc = sum;
      else {
        acc.add_(sum);
        sum.dispose();
      }
    }
    if (acc === null) out.zero_();
    else out.copy_(acc);
  } catch (e) {
    out.dispose();
    throw e;
  } finally {
    acc?.dispose();
  }
}

function checkSameDtype(op: string, tensors: readonly Tensor[]): DType {
  const d = tensors[0].dtype;
  for (const t of tensors) {
    if (t.dtype !== d) throw codedError('TSGPU_ARG', `${op}: expected all operands of one dtype, got ${d} and ${t.dtype}`);
  }
  return d;
}

/**
 * Whether BLAS can address the matrix in the last two dims of t as it is:
 * one of its two strides is 1 and the other covers the extent.
 */
function blasAddressable(t: Tensor): boolean {
  const nd = t.ndim;
  const rows = Math.max(t.shape[nd - 2], 1), cols = Math.max(t.shape[nd - 1], 1);
  const rs = t.rawStrides[nd - 2], cs = t.rawStrides[nd - 1];
  if ((cs === 1 || cols === 1) && (rows === 1 || rs >= cols)) return true;
  if ((rs === 1 || rows === 1) && (cols === 1 || cs >= rows)) return true;
  return false;
}

/** Runs `body`; an error of the native op (gemm, attention) is renamed for the user's op (matmul: interrupted). */
function asOp<T>(op: string, native: string, body: () => T): T {
  try {
    return body();
  } catch (e) {
    const err = e as Error;
    if (typeof err.message === 'string' && err.message.startsWith(`${native}: `)) err.message = `${op}: ${err.message.slice(native.length + 2)}`;
    throw err;
  }
}

/**
 * `ready(t)` gives an operand the BLAS calls can address: `t` itself, or a contiguous copy kept in `temps`
 * for the caller to dispose once the op has run.
 */
function blasOperands(): { ready: (t: Tensor) => Tensor; temps: Tensor[] } {
  const temps: Tensor[] = [];
  const ready = (t: Tensor) => {
    if (blasAddressable(t)) return t;
    const c = t.contiguous();
    temps.push(c);
    return c;
  };
  return { ready, temps };
}

/**
 * Runs gemm for `op`: out [..., m, n] = alpha · a [..., m, k] · b [..., k, n] (+ beta · out).
 * `out` is the caller's fresh result: disposed here when the op fails (an interrupt, say).
 */
function gemmInto(op: string, out: Tensor, a: Tensor, b: Tensor, alpha: number, beta: number): void {
  const { ready, temps } = blasOperands();
  try {
    cudaNotice(out.device);
    asOp(op, 'gemm', () => runOp('gemm', [out], [ready(a), ready(b)], { alpha, beta, allowTf32: backends.cuda.matmul.allowTf32 }));
  } catch (e) {
    out.dispose();
    throw e;
  } finally {
    for (const t of temps) t.dispose();
  }
}

function cannotMultiply(op: string, a: Tensor, b: Tensor, k1: number, k2: number): never {
  throw shapeError(`${op}: shapes ${formatShape(a.shape)} and ${formatShape(b.shape)} cannot be multiplied (${k1} != ${k2})`);
}

/** Matrix product with PyTorch's matmul rules: 1-D operands gain and lose a dim; batch dims broadcast. */
export function matmul(a: Tensor, b: Tensor): Tensor {
  checkTensor('matmul', 'self', a);
  checkTensor('matmul', 'other', b);
  const device = sameDevice('matmul', [a, b]);
  const dtype = checkSameDtype('matmul', [a, b]);
  const integer = integerProduct('matmul', dtype, device);
  if (a.ndim === 0 || b.ndim === 0) {
    throw codedError('TSGPU_ARG', `matmul: both arguments need at least 1 dimension, got ${a.ndim}D and ${b.ndim}D tensors`);
  }
  const a2 = a.ndim === 1 ? unsqueeze(a, 0) : a;
  const b2 = b.ndim === 1 ? unsqueeze(b, -1) : b;
  const m = a2.shape[a2.ndim - 2], k = a2.shape[a2.ndim - 1];
  const k2 = b2.shape[b2.ndim - 2], n = b2.shape[b2.ndim - 1];
  if (k !== k2) cannotMultiply('matmul', a, b, k, k2);
  const batch = broadcastShapesFor('matmul', [a2.shape.slice(0, -2), b2.shape.slice(0, -2)]);
  const out = emptyTensor([...batch, m, n], dtype, device);
  if (integer) integerGemmInto(out, a2, b2);
  else gemmInto('matmul', out, a2, b2, 1, 0);
  if (a.ndim > 1 && b.ndim > 1) return out;
  const shape = [...batch, ...(a.ndim > 1 ? [m] : []), ...(b.ndim > 1 ? [n] : [])];
  const r = reshape(out, shape);
  if (r !== out) out.dispose();
  return r;
}

function check2d(op: string, names: readonly string[], ts: readonly Tensor[], nd: number): void {
  ts.forEach((t, i) => {
    checkTensor(op, names[i], t);
    if (t.ndim !== nd) argError(op, `a ${nd}-D tensor`, names[i], t.shape.slice());
  });
}

/** self [n, m] @ mat2 [m, p] → [n, p]. */
export function mm(self: Tensor, mat2: Tensor): Tensor {
  check2d('mm', ['self', 'mat2'], [self, mat2], 2);
  if (self.shape[1] !== mat2.shape[0]) cannotMultiply('mm', self, mat2, self.shape[1], mat2.shape[0]);
  return matmulChecked('mm', self, mat2);
}

/** self [b, n, m] @ mat2 [b, m, p] → [b, n, p] (no broadcasting, as PyTorch's bmm). */
export function bmm(self: Tensor, mat2: Tensor): Tensor {
  check2d('bmm', ['self', 'mat2'], [self, mat2], 3);
  if (self.shape[0] !== mat2.shape[0]) {
    throw shapeError(`bmm: expected one batch size, got ${formatShape(self.shape)} and ${formatShape(mat2.shape)}`);
  }
  if (self.shape[2] !== mat2.shape[1]) cannotMultiply('bmm', self, mat2, self.shape[2], mat2.shape[1]);
  return matmulChecked('bmm', self, mat2);
}

function matmulChecked(op: string, a: Tensor, b: Tensor): Tensor {
  const device = sameDevice(op, [a, b]);
  const dtype = checkSameDtype(op, [a, b]);
  const integer = integerProduct(op, dtype, device);
  const shape = [...a.shape.slice(0, -1), b.shape[b.ndim - 1]];
  const out = emptyTensor(shape, dtype, device);
  if (integer) integerGemmInto(out, a, b);
  else gemmInto(op, out, a, b, 1, 0);
  return out;
}

/** Options of addmm. */
export interface AddmmOptions {
  /** Multiplier of input (default 1). */
  beta?: number;
  /** Multiplier of mat1 @ mat2 (default 1). */
  alpha?: number;
}

/** Fresh [rows, cols] tensor holding `bias` broadcast, the C of a gemm with beta. */
function broadcastInto(op: string, bias: Tensor, shape: number[], dtype: DType, device: string): Tensor {
  const b = broadcastShapesFor(op, [bias.shape, shape]);
  if (b.length !== shape.length || b.some((s, i) => s !== shape[i])) {
    throw shapeError(`${op}: ${op === 'linear' ? 'bias' : 'input'} of shape ${formatShape(bias.shape)} cannot be broadcast to ${formatShape(shape)}`);
  }
  const out = emptyTensor(shape, dtype, device);
  // The expanded view is disposed here: left to the garbage collector, it would keep the bias's storage alive
  // after the bias itself was disposed.
  const expanded = expandTo(bias, shape);
  try {
    runOp('copy', [out], [expanded]);
  } finally {
    if (expanded !== bias) expanded.dispose();
  }
  return out;
}

/** beta · input + alpha · (mat1 @ mat2), input broadcast to [n, p]. */
export function addmm(input: Tensor, mat1: Tensor, mat2: Tensor, opts: AddmmOptions = {}): Tensor {
  checkTensor('addmm', 'input', input);
  check2d('addmm', ['mat1', 'mat2'], [mat1, mat2], 2);
  const device = sameDevice('addmm', [input, mat1, mat2]);
  checkFloat('addmm', 'mat1', mat1);
  const dtype = checkSameDtype('addmm', [input, mat1, mat2]);
  if (mat1.shape[1] !== mat2.shape[0]) cannotMultiply('addmm', mat1, mat2, mat1.shape[1], mat2.shape[0]);
  const beta = opts.beta ?? 1, alpha = opts.alpha ?? 1;
  const shape = [mat1.shape[0], mat2.shape[1]];
  if (beta === 0) {
    const out = emptyTensor(shape, dtype, device);
    gemmInto('addmm', out, mat1, mat2, alpha, 0);
    return out;
  }
  const out = broadcastInto('addmm', input, shape, dtype, device);
  gemmInto('addmm', out, mat1, mat2, alpha, beta);
  return out;
}

/** x [..., in] @ weight [out, in]^T + bias [out] → [..., out], as torch.nn.functional.linear. */
export function linear(x: Tensor, weight: Tensor, bias?: Tensor | null): Tensor {
  checkTensor('linear', 'input', x);
  checkTensor('linear', 'weight', weight);
  if (weight.ndim !== 2) argError('linear', 'a 2-D tensor', 'weight', weight.shape.slice());
  if (x.ndim < 1) argError('linear', 'a tensor of at least 1 dimension', 'input', x.shape.slice());
  const operands = bias ? [x, weight, checkTensor('linear', 'bias', bias)] : [x, weight];
  const device = sameDevice('linear', operands);
  checkFloat('linear', 'input', x);
  const dtype = checkSameDtype('linear', operands);
  const inF = x.shape[x.ndim - 1], outF = weight.shape[0];
  if (weight.shape[1] !== inF) cannotMultiply('linear', x, weight, inF, weight.shape[1]);
  const lead = x.shape.slice(0, -1);
  const rows = lead.reduce((p, s) => p * s, 1);
  const x2 = reshape(x, [rows, inF]);
  const wt = transpose(weight, 0, 1);
  try {
    const out = bias ? broadcastInto('linear', bias, [rows, outF], dtype, device) : emptyTensor([rows, outF], dtype, device);
    gemmInto('linear', out, x2, wt, 1, bias ? 1 : 0);
    const r = reshape(out, [...lead, outF]);
    if (r !== out) out.dispose();
    return r;
  } finally {
    if (x2 !== x) x2.dispose();
    wt.dispose();
  }
}

/** Outer product of 1-D tensors: [n] ⊗ [m] → [n, m]. */
export function outer(self: Tensor, vec2: Tensor): Tensor {
  check2d('outer', ['self', 'vec2'], [self, vec2], 1);
  const device = sameDevice('outer', [self, vec2]);
  if (!GEMM_DTYPES.includes(self.dtype) || !GEMM_DTYPES.includes(vec2.dtype)) {
    // Integers and bool: the exact elementwise product self[i] * vec2[j], with promotion.
    const col = unsqueeze(self, 1);
    try {
      return col.mul(vec2);
    } finally {
      col.dispose();
    }
  }
  checkFloat('outer', 'self', self);
  const dtype = checkSameDtype('outer', [self, vec2]);
  const out = emptyTensor([self.shape[0], vec2.shape[0]], dtype, device);
  const a = unsqueeze(self, 1), b = unsqueeze(vec2, 0);
  try {
    gemmInto('outer', out, a, b, 1, 0);
  } finally {
    a.dispose();
    b.dispose();
  }
  return out;
}

/** Options of scaledDotProductAttention (PyTorch's names, camelCase). */
export interface AttentionOptions {
  /** Bool (true: attend) or float (added to the scores) mask, broadcast to [..., L, S]. */
  attnMask?: Tensor | null;
  /**
   * Dropout probability on the attention weights (default 0): after the
   * softmax each weight is zeroed with probability dropoutP and the others are
   * scaled by 1/(1-dropoutP), with dropout()'s mask (the runtime's generator:
   * the same under torch.manualSeed on cpu and cuda). PyTorch applies it
   * whenever it is given, so pass 0 outside training.
   */
  dropoutP?: number;
  /** Mask out keys after each query (j > i), as a lower-triangular mask. */
  isCausal?: boolean;
  /** Multiplier of the scores (default 1/sqrt(E)). */
  scale?: number;
}

/** softmax(q kᵀ · scale + mask) v for q [..., L, E], k [..., S, E], v [..., S, Ev] → [..., L, Ev]. */
export function scaledDotProductAttention(q: Tensor, k: Tensor, v: Tensor, opts: AttentionOptions = {}): Tensor {
  const op = 'scaledDotProductAttention';
  [q, k, v].forEach((t, i) => {
    checkTensor(op, ['query', 'key', 'value'][i], t);
    if (t.ndim < 2) argError(op, 'a tensor of at least 2 dimensions', ['query', 'key', 'value'][i], t.shape.slice());
  });
  const mask = opts.attnMask ?? null;
  const device = sameDevice(op, mask ? [q, k, v, mask] : [q, k, v]);
  checkFloat(op, 'query', q, 'attention');
  const dtype = checkSameDtype(op, [q, k, v]);
  const dropoutP = opts.dropoutP ?? 0;
  if (typeof dropoutP !== 'number' || !(dropoutP >= 0 && dropoutP <= 1)) argError(op, 'a probability in [0, 1]', 'dropoutP', dropoutP);
  if (mask && opts.isCausal) throw codedError('TSGPU_ARG', `${op}: expected either attnMask or isCausal, got both`);
  if (mask && mask.dtype !== 'bool' && mask.dtype !== dtype) {
    argError(op, `a bool mask or one of dtype ${dtype}`, 'attnMask', mask.dtype);
  }
  const L = q.shape[q.ndim - 2], E = q.shape[q.ndim - 1];
  const S = k.shape[k.ndim - 2], Ev = v.shape[v.ndim - 1];
  if (k.shape[k.ndim - 1] !== E) cannotMultiply(op, q, k, E, k.shape[k.ndim - 1]);
  if (v.shape[v.ndim - 2] !== S) {
    throw shapeError(`${op}: key ${formatShape(k.shape)} and value ${formatShape(v.shape)} need one sequence length`);
  }
  const batch = broadcastShapesFor(op, [q.shape.slice(0, -2), k.shape.slice(0, -2), v.shape.slice(0, -2)]);
  if (mask) broadcastShapesFor(op, [mask.shape, [...batch, L, S]]);
  const scale = opts.scale ?? 1 / Math.sqrt(E);
  if (useFlashAttention(q, k, v, { hasMask: mask !== null, dropoutP })) {
    // The flash kernel (CUDA): no L × S weights, in the forward or saved for backward.
    const [out, lse] = asOp(op, 'flashAttention', () => flashAttention(q, k, v, { scale, isCausal: opts.isCausal ?? false }));
    lse.dispose();
    return out;
  }
  const out = emptyTensor([...batch, L, Ev], dtype, device);
  const weights = emptyTensor([...batch, L, S], dtype, device);
  const { ready, temps } = blasOperands();
  try {
    cudaNotice(device);
    asOp(op, 'attention', () =>
      runOp('attention', [out, weights], [ready(q), ready(k), ready(v), mask], {
        scale,
        causal: opts.isCausal ?? false,
        allowTf32: backends.cuda.matmul.allowTf32,
      }),
    );
  } catch (e) {
    out.dispose();
    weights.dispose();
    throw e;
  } finally {
    for (const t of temps) t.dispose();
  }
  if (dropoutP === 0) {
    weights.dispose();
    return out;
  }
  // The kernel gives the weights; dropped ones are re-multiplied with the values.
  out.dispose();
  const dropped = dropout(weights, dropoutP);
  weights.dispose();
  try {
    return matmul(dropped, v);
  } finally {
    dropped.dispose();
  }
}

declare module '../tensor' {
  interface Tensor {
    /** this @ other, with torch.matmul's rules. */
    matmul(other: Tensor): Tensor;
    /** this [n, m] @ mat2 [m, p]. */
    mm(mat2: Tensor): Tensor;
    /** this [b, n, m] @ mat2 [b, m, p]. */
    bmm(mat2: Tensor): Tensor;
    /** Outer product with vec2 (both 1-D). */
    outer(vec2: Tensor): Tensor;
    /** beta · this + alpha · (mat1 @ mat2). */
    addmm(mat1: Tensor, mat2: Tensor, opts?: AddmmOptions): Tensor;
  }
}

const P = Tensor.prototype;
P.matmul = function (this: Tensor, other: Tensor) {
  return matmul(this, other);
};
P.mm = function (this: Tensor, mat2: Tensor) {
  return mm(this, mat2);
};
P.bmm = function (this: Tensor, mat2: Tensor) {
  return bmm(this, mat2);
};
P.outer = function (this: Tensor, vec2: Tensor) {
  return outer(this, vec2);
};
P.addmm = function (this: Tensor, mat1: Tensor, mat2: Tensor, opts?: AddmmOptions) {
  return addmm(this, mat1, mat2, opts);
};
