/**
 * The SIGINT watcher thread. It parks forever inside a `vm` call made with
 * `breakOnSigint`, which keeps Node's SIGINT watchdog running for the whole
 * process. That does two things:
 *
 * - A SIGINT that arrives while the main thread runs a cell's synchronous
 *   code stops that code (the cell's own `breakOnSigint` watchdog is the
 *   newest, so it gets the signal); registering it is cheap because the
 *   watchdog thread is already running (starting it costs ~0.2 ms a cell).
 * - A SIGINT that arrives while no cell code runs (an awaiting cell, an idle
 *   kernel) wakes this thread, which sets the interrupt flag and tells the
 *   main thread.
 *
 * The main thread must not have `process.on("SIGINT")` listeners: libuv
 * would take the signal back from the watchdog.
 */
import { parentPort, workerData } from "worker_threads";
import { Script } from "vm";

interface SigintInit {
  /** The kernel's interrupt flag: index 0 is set to 1 on SIGINT. */
  interruptFlag: SharedArrayBuffer;
  /** A word this thread waits on (never notified). */
  park: SharedArrayBuffer;
}

const init = workerData as SigintInit;
const flag = new Int32Array(init.interruptFlag);
Object.defineProperty(globalThis, "__tsgpuPark", { value: new Int32Array(init.park) });
const park = new Script("Atomics.wait(__tsgpuPark, 0, 0)", { filename: "tsgpu-sigint-watch" });

parentPort!.postMessage("ready");
for (;;) {
  try {
    park.runInThisContext({ breakOnSigint: true });
  } catch (e) {
    if ((e as { code?: string })?.code !== "ERR_SCRIPT_EXECUTION_INTERRUPTED") throw e;
    Atomics.store(flag, 0, 1);
    parentPort!.postMessage("sigint");
  }
}
