/** Milliseconds on the process-wide monotonic clock (the same on every thread). */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
