/**
 * The main thread's side of type checking: starts the checker thread and
 * talks to it. Cells are analyzed there while they run here; completion and
 * inspection ask it too. When the thread is not (yet) there, everything here
 * answers "nothing known" rather than waiting, so the kernel never depends
 * on it.
 *
 * Most cells are answered without the thread: the diagnostics it gave are
 * remembered with its version (which moves only when a cell changes what
 * later cells see, or imports), and a cell run again under the same version
 * is answered here (see `remembered`). A cell's commit waits for the answer
 * and is not sent for a cell that declares and imports nothing (see
 * `deferredCommit`). Arithmetic on number literals (`1+1`) never reaches
 * the thread (trivial_cell.ts).
 */
import { closeSync, existsSync, rmSync } from "fs";
import { join } from "path";
import type { CellDiagnostic, CompletionResult, InspectionResult } from "./cell_language";
import type { CheckerReply, CheckerRequest } from "./checker_protocol";
import type { Completeness } from "./completeness_scan";
import { AMBIENT_DECLARATIONS } from "./ambient";
import { ChannelEvents, CheckerChannel, launchedChannel, processChannel, threadChannel } from "./checker_channel";
import {
  type LaunchedChecker, checkerSnapshotFile, requestCheckerSnapshot, snapshotsEnabled, takeLaunchedChecker, writeCheckerStart,
} from "./checker_snapshot";
import type { ProjectSetup } from "./project";
import { isLiteralArithmetic } from "./trivial_cell";

/** `on`: diagnostics are warnings; `strict`: type errors stop the cell before it runs; `off`: no checking. */
export type TypecheckMode = "on" | "off" | "strict";

export const TYPECHECK_MODES: readonly TypecheckMode[] = ["on", "off", "strict"];

/** The mode named by TSGPU_TYPECHECK, or "on". */
export function initialMode(env: NodeJS.ProcessEnv = process.env): TypecheckMode {
  const v = (env.TSGPU_TYPECHECK ?? "").trim().toLowerCase();
  return (TYPECHECK_MODES as readonly string[]).includes(v) ? v as TypecheckMode : "on";
}

/** A cell handed to the checker: its diagnostics arrive later; commit once it ran. */
export interface PendingCheck {
  seq: number;
  /** Resolves with the cell's diagnostics ([] when checking is off or unavailable). */
  diagnostics: Promise<CellDiagnostic[]>;
  /** The diagnostics, when they are known at once (a cell run again with nothing changed in between): no need to wait. */
  known?: CellDiagnostic[];
}

interface Waiter { resolve(v: unknown): void }

const kernelRoot = join(__dirname, "..", "..", "..");
/** The checker's project setup for a notebook folder. */
export function checkerSetup(cwd: string): ProjectSetup {
  return { cwd, kernelRoot, runtimeTypes: join(kernelRoot, "dist", "native"), ambient: AMBIENT_DECLARATIONS };
}

/**
 * A checker process started at the very beginning of a kernel's process
 * (startCheckerEarly), before the engine that uses it exists: its replies
 * wait here until a TypeChecker for the same folder takes it over.
 */
interface EarlyChecker {
  cwd: string;
  file: string;
  channel: CheckerChannel;
  replies: CheckerReply[];
  failure?: string;
  /** The taker's handlers, once taken. */
  events?: ChannelEvents;
}
let early: EarlyChecker | undefined;

/** How long after a kernel's start the launcher's start file is brought up to date (ms): not while it starts. */
const kStartFileDelayMs = 2000;

/** Ends a checker the launcher started that is not taken over: closing its channel ends it. */
function discard(p: LaunchedChecker | undefined): void {
  if (!p) return;
  try { process.kill(p.pid, "SIGTERM"); } catch { /* gone */ }
  for (const fd of [p.ipcFd, p.stderrFd]) try { closeSync(fd); } catch { /* not open */ }
}

