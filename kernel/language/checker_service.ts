/**
 * The checker's side of the conversation with the kernel: a queue of
 * requests answered by a CellLanguage, over whatever carries the messages —
 * a worker thread's port (checker_worker.ts) or a child process's IPC
 * channel (checker_snapshot_entry.ts, the checker started from a startup
 * snapshot). Plain and synchronous between messages.
 */
import { readlinkSync } from "fs";
import { setPriority } from "os";
import { getHeapStatistics, setFlagsFromString } from "v8";
import { runInNewContext } from "vm";
import type { CellLanguage } from "./cell_language";
import type { CheckerReply, CheckerRequest } from "./checker_protocol";
import { sourceCompleteness } from "./completeness_scan";

/** How a checker talks to the kernel. */
export interface CheckerLink {
  /** Sends one reply to the kernel. */
  send(m: CheckerReply): void;
  /** Calls fn for every request the kernel sends. */
  onRequest(fn: (r: CheckerRequest) => void): void;
}

/**
 * Niceness of the checker once it is warm: checking is background work and must not slow the cells beside
 * it. The warm-up itself runs at normal priority, because a cell run before the checker is warm waits for
 * it to give its warnings (on a busy machine a niced warm-up took several seconds).
 */
const kCheckerNice = 10;

/**
 * Lowers the scheduling priority of the calling thread (Linux: a thread id
 * is a pid to setpriority; in a process of its own that is the process).
 * Best effort; TSGPU_CHECKER_NICE=0 leaves it alone.
 */
export function lowerCheckerPriority(): void {
  if (process.env.TSGPU_CHECKER_NICE === "0") return;
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
    if (tid > 0) setPriority(tid, kCheckerNice);
  } catch { /* not Linux, or not allowed: run at normal priority */ }
}

/**
 * Every completion, inspection and new cell is a new program and type
 * checker: tens of MiB of garbage for a completion, 1–2 MiB for a small
 * cell. V8 lets such a heap grow to about four times what is live before it
 * collects, and keeps the pages after: a flood of completion requests left
 * the checker 440 MiB larger. So the checker collects its garbage itself
 * after every kCollectEvery requests that built a program, and once it has
 * been idle for kCollectIdleMs after any, if the heap grew by
 * kCollectIdleGrowth since the last collection. That bound matters: a full
 * collection of a heap holding the parsed libraries (about 75 MiB live)
 * costs 0.3–0.6 s of CPU, and collecting after each cell that reached the
 * checker cost a kernel running short cells more CPU than the cells
 * themselves (0.5–0.9 ms a cell over 500 cells of `1+1`, whose only program
 * was the first one's).
 */
const kCollectEvery = 32;
const kCollectIdleMs = 1000;
const kCollectIdleGrowth = 16 * 1024 * 1024;

/** Bytes of this heap in use (live and garbage not yet collected). */
function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

/**
 * A full collection of this heap (`gc` is there when the process runs with
 * --expose-gc). Looked up at the first collection, never while the startup
 * snapshot is built: a V8 flag set then would make the snapshot refuse to load.
 */
let gcFunction: (() => void) | null | undefined;
function collectGarbage(): void {
  if (gcFunction === undefined) {
    gcFunction = (globalThis as { gc?: () => void }).gc ?? null;
    if (!gcFunction) {
      try { setFlagsFromString("--expose-gc"); gcFunction = runInNewContext("gc") as () => void; } catch { gcFunction = null; }
    }
  }
  gcFunction?.();
}

/**
 * Serves the kernel's requests. `start` makes the language service (the
 * slow part: requests that come meanwhile wait in the queue), warmed up by
 * a first program when `warmUp` says so (not when a cell is waiting: its
 * own program warms it up); once it returns, "ready" is sent, the priority
 * lowered and `afterReady` called.
 */
