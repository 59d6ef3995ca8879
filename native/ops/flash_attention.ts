/**
 * Flash attention: the native `flashAttention` op (softmax(scale · q kᵀ) v
 * without the L × S weights in memory, and the float32 log-sum-exp of each
 * row) and its backward `flashAttentionBackward`, which recomputes the
 * weights tile by tile from q, k and the log-sum-exp. On CUDA they are the
 * kernels of native/src/ops/cuda/flash_attention.cu (tensor cores for float16
 * and bfloat16); on the CPU a row-by-row reference of the same results.
 *
 * scaledDotProductAttention (linalg.ts) runs them on CUDA when
 * `useFlashAttention` allows, as PyTorch's SDPA picks its flash kernel; the
 * switch is PyTorch's torch.backends.cuda.enable_flash_sdp.
 */
import { DType } from '../dtype';
import { Tensor } from '../tensor';
import { argError, checkTensor, emptyTensor, runOp, sameDevice } from './helpers';
import { expandTo } from './views';

/** Dtypes the flash kernels take. */
const FLASH_DTYPES: readonly DType[] = ['float16', 'bfloat16', 'float32', 'float64'];
/** The largest head dim of the kernels. */
export const FLASH_MAX_HEAD_DIM = 128;

/**
 * On by default, as PyTorch's: the kernels' tests (test/native/attention_cuda.test.ts,
 * autograd/cuda_grad.test.ts, against the CPU path) pass on an H200, and a GPT-2
 * small bf16 training step with it follows PyTorch's losses. Turn it off with
 * torch.backends.cuda.enableFlashSdp(false), or TSGPU_FLASH_SDP=0 in the
 * kernel's environment.
 */
let flashEnabled = process.env.TSGPU_FLASH_SDP !== '0';

/** Allows or forbids the flash kernel in scaledDotProductAttention on CUDA (torch.backends.cuda.enable_flash_sdp; default off, see above). */
export function enableFlashSdp(enabled: boolean): void {
  if (typeof enabled !== 'boolean') argError('enableFlashSdp', 'a boolean', 'enabled', enabled);
  flashEnabled = enabled;
}

/** Whether scaledDotProductAttention may use the flash kernel (torch.backends.cuda.flash_sdp_enabled). */
export function flashSdpEnabled(): boolean {
  return flashEnabled;
}

/** What scaledDotProductAttention knows of a call when it chooses a kernel. */
export interface FlashCall {
  /** An attention mask was given (the flash kernel takes none; isCausal is fine). */
  hasMask: boolean;
  /** Dropout probability on the weights (the flash kernel takes only 0). */
  dropoutP: number;
}

/**
 * Whether scaledDotProductAttention runs the flash kernel for q [..., L, E], k [..., S, E], v [..., S, Ev]:
 * on CUDA, flash enabled, no mask, no dropout, Ev = E ≤ 128, non-empty sequences, float16/bfloat16 (the
 * tensor-core kernels, as PyTorch's flash path). float32 keeps the weights path: its flash kernel is exact but
 * slower (a GPT-2 small float32 step 0.35× PyTorch's with it, 0.55× without, on an H200); the `flashAttention`
 * op still takes float32 and float64. The CPU keeps the `attention` op (PyTorch's math path), whatever the inputs.
 */
export function useFlashAttention(q: Tensor, k: Tensor, v: Tensor, call: FlashCall): boolean {
  if (!flashEnabled || q.device === 'cpu' || call.hasMask || call.dropoutP !== 0) return false;
  if (q.dtype !== 'float16' && q.dtype !== 'bfloat16') return false;
  const E = q.shape[q.ndim - 1];
  if (E === 0 || E > FLASH_MAX_HEAD_DIM || v.shape[v.ndim - 1] !== E) return false;
  const L = q.shape[q.ndim - 2], S = k.shape[k.ndim - 2];
  if (L === 0 || S === 0) return false;
  const batch = q.shape.slice(0, -2).reduce((a, b) => a * b, 1);
  return batch <= 65535 && q.ndim - 2 <= 6;
}

/** Options of flashAttention and flashAttentionBackward. */
export interface FlashOptions {
  /** Multiplier of the scores (default 1/sqrt(E)). */
  scale?: number;
  /** Hide key j from query i when j > i (PyTorch's isCausal; default false). */
  isCausal?: boolean;
}

/** t with its batch dims expanded to `batch` and a contiguous last dim (the kernels' layout). */
function kernelLayout(t: Tensor, batch: readonly number[]): { t: Tensor; temp: boolean } {
  const n = t.ndim;
  const shape = [...batch, t.shape[n - 2], t.shape[n - 1]];
  let x = expandTo(t, shape);
  const expanded = x !== t;
  if (x.shape[n - 1] > 1 && x.stride()[x.ndim - 1] !== 1) {
    const c = x.contiguous();
    if (expanded) x.dispose();
    return { t: c, temp: true };
  }
  return { t: x, temp: expanded };
}

