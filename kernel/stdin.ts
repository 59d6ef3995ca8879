/**
 * `await input(prompt)` and `prompt(text)` for cells: an input_request on the
 * stdin channel, answered by the frontend's input_reply. `prompt()` blocks
 * the main thread (the worker fills a shared mailbox) and stops on interrupt.
 */
import type { Transport } from "./transport/bridge";
import type { OutputRouter } from "./execution/output";
import { Message, Origin, reply } from "./protocol/message";
import { InterruptError } from "./execution/interrupt";

export class StdinNotAllowedError extends Error {
  constructor() {
    super("input is not available: the frontend did not allow stdin for this request (allow_stdin is false)");
    this.name = "StdinNotAllowedError";
  }
}

export function installStdin(transport: Transport, router: OutputRouter, origin: Origin) {
  let waiting: ((value: string) => void) | undefined;

  const request = (promptText: string, password: boolean): Message => {
    const scope = router.scope();
    if (!scope || scope.parent.content.allow_stdin === false) throw new StdinNotAllowedError();
    router.flush();
    transport.clearStdin();
    const msg = reply(scope.parent, "input_request", { prompt: String(promptText ?? ""), password }, origin);
    transport.send("stdin", msg);
    return scope.parent;
  };

  const input = (promptText = "", options: { password?: boolean } = {}): Promise<string> => {
    request(promptText, Boolean(options.password));
    const signal = router.scope()?.signal;
    return new Promise((resolve, reject) => {
      waiting = (v) => { transport.clearStdin(); resolve(v); };
      signal?.addEventListener("abort", () => reject(new InterruptError()), { once: true });
    });
  };

  const prompt = (promptText = ""): string => {
    request(promptText, false);
    const value = transport.waitStdinSync();
    if (value === null) throw new InterruptError();
    return value;
  };

  for (const [k, v] of Object.entries({ input, prompt })) {
    Object.defineProperty(globalThis, k, { value: v, writable: true, configurable: true, enumerable: false });
  }

  return {
    onReply(msg: Message): void {
      const w = waiting;
      waiting = undefined;
      w?.(String(msg.content.value ?? ""));
    },
  };
}
