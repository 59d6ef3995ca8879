/** Error types of the tensor runtime; every error carries a `code`. */

/** Numbers that describe an out-of-memory failure. */
export interface OutOfMemoryDetails {
  device: string;
  requested: number;
  totalBytes: number;
  freeBytes: number;
  allocated: number;
  reservedUnallocated: number;
}

/**
 * PyTorch's `RuntimeError`: what the runtime throws where PyTorch raises
 * one — operands whose shapes do not fit together (broadcasting, matmul,
 * cat, view, a loss's target), and, as its subclass, running out of memory.
 * `err.name` is "RuntimeError" (as a notebook shows it), `err.code` says
 * which kind: "TSGPU_SHAPE" for shapes. Catch it with
 * `e instanceof torch.RuntimeError`.
 */
export class RuntimeError extends Error {
  /** What kind of failure: "TSGPU_SHAPE", "TSGPU_OOM", ... */
  readonly code: string;

  constructor(message: string, code = 'TSGPU_SHAPE') {
    super(message);
    this.name = 'RuntimeError';
    this.code = code;
  }
}

/** A RuntimeError for operands whose shapes do not fit together (code "TSGPU_SHAPE"). */
export function shapeError(message: string): RuntimeError {
  return new RuntimeError(message, 'TSGPU_SHAPE');
}

/**
 * Thrown when the caching allocator cannot satisfy a request even after
 * freeing its cache and collecting garbage. The message gives the request,
 * the device's capacity and free memory, what tensors hold and what is
 * reserved but unallocated, like PyTorch's `torch.OutOfMemoryError` (a
 * RuntimeError there as here; `code` is "TSGPU_OOM").
 */
export class OutOfMemoryError extends RuntimeError {
  /** Device that ran out ("cpu", "cuda:0", ...). */
  readonly device: string;
  /** Bytes requested. */
  readonly requested: number;
  /** Device capacity in bytes. */
  readonly totalBytes: number;
  /** Free device bytes at the failure. */
  readonly freeBytes: number;
  /** Bytes held by live tensors. */
  readonly allocated: number;
  /** Bytes reserved by the allocator but not allocated. */
  readonly reservedUnallocated: number;

  constructor(message: string, details?: Partial<OutOfMemoryDetails>) {
    super(message, 'TSGPU_OOM');
    this.name = 'OutOfMemoryError';
    this.device = details?.device ?? '';
    this.requested = details?.requested ?? 0;
    this.totalBytes = details?.totalBytes ?? 0;
    this.freeBytes = details?.freeBytes ?? 0;
    this.allocated = details?.allocated ?? 0;
    this.reservedUnallocated = details?.reservedUnallocated ?? 0;
  }
}

/** Creates an Error with a `code` property (TSGPU_ARG, TSGPU_CUDA, TSGPU_DISPOSED, ...). */
export function codedError(code: string, message: string): Error & { code: string } {
  const err = new Error(message) as Error & { code: string };
  err.code = code;
  return err;
}
