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
