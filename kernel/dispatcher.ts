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
import { admit, Inbound, InboundType, InvalidRequestError } from "./protocol/inbound";
import { answer, AnswerSink, ReplyContent } from "./protocol/bracket";
import type { DropLog } from "./protocol/drop_log";

/** The msg_types a handler answers (input_reply goes to the stdin socket's reader, not to a handler). */
export type RequestType = Exclude<InboundType, "input_reply">;

/** What a handler may do besides returning its reply content. */
export interface RequestContext<T extends RequestType = RequestType> {
  readonly channel: "shell" | "control";
  readonly msg: Inbound<T>;
  /** Sends a message on iopub whose parent is this request. */
  publish(msgType: string, content: Record<string, unknown>, metadata?: Record<string, unknown>): void;
  /** Answers "aborted" to the execute requests already waiting (after an error with stop_on_error). */
  abortQueued(): void;
}

/** Returns the reply content (with `status`); `null` means "no reply" (e.g. comm_msg). */
export type Handler<T extends RequestType = RequestType> = (ctx: RequestContext<T>) => Promise<ReplyContent> | ReplyContent;

/** The handler table: each entry receives requests of its own type, already checked. */
export type Handlers = { [T in RequestType]?: Handler<T> };

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
   * Set by abortQueued: execute requests are answered "aborted" until the
   * event loop has delivered those that came while the failing cell ran
   * (they were sent before the user could see the error), as ipykernel does:
   * the flag is cleared in the loop's check phase, after its poll phase has
   * read every request waiting in the socket.
   */
  private aborting = false;

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
        if (this.aborting && msg.header?.msg_type === "execute_request") this.respond("shell", msg, () => ({ status: "aborted" }));
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
      abortQueued: () => {
        if (this.aborting) return;
        this.aborting = true;
        setImmediate(() => { this.aborting = false; });
      },
    };
    await this.respond(channel, msg, () => handler(ctx));
    if (type === "execute_request") this.onIdle();
  }
}
