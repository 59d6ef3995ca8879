/**
 * Which new CUDA kernels are used. The fused cross-entropy, the fused
 * softmax / logSoftmax backward, the streaming softmax of long rows and the
 * multi-tensor optimizer update have CUDA kernels that compile and have
 * tests against the CPU (test/native/cuda_fused_rows.test.ts,
 * test/native/optim/multi_tensor.test.ts), but they have not yet run on a
 * GPU. Until they have, CUDA tensors take the paths those kernels replace
 * (each already checked against the CPU on a GPU), unless TSGPU_CUDA_FUSED=1
 * is in the environment when the process starts (the native side reads the
 * same variable for the softmax of long rows). On the CPU the fused kernels are
 * always used: they are tested against PyTorch in CI.
 */
let fusedOnCuda = process.env.TSGPU_CUDA_FUSED === '1';

/** Whether the fused kernels may run on `device` ("cpu" always; CUDA only with TSGPU_CUDA_FUSED=1). */
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
