/**
 * The cases of the row and optimizer benchmark (bench/rows_bench.ts, with
 * bench/rows_torch.py building the same ones by name): crossEntropy with
 * class indices, softmax and logSoftmax, forward and forward + backward, at
 * row lengths 1,024 to 262,144 over 64M elements; and one optimizer step
 * over GPT-2 small's parameters (124M) with AdamW and SGD with momentum.
 */

/** One timed case. */
export interface RowCase {
  /** Unique name, e.g. "crossEntropy_fwdbwd_50257_bf16". */
  name: string;
  kind: 'crossEntropy' | 'softmax' | 'logSoftmax' | 'optimizer';
  /** forward only, or forward then backward. */
  pass: 'fwd' | 'fwdbwd' | 'step';
  /** Row length (classes) and number of rows (64M elements in all). */
  len: number;
  rows: number;
  dtype: 'float32' | 'float16' | 'bfloat16';
  /** Optimizer cases: which optimizer and implementation. */
  optimizer?: 'AdamW' | 'SGD';
  impl?: 'foreach' | 'fused' | 'single';
  /** Bytes a pass must move at least (reads + writes), for GB/s. */
  bytes: number;
  iters: number;
  /** tsgpu / PyTorch throughput the issue asks for. */
  target: number;
}

export const LENGTHS = [1024, 4096, 16384, 50257, 65536, 262144];
const TOTAL = 64 * 1024 * 1024;
const SIZE: Record<RowCase['dtype'], number> = { float32: 4, float16: 2, bfloat16: 2 };
const TAG: Record<RowCase['dtype'], string> = { float32: 'fp32', float16: 'fp16', bfloat16: 'bf16' };

/** GPT-2 small's parameter shapes (the LM head tied to wte): 124,439,808 parameters. */
export function gpt2Shapes(): number[][] {
  const d = 768;
  const shapes: number[][] = [[50257, d], [1024, d]];
  for (let l = 0; l < 12; l++) {
    shapes.push([d], [d], [d, 3 * d], [3 * d], [d, d], [d], [d], [d], [d, 4 * d], [4 * d], [4 * d, d], [d]);
  }
  shapes.push([d], [d]);
  return shapes;
}

/** Every case, for `device` ('cpu' gets smaller row counts: a quarter of the elements). */
export function rowCases(device: string): RowCase[] {
  const out: RowCase[] = [];
  const total = device === 'cpu' ? TOTAL / 16 : TOTAL;
  for (const dtype of ['float32', 'bfloat16'] as RowCase['dtype'][]) {
    for (const len of LENGTHS) {
      const rows = Math.max(1, Math.floor(total / len));
      const n = rows * len * SIZE[dtype];
      const iters = device === 'cpu' ? 2 : 20;
      // crossEntropy: forward reads the logits; backward reads them again and writes the gradient.
      out.push({ name: `crossEntropy_fwd_${len}_${TAG[dtype]}`, kind: 'crossEntropy', pass: 'fwd', len, rows, dtype, bytes: n, iters, target: 0.9 });
      out.push({ name: `crossEntropy_fwdbwd_${len}_${TAG[dtype]}`, kind: 'crossEntropy', pass: 'fwdbwd', len, rows, dtype, bytes: 3 * n, iters, target: 0.9 });
      for (const kind of ['softmax', 'logSoftmax'] as const) {
        // forward: read + write; backward: read the output and its gradient, write the input's.
        out.push({ name: `${kind}_fwd_${len}_${TAG[dtype]}`, kind, pass: 'fwd', len, rows, dtype, bytes: 2 * n, iters, target: 0.9 });
        out.push({ name: `${kind}_fwdbwd_${len}_${TAG[dtype]}`, kind, pass: 'fwdbwd', len, rows, dtype, bytes: 5 * n, iters, target: 0.9 });
      }
    }
  }
  const params = gpt2Shapes().reduce((a, s) => a + s.reduce((x, y) => x * y, 1), 0);
  const impls: RowCase['impl'][] = device === 'cpu' ? ['single', 'fused'] : ['foreach', 'fused', 'single'];
  for (const impl of impls) {
    // AdamW reads p, g, m, v and writes p, m, v; SGD with momentum reads p, g, buf and writes p, buf.
    out.push({ name: `AdamW_step_gpt2_${impl}`, kind: 'optimizer', pass: 'step', len: 0, rows: 0, dtype: 'float32', optimizer: 'AdamW', impl,
      bytes: 7 * 4 * params, iters: device === 'cpu' ? 1 : 10, target: 1.0 });
    out.push({ name: `SGD_step_gpt2_${impl}`, kind: 'optimizer', pass: 'step', len: 0, rows: 0, dtype: 'float32', optimizer: 'SGD', impl,
      bytes: 5 * 4 * params, iters: device === 'cpu' ? 1 : 10, target: 1.0 });
  }
  return out;
}
