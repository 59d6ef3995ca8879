/**
 * What user code may not do to the kernel process: end it. `process.exit`,
 * `process.reallyExit`, `process.abort` and a `process.kill` that would end
 * this process are replaced by functions that throw, so a cell that calls
 * them fails with that error and the kernel keeps its state. The kernel ends
 * itself through `exitProcess`, which keeps the original.
 */

/** Signals that do not end a Node process (0 only probes; the others are ignored or caught by default). */
const kHarmless = new Set<string | number>([0, "SIGWINCH", "SIGCHLD", "SIGCONT", "SIGURG"]);

/** The error a refused call throws: it names the call and what to do instead. */
export class ProcessExitRefused extends Error {
  constructor(call: string) {
    super(`${call} is refused in a kernel cell: it would end the kernel and lose every variable. `
      + "To start over, restart the kernel from the client (Kernel > Restart), or free memory with %reset -f.");
    this.name = "ProcessExitRefused";
  }
}

const realExit: (code?: number) => never = process.exit.bind(process);
const realKill: typeof process.kill = process.kill.bind(process);
const realReallyExit: (code?: number) => never = (process as any).reallyExit.bind(process);
/** Set by exitProcess: Node's own process.exit ends in process.reallyExit, which must then go through. */
let exiting = false;

/**
 * Ends the kernel process (for the kernel's own shutdown; user code cannot reach the original any more).
 *
 * The kernel has flushed its files and closed its sockets by now, and ends through Node's own exit: the
 * socket thread's environment, the addons' cleanup hooks, static destructors and atexit handlers all run
 * (test/kernel/exit_cycle.test.ts runs that path 50 times, and under the sanitizers). It is as fast as
 * skipping them (a median of about 30 ms from the shutdown reply to the exit either way, measured here).
 *
 * `skipTeardown` (the socket thread handed zeromq binary frames without a copy: Transport.zeroCopyFrames)
 * ends it at once instead (quickExit: fflush, _Exit), because the teardown would be unsafe: zeromq.js returns
 * each such frame to the sending thread's zeromq state whenever its I/O thread has written it, and Node's exit
 * frees that state with the thread's environment (kernel/transport/frames.ts: the heap corruption once seen
 * at about one exit in ten).
 */
export function exitProcess(code = 0, { skipTeardown = false }: { skipTeardown?: boolean } = {}): never {
  exiting = true;
  if (skipTeardown) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-var-requires
      require("../native/addon").native.quickExit(code);
    } catch { /* no addon: Node's own exit */ }
  }
  return realExit(code);
}

/** Sends a signal with the original `process.kill` (the kernel's own use). */
export function killProcess(pid: number, signal?: string | number): boolean {
  return realKill(pid, signal);
}

function endsThisProcess(pid: number, signal: string | number | undefined): boolean {
  if (signal !== undefined && kHarmless.has(signal)) return false;
  // Our own pid signals us; 0 signals our process group, and so does -pid for a kernel that leads its group
  // (jupyter_client starts kernels in a session of their own).
  const target = Number(pid);
  return target === process.pid || target === 0 || target === -process.pid;
}

let installed = false;

/** Replaces the calls that end the process; idempotent. */
export function guardProcess(): void {
  if (installed) return;
  installed = true;
  const define = (name: string, value: unknown) =>
    Object.defineProperty(process, name, { value, writable: false, configurable: false, enumerable: true });
  define("exit", function exit(code?: number): never { throw new ProcessExitRefused(`process.exit(${code ?? ""})`); });
  define("reallyExit", function reallyExit(code?: number): never {
    if (exiting) return realReallyExit(code);
    throw new ProcessExitRefused(`process.reallyExit(${code ?? ""})`);
  });
  define("abort", function abort(): never { throw new ProcessExitRefused("process.abort()"); });
  define("kill", function kill(pid: number, signal?: string | number): boolean {
    if (endsThisProcess(pid, signal)) throw new ProcessExitRefused(`process.kill(${pid}${signal === undefined ? "" : `, ${JSON.stringify(signal)}`})`);
    return realKill(pid, signal);
  });
}
