/**
 * The kernel process: wires the transport (sockets, on a worker thread), the
 * dispatcher (protocol core), the execution engine (TypeScript) and the
 * magics together, and installs what cells see as globals.
 */
import { Dispatcher } from "./dispatcher";
import { InterruptTarget } from "./interrupts";
import { Message, reply } from "./protocol/message";
import type { Boot } from "./boot";
import { debug, log } from "./boot";
import { OutputRouter } from "./execution/output";
import { ExecutionEngine } from "./execution/engine";
import { cellPosition, formatError } from "./execution/traceback";
import { HeapCompaction } from "./execution/heap_compaction";
import { History, historyFile } from "./history";
import { makeHandlers } from "./handlers";
import { makeDisplayApi } from "./display";
import { installStdin } from "./stdin";
import { CommRegistry } from "./comms";
import { MemoryPanel } from "./memory_panel";
import { MagicSession } from "../magics/session";
import { describe } from "./language/language";
import { deviceUsage, loadRuntime, setRuntimeCell } from "./runtime";
import { exitProcess, guardProcess } from "./guard";
import { RELAY_PENDING } from "./transport/bridge-types";

/** How long an exit without the teardown waits for zeromq to write what the closed sockets still hold (ms). */
const kQuickExitFlushMs = 250;

export { log };

