/**
 * The cases of the op benchmark (bench/ops_bench.ts): what each measures,
 * its sizes, how throughput is counted, and the target ratio against
 * PyTorch. bench/ops_torch.py builds the same cases by name and size.
 */

/** How a case's time becomes a figure: FLOP/s, bytes/s, or the time itself (latency). */
export type Metric = 'flops' | 'bytes' | 'latency';

export interface OpCase {
  /** Unique name, e.g. "matmul_1024_fp32". */
  name: string;
  /** The op: matmul, bmm, randn, add, mul, copy, cast_bf16, sum, softmax, gelu, layerNorm, transpose_contiguous. */
  op: string;
  /** Shapes of the inputs (randn, sizes given as an output shape). */
  shapes: number[][];
  dtype: 'float32' | 'float16' | 'bfloat16';
  /** float32 matmul on CUDA with TF32 allowed. */
  tf32?: boolean;
  metric: Metric;
  /** FLOPs or bytes moved per op (unused for latency). */
  work: number;
  /** Ops per timed round. */
  iters: number;
  /** tsgpu / PyTorch throughput must reach this (latency: tsgpu / PyTorch time must stay below it). */
  target: number;
}

const M64 = 64 * 1024 * 1024;
const F32 = 4;

function matmulCase(n: number, dtype: OpCase['dtype'], iters: number, target: number, tf32 = false): OpCase {
  const tag = tf32 ? 'tf32' : dtype === 'float32' ? 'fp32' : dtype === 'float16' ? 'fp16' : 'bf16';
  return { name: `matmul_${n}_${tag}`, op: 'matmul', shapes: [[n, n], [n, n]], dtype, tf32, metric: 'flops', work: 2 * n ** 3, iters, target };
}

function smallAdd(target: number): OpCase {
  return { name: 'small_add_256', op: 'add', shapes: [[256], [256]], dtype: 'float32', metric: 'latency', work: 0, iters: 20000, target };
}

/** The CPU cases: issue targets against Debian's PyTorch with the same thread count. */
export function cpuCases(): OpCase[] {
  const rows = M64 / 1024;
  const elementwise = (op: string, passes: number, shapes: number[][]): OpCase => ({
    name: `${op}_64M`, op, shapes, dtype: 'float32', metric: 'bytes', work: passes * M64 * F32, iters: 1, target: 1.0,
  });
  return [
    matmulCase(1024, 'float32', 5, 0.9),
    matmulCase(4096, 'float32', 1, 0.9),
    elementwise('randn', 1, [[M64]]),
    elementwise('add', 3, [[M64], [M64]]),
    elementwise('sum', 1, [[M64]]),
    elementwise('softmax', 2, [[rows, 1024]]),
    elementwise('gelu', 2, [[M64]]),
    elementwise('layerNorm', 2, [[rows, 1024]]),
    smallAdd(0.7),
  ];
}

/** The GPU cases: issue targets against PyTorch on the same GPU in the same run. */
export function gpuCases(): OpCase[] {
  const G = 1024 ** 3;
  const n = G / F32; // 1 GiB of float32
  const bw = (name: string, op: string, shapes: number[][], bytes: number, target: number, dtype: OpCase['dtype'] = 'float32'): OpCase => ({
    name, op, shapes, dtype, metric: 'bytes', work: bytes, iters: 20, target,
  });
  // Attention-shaped batched matmuls: batch 8 × 16 heads, sequence 2048, head dim 128.
  const bh = 128, L = 2048, D = 128;
  const attn = (tag: 'fp16' | 'bf16', dtype: OpCase['dtype']): OpCase[] => [
    { name: `bmm_qk_${tag}`, op: 'bmm', shapes: [[bh, L, D], [bh, D, L]], dtype, metric: 'flops', work: 2 * bh * L * L * D, iters: 20, target: 0.9 },
    { name: `bmm_pv_${tag}`, op: 'bmm', shapes: [[bh, L, L], [bh, L, D]], dtype, metric: 'flops', work: 2 * bh * L * L * D, iters: 20, target: 0.9 },
  ];
  return [
    matmulCase(8192, 'float32', 5, 0.95),
    matmulCase(8192, 'float32', 20, 0.95, true),
    matmulCase(8192, 'float16', 40, 0.95),
    matmulCase(8192, 'bfloat16', 40, 0.95),
    ...attn('fp16', 'float16'),
    ...attn('bf16', 'bfloat16'),
    bw('add_1GiB', 'add', [[n], [n]], 3 * G, 0.95),
    bw('mul_1GiB', 'mul', [[n], [n]], 3 * G, 0.95),
    bw('copy_1GiB', 'copy', [[n]], 2 * G, 0.95),
    bw('cast_bf16_1GiB', 'cast_bf16', [[n]], G + G / 2, 0.95),
    bw('sum_1GiB', 'sum', [[n]], G, 0.9),
    bw('softmax_1GiB', 'softmax', [[n / 1024, 1024]], 2 * G, 0.9),
    bw('layerNorm_1GiB', 'layerNorm', [[n / 1024, 1024]], 2 * G, 0.9),
    bw('gelu_1GiB', 'gelu', [[n]], 2 * G, 0.9),
    bw('transpose_contiguous_1GiB', 'transpose_contiguous', [[16384, 16384]], 2 * G, 0.9),
    smallAdd(0.5),
  ];
}