function checkOperands(op: string, q: Tensor, k: Tensor, v: Tensor): string {
  [q, k, v].forEach((t, i) => {
    checkTensor(op, ['query', 'key', 'value'][i], t);
    if (t.ndim < 2) argError(op, 'a tensor of at least 2 dimensions', ['query', 'key', 'value'][i], t.shape.slice());
  });
  const device = sameDevice(op, [q, k, v]);
  if (!FLASH_DTYPES.includes(q.dtype)) argError(op, 'a floating tensor', 'query', q.dtype);
  return device;
}

/** Batch shape of the three operands (broadcast), checked against what the kernels take. */
function batchOf(op: string, q: Tensor, k: Tensor, v: Tensor): number[] {
  const shapes = [q, k, v].map((t) => t.shape.slice(0, -2));
  const n = Math.max(...shapes.map((s) => s.length));
  const batch: number[] = [];
  for (let d = 0; d < n; ++d) {
    let size = 1;
    for (const s of shapes) {
      const x = s[d - (n - s.length)] ?? 1;
      if (x !== 1 && size !== 1 && x !== size) argError(op, 'broadcastable batch shapes', 'key', k.shape.slice());
      if (x !== 1) size = x;
    }
    batch.push(size);
  }
  return batch;
}

/**
 * Flash attention of q [..., L, E] over k, v [..., S, E] (batch dims broadcast): returns
 * [out [..., L, E] of q's dtype, logsumexp [..., L] float32], where logsumexp_i = log Σ_j exp(scale q_i·k_j)
 * over the keys query i sees. Defaults: scale 1/sqrt(E), isCausal false. Differentiable in q, k and v.
 */
export function flashAttention(q: Tensor, k: Tensor, v: Tensor, opts: FlashOptions = {}): [Tensor, Tensor] {
  const op = 'flashAttention';
  const device = checkOperands(op, q, k, v);
  const E = q.shape[q.ndim - 1];
  const scale = opts.scale ?? 1 / Math.sqrt(E);
  if (typeof scale !== 'number' || !Number.isFinite(scale)) argError(op, 'a finite number', 'scale', scale);
  const batch = batchOf(op, q, k, v);
  const L = q.shape[q.ndim - 2];
  const ops = [q, k, v].map((t) => kernelLayout(t, batch));
  const out = emptyTensor([...batch, L, E], q.dtype, device);
  const lse = emptyTensor([...batch, L], 'float32', device);
  try {
    runOp('flashAttention', [out, lse], [ops[0].t, ops[1].t, ops[2].t], { scale, causal: opts.isCausal ?? false });
  } catch (e) {
    out.dispose();
    lse.dispose();
    throw e;
  } finally {
    for (const o of ops) if (o.temp) o.t.dispose();
  }
  return [out, lse];
}

/**
 * The gradients [dq, dk, dv] of flashAttention's out for gradOut, from the inputs, out and logsumexp that it
 * returned (P recomputed from them; nothing L × S is allocated). dk and dv have the broadcast batch shape;
 * the options must be those of the forward call.
 */
export function flashAttentionBackward(
  gradOut: Tensor,
  q: Tensor,
  k: Tensor,
  v: Tensor,
  out: Tensor,
  logsumexp: Tensor,
  opts: FlashOptions = {},
): [Tensor, Tensor, Tensor] {
  const op = 'flashAttentionBackward';
  const device = checkOperands(op, q, k, v);
  checkTensor(op, 'gradOut', gradOut);
  const E = q.shape[q.ndim - 1];
  const scale = opts.scale ?? 1 / Math.sqrt(E);
  const batch = batchOf(op, q, k, v);
  const L = q.shape[q.ndim - 2], S = k.shape[k.ndim - 2];
  const ops = [q, k, v].map((t) => kernelLayout(t, batch));
  const dense = [gradOut, out, logsumexp].map((t) => (t.isContiguous() ? null : t.contiguous()));
  const dq = emptyTensor([...batch, L, E], q.dtype, device);
  const dk = emptyTensor([...batch, S, E], q.dtype, device);
  const dv = emptyTensor([...batch, S, E], q.dtype, device);
  const work = emptyTensor([Math.max(1, batch.reduce((a, b) => a * b, 1) * L * (E + 1))], 'float32', device);
  try {
    runOp(
      'flashAttentionBackward',
      [dq, dk, dv, work],
      [dense[0] ?? gradOut, ops[0].t, ops[1].t, ops[2].t, dense[1] ?? out, dense[2] ?? logsumexp],
      { scale, causal: opts.isCausal ?? false },
    );
  } catch (e) {
    dq.dispose();
    dk.dispose();
    dv.dispose();
    throw e;
  } finally {
    work.dispose();
    for (const o of ops) if (o.temp) o.t.dispose();
    for (const t of dense) t?.dispose();
  }
  return [dq, dk, dv];
}