/** Loads the execution side of a kernel whose transport `boot()` started, and starts serving requests. */
export async function startKernel(b: Boot): Promise<void> {
  const { origin, staticInfo, transport } = b;
  let engine!: ExecutionEngine;
  let panel: MemoryPanel | undefined;
  const publish = (parent: Message, type: string, content: Record<string, unknown>, metadata: Record<string, unknown> = {}) =>
    transport.send("iopub", reply(parent, type, content, origin, metadata));
  const router = new OutputRouter(publish);
  const magics = new MagicSession({
    engine: () => engine, router, runtime: loadRuntime, loadedRuntime: loadRuntimeIfLoaded,
    prompt: (text) => (globalThis as any).prompt(text), describe,
    cellPosition: (file, line, column) => {
      const rec = engine.cells.get(file);
      const p = rec && cellPosition(rec, line, column);
      return rec && p ? { cell: rec.executionCount, line: p.line } : null;
    },
  });
  engine = new ExecutionEngine(router, transport.interruptFlag, {
    magic: (name, args) => magics.runLine(name, args),
    cellMagic: (name, args, body) => magics.runCell(name, args, body),
    beforeCell: (n) => { setRuntimeCell(n); panel?.cellStarted(); },
    afterCell: (cell) => { magics.afterCell(cell); panel?.cellEnded(); },
    runtime: loadRuntime,
    relay: { pendingWord: RELAY_PENDING, pump: () => transport.pump() },
  }, log);
  // Long tensor ops stop between chunks, and any op when it returns, once the interrupt flag is set.
  (globalThis as any)[Symbol.for("tsgpu.interruptFlag")] = transport.interruptFlag;
  // Memory history names the cell and line that allocated (the runtime reads this when it records stacks).
  (globalThis as any)[Symbol.for("tsgpu.frameMapper")] = magics.frameMapper;
  const history = new History(historyFile(), log);
  const stdin = installStdin(transport, router, origin);
  const { display, updateDisplay, clearOutput } = makeDisplayApi(router);
  const comms = new CommRegistry((type, content, metadata, buffers) => {
    router.flush();
    const msg = reply(router.scope()?.parent, type, content, origin, metadata);
    msg.buffers = buffers;
    transport.send("iopub", msg);
  }, log, (text) => transport.drops.drop("shell", "message for an unknown comm", text));
  // JupyterLab's memory panel (labextension/) opens a comm to this target.
  panel = new MemoryPanel({ comms, magics, loadedRuntime: loadRuntimeIfLoaded, detached: (fn) => router.scopes.exit(fn), log });
  const withParent = <T>(parent: Message, fn: () => T): T =>
    router.scopes.run({ parent, executionCount: engine.executionCount, signal: new AbortController().signal }, fn);
  defineGlobals({ display, updateDisplay, clearOutput, comms: comms.api(), registerMagic: magics.registerMagic, cell: () => engine.currentScope() });

  let exiting = false;
  const shutdown = (restart: boolean) => {
    if (exiting) return;
    exiting = true;
    transport.shutdownHandled();
    // The live memory view's last update and the panel's comm_close go out now, before the reply: the
    // process ends soon after its sockets close, and iopub messages still queued then are lost.
    magics.shutdown(restart);
    panel?.closeAll(restart ? "the kernel restarted" : "the kernel shut down");
    router.flush();
    setImmediate(async () => {
      router.flush();
      history.flush();
      // Hand cached memory of every device back before the process ends (a restart starts a fresh one).
      try { loadRuntimeIfLoaded()?.memory?.emptyCache?.(); } catch { /* nothing to release */ }
      await transport.close();
      debug(restart ? "shutting down for restart" : "shut down");
      const skipTeardown = transport.zeroCopyFrames > 0;
      debug(skipTeardown ? `exit without teardown: the socket thread sent ${transport.zeroCopyFrames} frame(s) without a copy`
        : "exit through Node's teardown");
      // Without the teardown nothing waits out the sockets' linger: zeromq's I/O thread may still hold the
      // shutdown reply when _Exit runs (seen on a loaded machine), so give it that time first.
      if (skipTeardown) await new Promise((r) => setTimeout(r, kQuickExitFlushMs));
      exitProcess(0, { skipTeardown });
    });
  };

  b.shutdown = shutdown;
  const interrupts = new InterruptTarget({
    flag: transport.interruptFlag,
    running: () => engine.running,
    executeQueued: () => dispatcher.executeQueued(),
    interrupt: () => engine.interrupt(),
  });
  const compaction = new HeapCompaction();
  const dispatcher = new Dispatcher(transport, origin, makeHandlers({
    engine, history, kernelInfo: () => staticInfo, shutdown, comms, magics: magics.registry, withParent, log,
  }), log, transport.drops, () => {
    transport.deviceUsage(deviceUsage());
    compaction.cellEnded();
    // Also after a cell that never ran (a strict-mode type error skips afterCell).
    panel?.cellEnded();
    // %restart: once its cell has been answered, exit so that the kernel manager starts a fresh kernel.
    if (magics.restartRequested) shutdown(true);
  });

  router.captureProcessStreams();
  const reportAsync = (kind: string) => (err: unknown) => {
    const scope = router.scope();
    if (!scope) { log(`${kind} outside any cell: ${(err as Error)?.stack ?? err}`); return; }
    router.publish("error", { ...formatError(err, engine.cells) });
  };
  process.on("unhandledRejection", reportAsync("unhandled rejection"));
  process.on("uncaughtException", reportAsync("uncaught exception"));

  b.events.request = (channel, msg, bytes) => {
    if (channel === "shell" && msg.header?.msg_type === "execute_request") interrupts.onExecuteRequest(msg);
    return dispatcher.receive(channel, msg, bytes);
  };
  b.events.stdin = (msg) => stdin.onReply(msg);
  // Which cell an interrupt is for: the running one, one read but not begun, or none (interrupts.ts).
  b.events.interrupt = (date) => interrupts.onInterrupt(date);
  await b.started;
  transport.serving();
  // SIGINT (from a terminal, or a manager using interrupt_mode "signal") interrupts like interrupt_request.
  transport.watchSigint();
  // From here on, cells cannot end the process (process.exit, abort, kill): see guard.ts.
  guardProcess();
}

function loadRuntimeIfLoaded(): any {
  return (globalThis as any).__tsgpu_runtime_loaded ? loadRuntime() : undefined;
}

function defineGlobals(g: Record<string, unknown> & { cell: () => unknown }): void {
  const { cell, ...values } = g;
  for (const [k, v] of Object.entries(values)) {
    Object.defineProperty(globalThis, k, { value: v, writable: true, configurable: true, enumerable: false });
  }
  Object.defineProperty(globalThis, "cell", { get: cell, configurable: true, enumerable: false });
  Object.defineProperty(globalThis, "torch", { get: loadRuntime, set: () => undefined, configurable: true, enumerable: false });
}
