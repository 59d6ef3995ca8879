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
  /**
   * How each input is made, by position (default randn): rand (uniform in [0, 1)), index:K (int64 in
   * [0, K)), mask (bool, half of it true). Both sides make them the same way.
   */
  inputs?: InputKind[];
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

/** How an input of a case is made (OpCase.inputs). */
export type InputKind = 'randn' | 'rand' | 'mask' | `index:${number}`;

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
    ...newOpCpuCases(),
  ];
}

/**
 * The ops added after the first benchmark, on CPU, at the same bar (≥ 0.9× PyTorch's throughput): one or
 * two of each family (elementwise, scans, order statistics, shape, indexing, linear algebra, random,
 * nn.functional), about 16M float32 elements each. bench/ops_torch.py runs the same op by name.
 */
export function newOpCpuCases(): OpCase[] {
  const E = 16 * 1024 * 1024;
  const B = E * F32;
  const c = (name: string, op: string, shapes: number[][], work: number, inputs?: InputKind[], metric: Metric = 'bytes'): OpCase => ({
    name, op, shapes, dtype: 'float32', metric, work, iters: 2, target: 0.9, ...(inputs ? { inputs } : {}),
  });
  const sq = [4096, 4096];
  const rows = [16384, 1024];
  return [
    c('erf_16M', 'erf', [[E]], 2 * B),
    c('tan_16M', 'tan', [[E]], 2 * B),
    c('atan2_16M', 'atan2', [[E], [E]], 3 * B),
    c('hypot_16M', 'hypot', [[E], [E]], 3 * B),
    c('clip_16M', 'clip', [[E]], 2 * B),
    c('isnan_16M', 'isnan', [[E]], B + E),
    c('logit_16M', 'logit', [[E]], 2 * B, ['rand']),
    c('exp_16M', 'exp', [[E]], 2 * B),
    c('tanh_16M', 'tanh', [[E]], 2 * B),
    c('sigmoid_16M', 'sigmoid', [[E]], 2 * B),
    c('log_16M', 'log', [[E]], 2 * B, ['rand']),
    c('leakyRelu_16M', 'leakyRelu', [[E]], 2 * B),
    c('cumsum_4096x4096', 'cumsum', [sq], 2 * B),
    c('cumprod_4096x4096', 'cumprod', [sq], 2 * B),
    c('logcumsumexp_4096x4096', 'logcumsumexp', [sq], 2 * B),
    c('median_16384x1024', 'median', [rows], B),
    c('topk8_16384x1024', 'topk', [rows], B),
    c('sort_16384x1024', 'sort', [rows], 2 * B),
    c('unique_4M', 'unique', [[4 * 1024 * 1024]], 4 * 1024 * 1024 * 8, ['index:1000']),
    c('flip_4096x4096', 'flip', [sq], 2 * B),
    c('roll_4096x4096', 'roll', [sq], 2 * B),
    c('maskedSelect_16M', 'maskedSelect', [[E], [E]], B + E + B / 2, ['randn', 'mask']),
    c('take_4M_of_16M', 'take', [[E], [E / 4]], (E / 4) * (8 + 4 + 4), ['randn', `index:${E}`]),
    c('dot_16M', 'dot', [[E], [E]], 2 * B),
    c('einsum_bij_bjk_64x256', 'einsum', [[64, 256, 256], [64, 256, 256]], 2 * 64 * 256 ** 3, undefined, 'flops'),
    c('cdist_2048x64', 'cdist', [[2048, 64], [2048, 64]], 3 * 2048 * 2048 * 64, undefined, 'flops'),
    c('bernoulli_16M', 'bernoulli', [[E]], 2 * B, ['rand']),
    c('normal_16M', 'normal', [[E]], B),
    c('multinomial_4096x1024_16', 'multinomial', [[4096, 1024]], 4096 * 1024 * F32, ['rand']),
    c('pad_reflect_16x64x128x128', 'pad_reflect', [[16, 64, 128, 128]], 2 * B),
    c('groupNorm_16x64x128x128', 'groupNorm', [[16, 64, 128, 128]], 2 * B),
    c('oneHot_65536x100', 'oneHot', [[65536]], 65536 * 100 * 8, ['index:100']),
    c('cosineSimilarity_65536x256', 'cosineSimilarity', [[65536, 256], [65536, 256]], 2 * B),
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
