/**
 * The protocol core: a table from msg_type to handler. It knows neither the
 * wire (zeromq, signatures) nor the language (TypeScript): it receives decoded
 * requests, brackets each with iopub busy/idle, and sends the handler's
 * content back as the reply. A handler that throws is logged and answered with
 * `status: "error"`; it never takes the kernel down. Unknown types are logged
 * and ignored, as the spec asks.
 */
import { Channel, Message, Origin, reply, replyType } from "./protocol/message";

/** What a handler may do besides returning its reply content. */
export interface RequestContext {
  readonly channel: "shell" | "control";
  readonly msg: Message;
  /** Sends a message on iopub whose parent is this request. */
  publish(msgType: string, content: Record<string, unknown>, metadata?: Record<string, unknown>): void;
  /** Answers "aborted" to execute requests received before now (after an error with stop_on_error). */
  abortQueued(): void;
}

/** Returns the reply content (with `status`); `null` means "no reply" (e.g. comm_msg). */
export type Handler = (ctx: RequestContext) => Promise<Record<string, unknown> | null> | Record<string, unknown> | null;

export interface Sender {
  send(channel: Channel, msg: Message): void;
}

import { monotonicMs } from "./transport/clock";

export class Dispatcher {
  private readonly queue: { msg: Message; receivedAt: number }[] = [];
  private running = false;
  /** execute_requests received before this time (monotonic ms) are answered "aborted". */
  private abortBefore = -Infinity;

  constructor(private readonly sender: Sender, private readonly origin: Origin,
              private readonly handlers: Record<string, Handler>,
              private readonly log: (text: string) => void,
              /** Called after each request, when the kernel goes idle. */
              private readonly onIdle: () => void = () => undefined) {}

  /** Entry point for decoded requests. Shell requests run one at a time, in order; control ones at once. */
  receive(channel: "shell" | "control", msg: Message, receivedAt = monotonicMs()): void {
    if (channel === "control") { void this.handle("control", msg); return; }
    this.queue.push({ msg, receivedAt });
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) {
        const { msg, receivedAt } = this.queue.shift()!;
        if (receivedAt < this.abortBefore && msg.header.msg_type === "execute_request") this.answerAborted(msg);
        else await this.handle("shell", msg);
      }
    } finally {
      this.running = false;
    }
  }

  private answerAborted(msg: Message): void {
    this.publish(msg, "status", { execution_state: "busy" });
    this.sender.send("shell", reply(msg, replyType(msg.header.msg_type), { status: "aborted", execution_count: null }, this.origin));
    this.publish(msg, "status", { execution_state: "idle" });
  }

  private publish(parent: Message, msgType: string, content: Record<string, unknown>, metadata: Record<string, unknown> = {}): void {
    this.sender.send("iopub", reply(parent, msgType, content, this.origin, metadata));
  }

  private async handle(channel: "shell" | "control", msg: Message): Promise<void> {
    const type = msg.header.msg_type;
    const handler = this.handlers[type];
    if (!handler) { this.log(`ignored a ${channel} message of unknown type ${type}`); return; }
    this.publish(msg, "status", { execution_state: "busy" });
    const ctx: RequestContext = {
      channel, msg,
      publish: (t, c, m) => this.publish(msg, t, c, m),
      // Requests already received when the error happened were sent before the user could see it.
      abortQueued: () => { this.abortBefore = monotonicMs(); },
    };
    let content: Record<string, unknown> | null;
    try {
      content = await handler(ctx);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      this.log(`handler for ${type} failed: ${err.stack}`);
      content = { status: "error", ename: err.name, evalue: err.message, traceback: [String(err.stack)] };
    }
    if (content) this.sender.send(channel, reply(msg, replyType(type), content, this.origin));
    this.publish(msg, "status", { execution_state: "idle" });
    if (type === "execute_request") this.onIdle();
  }
}
