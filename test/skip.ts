/**
 * Tests that can run only where something is there (a CUDA device, the
 * addon built with CUDA): where it is not, the test is registered as skipped
 * with the reason in its title, and the reason is printed once per test file,
 * so that a run without a GPU says what it did not test.
 */

/** Reasons already printed by this test file (each jest test file has its own module registry). */
const printed = new Set<string>();

/**
 * `test(name, fn, timeout)` when `why` is empty; otherwise a skipped test titled
 * `name (skipped: why)`, with `why` printed the first time this file skips for it.
 */
export function testOrSkip(why: string, name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  if (!why) {
    test(name, fn, timeout);
    return;
  }
  if (!printed.has(why)) {
    printed.add(why);
    // eslint-disable-next-line no-console
    console.log(`skipped: ${why}`);
  }
  test.skip(`${name} (skipped: ${why})`, () => undefined);
}

let cudaWhy: string | undefined;

/** Why no CUDA device can be used here ("" when one can), from the runtime (loaded on first call). */
export function cudaUnavailable(): string {
  if (cudaWhy === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const torch = require("../native/index") as typeof import("../native/index");
    cudaWhy = torch.cuda.isAvailable() ? "" : `needs a CUDA device: ${torch.cuda.unavailableReason() || "CUDA is not available"}`;
  }
  return cudaWhy;
}

/** A test that needs a usable CUDA device (see testOrSkip). */
export function cudaTest(name: string, fn: jest.ProvidesCallback, timeout?: number): void {
  testOrSkip(cudaUnavailable(), name, fn, timeout);
}
