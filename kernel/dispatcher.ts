/**
 * The protocol core: a table from msg_type to handler. It knows neither the
 * wire (zeromq, signatures) nor the language (TypeScript): it receives decoded
 * requests, brackets each with iopub busy/idle, and sends the handler's
 * content back as the reply. A handler that throws is logged and answered with
 * `status: "error"`; it never takes the kernel down. Unknown types are logged
 * and ignored, as the spec asks.
 */
import { Channel, errorReplyContent, Message, Origin, reply, replyType } from "./protocol/message";

/** What a handler may do besides returning its reply content. */
export interface RequestContext {
  readonly channel: "shell" | "control";
  readonly msg: Message;
  /** Sends a message on iopub whose parent is this request. */
  publish(msgType: string, content: Record<string, unknown>, metadata?: Record<string, unknown>): void;
  /** Answers "aborted" to the execute requests already waiting (after an error with stop_on_error). */
  abortQueued(): void;
}

/** Returns the reply content (with `status`); `null` means "no reply" (e.g. comm_msg). */
export type Handler = (ctx: RequestContext) => Promise<Record<string, unknown> | null> | Record<string, unknown> | null;

export interface Sender {
  send(channel: Channel, msg: Message): void;
}

export class Dispatcher {
  private readonly queue: Message[] = [];
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
              private readonly handlers: Record<string, Handler>,
              private readonly log: (text: string) => void,
              /** Called after each request, when the kernel goes idle. */
              private readonly onIdle: () => void = () => undefined) {}

  /** Entry point for decoded requests. Shell requests run one at a time, in order; control ones at once. */
  receive(channel: "shell" | "control", msg: Message): void {
    if (channel === "control") { void this.handle("control", msg); return; }
    this.queue.push(msg);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length) {
        const msg = this.queue.shift()!;
        if (this.aborting && msg.header.msg_type === "execute_request") this.answerAborted(msg);
        else await this.handle("shell", msg);
      }
    } finally {
      this.running = false;
    }
  }

  private answerAborted(msg: Message): void {
    this.publish(msg, "status", { execution_state: "busy" });
    // No execution_count: the cell did not run (the spec, and ipykernel, send only the status; a strict client reads a missing count, not a null one).
    this.sender.send("shell", reply(msg, replyType(msg.header.msg_type), { status: "aborted" }, this.origin));
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
      abortQueued: () => {
        if (this.aborting) return;
        this.aborting = true;
        setImmediate(() => { this.aborting = false; });
      },
    };
    let content: Record<string, unknown> | null;
    try {
      content = await handler(ctx);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      this.log(`handler for ${type} failed: ${err.stack}`);
      content = errorReplyContent(type, err);
    }
    if (content) this.sender.send(channel, reply(msg, replyType(type), content, this.origin));
    this.publish(msg, "status", { execution_state: "idle" });
    if (type === "execute_request") this.onIdle();
  }
}