/**
 * Starts the checker process from its snapshot now, if there is one, for
 * the first TypeChecker.start(cwd) to take over: the kernel's own modules
 * load meanwhile, and its first cell waits less for its type warnings.
 * A process the launcher started already from that snapshot (`tsgpu-launch
 * --checker`) is taken over instead; one from another snapshot is ended.
 * Without a snapshot nothing happens here (the thread starts with the engine).
 */
export function startCheckerEarly(cwd = process.cwd(), debug: (text: string) => void = () => undefined): void {
  const launched = takeLaunchedChecker();
  const drop = (why: string) => {
    if (!launched) return;
    discard(launched);
    debug(`ended the checker process ${launched.pid} that the launcher started from ${launched.snapshot}: ${why}`);
  };
  if (early || !snapshotsEnabled()) { drop("checker snapshots are off"); return; }
  const setup = checkerSetup(cwd);
  let file: string;
  try { file = checkerSnapshotFile(setup); } catch { drop("the kernel's files cannot be read"); return; }
  if (!existsSync(file)) { drop(`the kernel's snapshot ${file} is not there`); return; }
  const replies: CheckerReply[] = [];
  let e: EarlyChecker | undefined;
  let failure: string | undefined;
  const events: ChannelEvents = {
    message: (m) => { if (e?.events) e.events.message(m); else replies.push(m); },
    failed: (reason) => { if (e?.events) e.events.failed(reason); else if (e) e.failure ??= reason; else failure ??= reason; },
  };
  try {
    let channel: CheckerChannel;
    if (launched?.snapshot === file) {
      channel = launchedChannel(launched, events);
      debug(`took over the checker process ${launched.pid} that the launcher started`);
    } else {
      drop(`this kernel's snapshot is ${file}`);
      channel = processChannel(setup, file, events);
    }
    e = { cwd, file, channel, replies, failure };
  } catch {
    return; // the thread starts with the engine
  }
  early = e;
  // For the next kernel's launcher: what this one started, once it has started.
  setTimeout(() => writeCheckerStart(setup, file), kStartFileDelayMs).unref();
}

/** With checking off, cells that ran are analyzed (for their declarations) once no cell ran for this long. */
const kIdleMs = 200;
/** Most cells run with checking off that wait for the kernel to idle before they go to the checker. */
const kBacklogCells = 64;
/** Most cells whose diagnostics the main thread remembers. */
const kRememberedCells = 256;

/** What the checker thread answers for a cell. */
interface Analysis { diagnostics: CellDiagnostic[]; version: number; reusable: boolean; pure: boolean }

export class TypeChecker {
  mode: TypecheckMode = initialMode();
  private channel?: CheckerChannel;
  private ready = false;
  /** Why checking is unavailable, once it is known to be. */
  unavailable?: string;
  private nextId = 1;
  private seq = 0;
  private readonly waiters = new Map<number, Waiter>();
  private readyWaiters: (() => void)[] = [];
  /** Cells run with checking off, not yet handed to the checker: by seq, and those that ran, in order. */
  private readonly unsent = new Map<number, string>();
  private readonly backlog: { seq: number; code: string }[] = [];
  private idleTimer?: NodeJS.Timeout;
  /**
   * Diagnostics of cells by text, with the checker's version they were found
   * under (CellLanguage.version: it changes only when a commit changes what
   * later cells see, or a cell imports). A cell run again while the version
   * is the same and nothing is on its way to the checker is answered here,
   * with no message to the checker thread and nothing to commit: committing
   * it again would change nothing, or the version would have moved.
   */
  private readonly remembered = new Map<string, { diagnostics: CellDiagnostic[]; version: number }>();
  /** The checker's version as of its latest answer. */
  private checkerVersion = 0;
  /** Requests that may change the version (analyze, commit, reset), sent and not yet answered. */
  private inFlight = 0;
  /** Ids of the analyze requests among them. */
  private readonly analyzeIds = new Set<number>();
  /** The latest cell answered from `remembered`: its commit sends nothing. */
  private answeredHere?: number;
  /** The latest cell the checker analyzed, and whether it is pure (declares and imports nothing). */
  private lastAnalyzed?: { seq: number; pure: boolean };
  /**
   * A cell that ran before the checker said whether it is pure: its commit
   * waits for that answer (a pure cell's commit changes nothing and is not
   * sent), or goes out ahead of the next request, whichever comes first.
   */
  private deferredCommit?: number;

