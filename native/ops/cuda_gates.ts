/**
 * Which fused CUDA kernels are used: the fused cross-entropy, the fused
 * softmax / logSoftmax backward, the streaming softmax of long rows and the
 * multi-tensor optimizer update. They are on by default; their tests against
 * the CPU (test/native/cuda_fused_rows.test.ts, test/native/optim/multi_tensor.test.ts)
 * and a GPT-2 small training step that follows PyTorch's losses ran on an H200.
 * TSGPU_CUDA_FUSED=0 in the environment when the process starts turns them
 * off (the native side reads the same variable for the softmax of long rows),
 * and CUDA tensors then take the paths those kernels replace. On the CPU the
 * fused kernels are always used: they are tested against PyTorch in CI.
 */
let fusedOnCuda = process.env.TSGPU_CUDA_FUSED !== '0';

/** Whether the fused kernels may run on `device` ("cpu" always; CUDA unless TSGPU_CUDA_FUSED=0). */
export function fusedKernelsOn(device: string): boolean {
  return device === 'cpu' || fusedOnCuda;
}

/**
 * Turns the TypeScript side of the gate on or off for this process (the CUDA
 * tests of those kernels, and benchmarks, call it). The native softmax of
 * long rows reads TSGPU_CUDA_FUSED itself, once, at its first call: set the
 * variable too, before that.
 */
export function setFusedKernelsOnCuda(on: boolean): void {
  fusedOnCuda = on;
}

/**
 * The batch norm kernels (batchNormForward / batchNormBackward) on CUDA: written and tested against the CPU
 * (test/native/cuda_batch_norm.test.ts), but that test has not run on a GPU yet, so CUDA tensors take the
 * composed path by default (statistics and normalization as separate ops, in float32 for 16-bit inputs).
 * TSGPU_CUDA_BATCH_NORM=1 in the environment turns the kernels on for CUDA. The CPU always uses them.
 */
let batchNormKernelOnCuda = process.env.TSGPU_CUDA_BATCH_NORM === '1';

/** Whether batchNorm on `device` runs the batch norm kernels ("cpu" always; CUDA with TSGPU_CUDA_BATCH_NORM=1). */
export function batchNormKernelOn(device: string): boolean {
  return device === 'cpu' || batchNormKernelOnCuda;
}

/** Turns the batch norm kernels on or off for CUDA tensors in this process (their CUDA tests call it). */
export function setBatchNormKernelOnCuda(on: boolean): void {
  batchNormKernelOnCuda = on;
}
