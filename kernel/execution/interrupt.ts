/** The error a cell reports when the user interrupts it. */
export class InterruptError extends Error {
  constructor(message = "Execution interrupted by the user") {
    super(message);
    this.name = "InterruptError";
  }
}

/**
 * Node's error for a synchronous script stopped by SIGINT (vm's breakOnSigint),
 * or the tensor runtime's for an op stopped by the interrupt flag.
 */
export function isVmSigint(e: unknown): boolean {
  const code = (e as any)?.code;
  return code === "ERR_SCRIPT_EXECUTION_INTERRUPTED" || code === "TSGPU_INTERRUPTED";
}
