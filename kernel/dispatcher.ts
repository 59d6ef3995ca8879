/**
 * The protocol core: one table from msg_type to handler, serving shell and
 * control alike. It knows neither the wire (zeromq, signatures) nor the
 * language (TypeScript): it receives decoded requests, checks each at the
 * boundary (inbound.ts: a malformed request gets an error reply naming the
 * field, a message that cannot be answered is dropped and logged), and
 * answers the rest through `answer` (busy, reply, idle). A handler that throws
 * is logged and answered with `status: "error"`; it never takes the kernel
 * down.
 */
import { Channel, Message, Origin, reply } from "./protocol/message";
import { admit, Inbound, InvalidRequestError } from "./protocol/inbound";
import type { MainThreadType } from "./protocol/message_types";
import { answer, AnswerSink, ReplyContent } from "./protocol/bracket";
import type { DropLog } from "./protocol/drop_log";

/**
 * The msg_types the main thread's handlers answer: from the request table (protocol/message_types.ts),
 * every type that may come on shell and the control requests the socket thread forwards.
 */
export type RequestType = MainThreadType;

/** What a handler may do besides returning its reply content. */
export interface RequestContext<T extends RequestType = RequestType> {
  readonly channel: "shell" | "control";
  readonly msg: Inbound<T>;
  /** Sends a message on iopub whose parent is this request. */
  publish(msgType: string, content: Record<string, unknown>, metadata?: Record<string, unknown>): void;
  /**
   * Marks the execute requests that came while this one ran to be answered
   * "aborted" (after an error with stop_on_error). Resolves once the requests
   * already waiting in the socket have been read; call it before the reply
   * goes out, so that what a client sends after seeing the error runs.
   */
  abortQueued(): Promise<void>;
}

/** Returns the reply content (with `status`); `null` means "no reply" (e.g. comm_msg). */
export type Handler<T extends RequestType = RequestType> = (ctx: RequestContext<T>) => Promise<ReplyContent> | ReplyContent;

/** The handler table: one entry for each type, receiving requests of its own type, already checked. */
export type Handlers = { [T in RequestType]: Handler<T> };

export interface Sender {
  send(channel: Channel, msg: Message): void;
}

/**
 * How many shell requests may wait, and how many of their bytes (about),
 * before the kernel stops reading its shell socket: zeromq then holds further
 * messages (up to its high-water mark) and the sender waits. Without the
 * limit a client sending faster than cells run would grow the kernel's memory
 * without bound.
 */
export const kMaxQueued = 256;
export const kMaxQueuedBytes = 64 << 20;

export class Dispatcher {
  private readonly queue: { msg: Message; bytes: number }[] = [];
  private queuedBytes = 0;
  /** Resolves the reader that waits for room in the queue. */
  private roomWaiter?: () => void;
  private running = false;
  /**
   * The requests that abortQueued marked: answered "aborted" when their turn
   * comes. Only what came while the failing cell ran (sent before the user
   * could see the error) is marked, as ipykernel does; a request sent after
   * the error's reply runs.
   */
  private readonly toAbort = new WeakSet<Message>();

  constructor(private readonly sender: Sender, private readonly origin: Origin,
              private readonly handlers: Handlers,
              private readonly log: (text: string) => void,
              private readonly drops: DropLog,
              /** Called after each request, when the kernel goes idle. */
              private readonly onIdle: () => void = () => undefined) {}

  /**
   * Entry point for decoded requests. Shell requests run one at a time, in
   * order; control ones at once. Returns a promise when the shell queue is
   * full: the caller reads no more until it resolves (`bytes` is the size of
   * the message's frames).
   */
  receive(channel: "shell" | "control", msg: Message, bytes = 0): void | Promise<void> {
    if (channel === "control") { void this.handle("control", msg); return; }
    this.queue.push({ msg, bytes });
    this.queuedBytes += bytes;
    if (!this.running) void this.drain();
    if (this.queue.length < kMaxQueued && this.queuedBytes < kMaxQueuedBytes) return;
    return new Promise<void>((resolve) => { this.roomWaiter = resolve; });
  }

  /**
   * Whether an execute request waits in the queue and will run (not one to be
   * answered "aborted"): an interrupt that comes now is for its cell. (The
   * request being answered needs no such check: between the moment it leaves
   * the queue and the moment its cell begins, nothing else runs on this thread.)
   */
  executeQueued(): boolean {
    return this.queue.some((q) => !this.toAbort.has(q.msg) && isExecute(q.msg));
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) {
        const { msg, bytes } = this.queue.shift()!;
        this.queuedBytes -= bytes;
        if (this.roomWaiter && this.queue.length < kMaxQueued / 2 && this.queuedBytes < kMaxQueuedBytes / 2) {
          this.roomWaiter();
          this.roomWaiter = undefined;
        }
        if (this.toAbort.has(msg)) this.respond("shell", msg, () => ({ status: "aborted" }));
        else await this.handle("shell", msg);
      }
    } finally {
      this.running = false;
    }
  }

  private sink(channel: "shell" | "control"): AnswerSink {
    return { publish: (m) => this.sender.send("iopub", m), reply: (m) => this.sender.send(channel, m) };
  }

  private respond(channel: "shell" | "control", msg: Message, produce: () => ReplyContent | Promise<ReplyContent>,
                  onError = (err: Error) => this.log(`handler for ${msg.header.msg_type} failed: ${err.stack}`)): void | Promise<void> {
    return answer(msg, this.origin, this.sink(channel), produce, onError);
  }

  private async handle(channel: "shell" | "control", raw: Message): Promise<void> {
    const admission = admit(channel, raw);
    if (admission.kind === "drop") { this.drops.drop(channel, "not a request it can answer", admission.reason); return; }
    if (admission.kind === "reject") {
      this.drops.reject(channel, "malformed request", admission.reason);
      const err = new InvalidRequestError(admission.reason);
      // Logged above, under the rate limit.
      this.respond(channel, raw, () => { throw err; }, () => undefined);
      return;
    }
    const msg = admission.msg;
    const type = msg.header.msg_type as RequestType;
    const handler = this.handlers[type] as Handler | undefined;
    if (!handler) { this.drops.drop(channel, "no handler", `a ${channel} ${type}: this kernel has no handler for it here`); return; }
    const ctx: RequestContext = {
      channel, msg: msg as Inbound<RequestType>,
      publish: (t, c, m = {}) => this.sender.send("iopub", reply(msg, t, c, this.origin, m)),
      abortQueued: async () => {
        // One turn of the event loop: its poll phase reads every request already waiting in the socket into the
        // queue. The reply has not gone out yet, so each of them was sent before the client saw the error.
        await new Promise<void>((resolve) => setImmediate(resolve));
        // Only well-formed ones: a malformed request is dropped or rejected in its turn, as always (an "aborted"
        // reply would carry its broken header as the parent).
        for (const q of this.queue) if (isExecute(q.msg)) this.toAbort.add(q.msg);
      },
    };
    await this.respond(channel, msg, () => handler(ctx));
    if (type === "execute_request") this.onIdle();
  }
}

/** A well-formed execute request (one the inbound check admits). */
function isExecute(msg: Message): boolean {
  return msg.header?.msg_type === "execute_request" && admit("shell", msg).kind === "ok";
}
