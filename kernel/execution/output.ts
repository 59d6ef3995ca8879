/**
 * Routes what user code writes (stdout, stderr, display calls) to the cell
 * that started it. Each cell runs inside an AsyncLocalStorage scope, so text
 * written by a timer or a promise after its cell returned still goes to that
 * cell. Stream text is batched: one `stream` message per burst, not per write.
 */
import { AsyncLocalStorage } from "async_hooks";
import type { Message } from "../protocol/message";

export interface CellScope {
  /** The execute_request this output belongs to. */
  parent: Message;
  executionCount: number;
  /** Fires when the cell is interrupted. */
  signal: AbortSignal;
}

export type Publish = (parent: Message, msgType: string, content: Record<string, unknown>, metadata?: Record<string, unknown>) => void;

/** A burst is sent at the latest after this long, even while a synchronous loop keeps writing. */
const kFlushIntervalMs = 50;
/** …or once it holds this many characters. */
const kFlushChars = 64 * 1024;

interface Pending { parent: Message; name: "stdout" | "stderr"; text: string }

export class OutputRouter {
  readonly scopes = new AsyncLocalStorage<CellScope>();
  /** The scope of the request being handled now; used when no async scope is active. */
  current: CellScope | undefined;
  private pending: Pending[] = [];
  private lastFlush = Date.now();
  private scheduled = false;
  private lastParent: Message | undefined;

  constructor(private readonly publishRaw: Publish) {}

  scope(): CellScope | undefined {
    return this.scopes.getStore() ?? this.current;
  }

  write(name: "stdout" | "stderr", text: string): void {
    const scope = this.scope();
    if (!scope || !text) return;
    const last = this.pending[this.pending.length - 1];
    // A request's first output goes out at once: the cell may block right after it (a long loop).
    const leading = scope.parent !== this.lastParent;
    this.lastParent = scope.parent;
    if (last && last.parent === scope.parent && last.name === name) last.text += text;
    else this.pending.push({ parent: scope.parent, name, text });
    const size = this.pending.reduce((n, p) => n + p.text.length, 0);
    if (leading || size >= kFlushChars || Date.now() - this.lastFlush >= kFlushIntervalMs) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => { this.scheduled = false; this.flush(); });
    }
  }

  /** Sends pending stream text now (before any other output of the cell, to keep the order). */
  flush(): void {
    const pending = this.pending;
    if (!pending.length) return;
    this.lastFlush = Date.now();
    this.pending = [];
    for (const p of pending) this.publishRaw(p.parent, "stream", { name: p.name, text: p.text });
  }

  /** Publishes a message for the calling cell, after its pending stream text. */
  publish(msgType: string, content: Record<string, unknown>, metadata: Record<string, unknown> = {}): void {
    const scope = this.scope();
    if (!scope) return;
    this.flush();
    this.publishRaw(scope.parent, msgType, content, metadata);
  }

  /** Sends process.stdout / process.stderr writes (and so console.*) through this router. */
  captureProcessStreams(): void {
    for (const name of ["stdout", "stderr"] as const) {
      const stream = process[name] as NodeJS.WriteStream;
      stream.write = ((chunk: any, encoding?: any, cb?: any) => {
        const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString(typeof encoding === "string" ? encoding as BufferEncoding : "utf8");
        this.write(name, text);
        const done = typeof encoding === "function" ? encoding : cb;
        if (typeof done === "function") process.nextTick(done);
        return true;
      }) as typeof stream.write;
    }
  }
}
