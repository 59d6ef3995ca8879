/**
 * How a kernel answers a request, written once: iopub `busy` (parented to
 * the request), the reply on the request's channel, iopub `idle`. Every
 * thread and every path (handlers, aborted cells, rejected requests, the
 * socket thread's control answers, the kernel_info answered during start)
 * goes through `answer`. Pure: the caller says how to send.
 */
import { Message, Origin, reply, replyType } from "./message";
import { errorReplyContent } from "./message_types";

/** Where the three messages go. */
export interface AnswerSink {
  publish(msg: Message): void;
  reply(msg: Message): void;
}

/** Reply content with `status`; null: the request has no reply (comm messages). */
export type ReplyContent = Record<string, unknown> | null;

/**
 * Publishes busy, runs `produce`, sends its content as the reply, publishes
 * idle. A `produce` that throws is answered as an error reply of the
 * request's type (reported to `onError` first); nothing escapes. Sync when
 * `produce` returns a plain value, so a thread that must answer at once does.
 */
export function answer(parent: Message, origin: Origin, sink: AnswerSink,
                       produce: () => ReplyContent | Promise<ReplyContent>,
                       onError: (err: Error) => void = () => undefined): void | Promise<void> {
  const type = parent.header.msg_type;
  sink.publish(reply(parent, "status", { execution_state: "busy" }, origin));
  const asError = (e: unknown) => { const err = e instanceof Error ? e : new Error(String(e)); onError(err); return err; };
  const finish = (content: ReplyContent) => {
    try {
      if (content) sink.reply(reply(parent, replyType(type), content, origin));
    } catch (e) {
      // The reply itself could not be sent (a value too large to encode, say): answer that instead.
      try { sink.reply(reply(parent, replyType(type), errorReplyContent(type, asError(e)), origin)); } catch (again) { asError(again); }
    }
    sink.publish(reply(parent, "status", { execution_state: "idle" }, origin));
  };
  const fail = (e: unknown) => finish(errorReplyContent(type, asError(e)));
  let content: ReplyContent | Promise<ReplyContent>;
  try {
    content = produce();
  } catch (e) {
    fail(e);
    return;
  }
  if (content instanceof Promise) return content.then(finish, fail);
  finish(content);
}