  /** The snapshot the checker process was started from. */
  private snapshotFile?: string;
  /** Requests sent to a checker process before it was ready. */
  private readonly sentBeforeReady: CheckerRequest[] = [];

  constructor(private readonly log: (text: string) => void = () => undefined) {}

  /**
   * Starts the checker: a process from the checker's startup snapshot when
   * there is one, else a worker thread (and the snapshot is built in the
   * background for the next kernels). It parses the libraries meanwhile.
   */
  start(cwd = process.cwd()): void {
    if (this.channel || this.unavailable) return;
    const setup = checkerSetup(cwd);
    const taken = early?.cwd === cwd ? early : undefined;
    if (taken) {
      early = undefined;
      this.snapshotFile = taken.file;
      this.channel = taken.channel;
      taken.events = this.events(setup);
      for (const m of taken.replies.splice(0)) taken.events.message(m);
      if (taken.failure) taken.events.failed(taken.failure);
      return;
    }
    if (snapshotsEnabled()) {
      let file: string | undefined;
      try { file = checkerSnapshotFile(setup); } catch { /* the kernel's files cannot be read: no snapshot */ }
      if (file && existsSync(file)) {
        this.snapshotFile = file;
        this.channel = this.open(() => processChannel(setup, file!, this.events(setup)));
        return;
      }
      if (file) requestCheckerSnapshot(setup, file, this.log);
    }
    this.channel = this.open(() => threadChannel(setup, this.events(setup)));
  }

  private open(make: () => CheckerChannel): CheckerChannel | undefined {
    try {
      return make();
    } catch (e) {
      this.fail(`cannot start the checker: ${(e as Error).message}`);
      return undefined;
    }
  }

  private events(setup: ProjectSetup) {
    return {
      message: (m: CheckerReply) => this.onReply(m, setup),
      failed: (reason: string) => {
        if (this.unavailable) return;
        // A snapshot that does not start (another Node, a damaged file) is removed; the thread takes over.
        if (this.channel?.kind === "process" && !this.ready && this.snapshotFile) {
          this.log(`${reason}; checking on a thread instead`);
          rmSync(this.snapshotFile, { force: true });
          this.snapshotFile = undefined;
          this.channel = this.open(() => threadChannel(setup, this.events(setup)));
          for (const r of this.sentBeforeReady.splice(0)) this.channel?.post(r);
          return;
        }
        this.fail(reason);
      },
    };
  }

  /** Whether the checker has built its first program (answers come quickly from now on). */
  get warm(): boolean { return this.ready; }