export function serveChecker(link: CheckerLink, start: (warmUp: boolean) => CellLanguage, afterReady: () => void = () => undefined): void {
  const queue: CheckerRequest[] = [];
  let language: CellLanguage | undefined;
  let scheduled = false;
  const send = (m: CheckerReply) => link.send(m);
  let sinceCollect = 0;
  /** The heap in use after the last collection (or once the checker was ready). */
  let usedAfterCollect = 0;
  let idleCollect: NodeJS.Timeout | undefined;
  const collect = (): void => {
    if (idleCollect) { clearTimeout(idleCollect); idleCollect = undefined; }
    sinceCollect = 0;
    collectGarbage();
    usedAfterCollect = heapUsed();
  };
  /** Counts a request that built a program; collects when enough did, or once the queue stays empty with enough garbage. */
  const countProgram = (): void => {
    if (++sinceCollect >= kCollectEvery) { collect(); return; }
    if (idleCollect) clearTimeout(idleCollect);
    idleCollect = setTimeout(() => { if (!queue.length && heapUsed() - usedAfterCollect >= kCollectIdleGrowth) collect(); }, kCollectIdleMs);
    idleCollect.unref();
  };

  const handle = (r: CheckerRequest): void => {
    const lang = language!;
    switch (r.kind) {
      case "analyze": {
        const diagnostics = lang.analyze(r.code, r.seq, r.withDiagnostics);
        send({ kind: "diagnostics", id: r.id, diagnostics, version: lang.version, reusable: lang.pendingIsReusable(), pure: lang.pendingIsPure() });
        // The declaration output needs this program: compute it before anything replaces the cell.
        lang.prepare();
        break;
      }
      case "commit": lang.commit(r.seq); send({ kind: "applied", version: lang.version }); break;
      case "reset": lang.reset(); send({ kind: "applied", version: lang.version }); break;
      case "complete": send({ kind: "completion", id: r.id, result: lang.complete(r.code, r.offset) }); break;
      case "inspect": send({ kind: "inspection", id: r.id, result: lang.inspect(r.code, r.offset) }); break;
      case "isComplete": send({ kind: "completeness", id: r.id, result: sourceCompleteness(lang.project.ts, r.source) }); break;
    }
  };

  /**
   * The request to handle next: the first one, except that completion,
   * inspection and is_complete go ahead of cells waiting to be analyzed (never ahead of a
   * commit or reset, so they see every cell that ran before they were asked).
   */
  const nextIndex = (): number => {
    for (let i = 0; i < queue.length; i++) {
      const kind = queue[i].kind;
      if (kind === "complete" || kind === "inspect" || kind === "isComplete") return i;
      if (kind !== "analyze") break;
    }
    return 0;
  };

  const drain = (): void => {
    scheduled = false;
    const r = queue.splice(nextIndex(), 1)[0];
    if (!r) return;
    try {
      handle(r);
      // is_complete parses a whole text too (a pasted one can be large): it counts as a program.
      if (r.kind === "complete" || r.kind === "inspect" || r.kind === "analyze" || r.kind === "isComplete") countProgram();
    } catch (e) {
      send({ kind: "failed", id: "id" in r ? r.id : -1, message: String((e as Error)?.stack ?? e) });
    }
    schedule();
  };
  const schedule = (): void => {
    if (language && queue.length && !scheduled) { scheduled = true; setImmediate(drain); }
  };

  /**
   * A completion, inspection or is_complete still waiting when another of
   * the same kind comes is answered "nothing" ("unknown") at once: its asker has given up waiting (the
   * kernel answers from what it knows after a short wait), and a client that
   * sends them faster than they are computed would otherwise grow the queue,
   * and the checker's memory, without bound.
   */
  const supersede = (r: CheckerRequest): void => {
    if (r.kind !== "complete" && r.kind !== "inspect" && r.kind !== "isComplete") return;
    for (let i = queue.length - 1; i >= 0; i--) {
      const q = queue[i];
      if (q.kind !== r.kind) continue;
      queue.splice(i, 1);
      send(q.kind === "complete" ? { kind: "completion", id: q.id, result: null }
        : q.kind === "inspect" ? { kind: "inspection", id: q.id, result: null } : { kind: "completeness", id: q.id, result: { status: "unknown" } });
    }
  };

  link.onRequest((r) => { supersede(r); queue.push(r); schedule(); });

  // After the requests already sent are read: a cell waiting to be analyzed is the warm-up.
  setImmediate(() => {
    try {
      const t0 = Date.now();
      language = start(!queue.some((r) => r.kind === "analyze"));
      usedAfterCollect = heapUsed();
      send({ kind: "ready", ms: Date.now() - t0, nodeTypes: language.project.hasNodeTypes });
      lowerCheckerPriority();
      afterReady();
      schedule();
    } catch (e) {
      send({ kind: "failed", id: -1, message: `cannot start the TypeScript language service: ${String((e as Error)?.stack ?? e)}` });
    }
  });
}
