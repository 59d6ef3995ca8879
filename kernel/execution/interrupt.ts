/** The error a cell reports when the user interrupts it. */
export class InterruptError extends Error {
  constructor(message = "Execution interrupted by the user") {
    super(message);
    this.name = "InterruptError";
  }
}

/** Node's error for a synchronous script stopped by SIGINT (vm's breakOnSigint). */
export function isVmSigint(e: unknown): boolean {
  return (e as any)?.code === "ERR_SCRIPT_EXECUTION_INTERRUPTED";
}