  /** Resolves once the checker is warm (or unavailable), or after timeoutMs. */
  whenReady(timeoutMs: number): Promise<boolean> {
    if (this.ready || this.unavailable) return Promise.resolve(this.ready);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(this.ready), timeoutMs);
      this.readyWaiters.push(() => { clearTimeout(timer); resolve(this.ready); });
    });
  }

  private fail(reason: string): void {
    if (this.unavailable) return;
    this.unavailable = reason;
    this.ready = false;
    this.log(reason);
    for (const w of this.waiters.values()) w.resolve(null);
    this.waiters.clear();
    for (const w of this.readyWaiters.splice(0)) w();
    void this.channel?.terminate();
    this.channel = undefined;
  }

  private onReply(m: CheckerReply, setup: ProjectSetup): void {
    if (m.kind === "snapshot") {
      // A library file changed since the snapshot was made: this checker parsed it anew; the next one gets a new snapshot.
      if (m.stale && this.snapshotFile) {
        rmSync(this.snapshotFile, { force: true });
        requestCheckerSnapshot(setup, this.snapshotFile, this.log);
      }
      return;
    }
    if (m.kind === "ready") {
      this.ready = true;
      this.sentBeforeReady.length = 0;
      if (!m.nodeTypes) this.log("@types/node was not found: Node's globals are unknown to the type checker");
      for (const w of this.readyWaiters.splice(0)) w();
      return;
    }
    if (m.kind === "failed") {
      if (m.id === -1) { this.fail(m.message); return; }
      this.log(`checker: ${m.message}`);
      this.settle(m.id, null);
      return;
    }
    if (m.kind === "applied") { this.inFlight--; this.checkerVersion = m.version; return; }
    if (m.kind === "diagnostics") this.checkerVersion = m.version;
    this.settle(m.id, m.kind === "diagnostics" ? { diagnostics: m.diagnostics, version: m.version, reusable: m.reusable, pure: m.pure } : m.result);
  }

  private settle(id: number, value: unknown): void {
    if (this.analyzeIds.delete(id)) this.inFlight--;
    const w = this.waiters.get(id);
    if (!w) return;
    this.waiters.delete(id);
    w.resolve(value);
  }

  private post(r: CheckerRequest): void {
    if (!this.channel) return;
    const deferred = this.deferredCommit;
    if (deferred !== undefined) {
      this.deferredCommit = undefined;
      if (!(r.kind === "commit" && r.seq === deferred)) this.post({ kind: "commit", seq: deferred });
    }
    if (r.kind === "analyze") this.analyzeIds.add(r.id);
    if (r.kind === "analyze" || r.kind === "commit" || r.kind === "reset") this.inFlight++;
    // Kept until the checker is ready: a snapshot that fails to start hands them to the thread instead.
    if (!this.ready && this.channel.kind === "process") this.sentBeforeReady.push(r);
    this.channel.post(r);
  }

  private ask<T>(make: (id: number) => CheckerRequest): Promise<T | null> {
    if (!this.channel) return Promise.resolve(null);
    const id = this.nextId++;
    const p = new Promise<T | null>((resolve) => this.waiters.set(id, { resolve: resolve as (v: unknown) => void }));
    this.post(make(id));
    return p;
  }

  /**
   * Hands a cell (magics already rewritten) to the checker. Its declarations
   * are kept for later cells once commit(seq) says it ran; diagnostics are
   * computed unless the mode is "off".
   */
  analyze(code: string): PendingCheck {
    const seq = ++this.seq;
    // Arithmetic on literals declares nothing and has no diagnostics: answered here, nothing to commit.
    if (isLiteralArithmetic(code)) {
      this.answeredHere = seq;
      return { seq, diagnostics: Promise.resolve([]), known: [] };
    }
    // A cell run before the thread was started starts it: its diagnostics come once the thread is warm.
    this.start();
    if (this.mode === "off") {
      // Only the declarations matter: they are worked out once the kernel is idle (see commit).
      this.unsent.set(seq, code);
      return { seq, diagnostics: Promise.resolve([]) };
    }
    this.flushBacklog();
    const hit = this.inFlight === 0 && this.deferredCommit === undefined ? this.remembered.get(code) : undefined;
    if (hit && hit.version === this.checkerVersion) {
      this.answeredHere = seq;
      return { seq, diagnostics: Promise.resolve(hit.diagnostics), known: hit.diagnostics };
    }
    const diagnostics = this.ask<Analysis>((id) => ({ kind: "analyze", id, seq, code, withDiagnostics: true }))
      .then((a) => {
        const pure = a?.pure ?? false;
        this.lastAnalyzed = { seq, pure };
        if (this.deferredCommit === seq) {
          this.deferredCommit = undefined;
          if (!pure) this.post({ kind: "commit", seq });
        }
        if (a?.reusable) this.remember(code, a.diagnostics, a.version);
        return a?.diagnostics ?? [];
      });
    return { seq, diagnostics };
  }

  private remember(code: string, diagnostics: CellDiagnostic[], version: number): void {
    this.remembered.delete(code);
    if (this.remembered.size >= kRememberedCells) this.remembered.delete(this.remembered.keys().next().value!);
    this.remembered.set(code, { diagnostics, version });
  }

  /** The cell analyzed as seq ran: later cells see its declarations. */
  commit(seq: number): void {
    if (this.answeredHere === seq) return;
    const code = this.unsent.get(seq);
    if (code === undefined) {
      if (this.lastAnalyzed?.seq !== seq) this.deferredCommit = seq;
      else if (!this.lastAnalyzed.pure) this.post({ kind: "commit", seq });
      return;
    }
    this.unsent.delete(seq);
    // Running the same cell again replaces what it declared: one analysis does for both.
    const last = this.backlog[this.backlog.length - 1];
    if (last && last.code === code) this.backlog.pop();
    this.backlog.push({ seq, code });
    // A kernel that never idles (cells back to back) hands them over in batches, so the backlog stays small.
    if (this.backlog.length >= kBacklogCells) { this.flushBacklog(); return; }
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.flushBacklog(), kIdleMs);
    this.idleTimer.unref();
  }

  /** Hands the cells that ran with checking off to the checker, so later requests see their declarations. */
  private flushBacklog(): void {
    if (this.idleTimer) { clearTimeout(this.idleTimer); this.idleTimer = undefined; }
    for (const { seq, code } of this.backlog.splice(0)) {
      void this.ask((id) => ({ kind: "analyze", id, seq, code, withDiagnostics: false }));
      this.post({ kind: "commit", seq });
    }
  }

  /**
   * Resolves once every request that may change what cells see (analyze,
   * commit, reset) has been answered, or after timeoutMs; true if settled.
   */
  async settled(timeoutMs: number): Promise<boolean> {
    const end = Date.now() + timeoutMs;
    while (this.inFlight > 0 && this.channel && Date.now() < end) await new Promise((r) => setTimeout(r, 2));
    return this.inFlight === 0;
  }

  /** Forgets the declarations of all cells so far (after %reset). */
  reset(): void {
    this.backlog.length = 0;
    this.unsent.clear();
    this.post({ kind: "reset" });
  }

  /** Completions at a UTF-16 offset, or null (not warm, nothing known, or no answer within timeoutMs). */
  complete(code: string, offset: number, timeoutMs: number): Promise<CompletionResult | null> {
    if (!this.ready) return Promise.resolve(null);
    this.flushBacklog();
    return withTimeout(this.ask<CompletionResult>((id) => ({ kind: "complete", id, code, offset })), timeoutMs);
  }

  /** Signature and documentation at a UTF-16 offset, or null. */
  inspect(code: string, offset: number, timeoutMs: number): Promise<InspectionResult | null> {
    if (!this.ready) return Promise.resolve(null);
    this.flushBacklog();
    return withTimeout(this.ask<InspectionResult>((id) => ({ kind: "inspect", id, code, offset })), timeoutMs);
  }

  /**
   * is_complete's parse of a text, by the checker's compiler: null when the
   * checker is not ready (the caller parses it itself), "unknown" when it
   * does not answer in time (it is busy: a flood of them, or a long cell).
   */
  isComplete(source: string, timeoutMs: number): Promise<Completeness | null> {
    if (!this.ready) return Promise.resolve(null);
    return withTimeout(this.ask<Completeness>((id) => ({ kind: "isComplete", id, source })), timeoutMs)
      .then((r) => r ?? { status: "unknown" });
  }

  /** Stops the checker thread. */
  async stop(): Promise<void> {
    const w = this.channel;
    this.unavailable ??= "stopped";
    this.channel = undefined;
    await w?.terminate();
  }
}

function withTimeout<T>(p: Promise<T | null>, ms: number): Promise<T | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    void p.then((v) => { clearTimeout(timer); resolve(v); });
  });
}
