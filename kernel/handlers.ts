/** The shell and control handler table: one entry per msg_type. */
import type { Handlers, RequestContext } from "./dispatcher";
import type { ExecutionEngine } from "./execution/engine";
import type { History } from "./history";
import type { CommRegistry } from "./comms";
import { mimeBundle, plainText } from "./display";
import { completeWithTypes, inspectWithTypes, MagicCatalog } from "./language/language";
import { isComplete } from "./execution/completeness";
import { helpPage, helpRequest } from "./execution/help";
import { errorMessage, errorName } from "./execution/traceback";

export interface HandlerDeps {
  engine: ExecutionEngine;
  history: History;
  kernelInfo(): Record<string, unknown>;
  /** Ends the process after the reply is sent. */
  shutdown(restart: boolean): void;
  comms: CommRegistry;
  /** The magics, for their completion and help. */
  magics: MagicCatalog;
  /** Runs `fn` with output (console.*, display, comm messages) going to `msg`. */
  withParent<T>(msg: RequestContext["msg"], fn: () => T): T;
  log(text: string): void;
}

/** `exit` or `quit` alone in a cell (`exit()`, `quit;` too): IPython's way out of a console. */
const EXIT = /^\s*(exit|quit)\s*(?:\(\s*\))?\s*;?\s*$/;

async function execute(d: HandlerDeps, ctx: RequestContext<"execute_request">): Promise<Record<string, unknown>> {
  const c = ctx.msg.content;
  const code = c.code;
  const silent = Boolean(c.silent);
  const storeHistory = silent ? false : c.store_history !== false;
  const count = d.engine.executionCount + (storeHistory ? 1 : 0);
  if (!silent) ctx.publish("execute_input", { code, execution_count: count });

  const help = helpRequest(code);
  if (help) {
    if (storeHistory) { d.engine.executionCount++; d.history.add(count, code); }
    const page = await helpPage(help, { checker: d.engine.checker, magics: d.magics, cells: () => [...d.engine.cells.values()] });
    const data = page ?? { "text/plain": `Object \`${help.magic ? "%" : ""}${help.name}\` not found.` };
    return { status: "ok", execution_count: count, user_expressions: {}, payload: [{ source: "page", data, start: 0 }] };
  }

  // As ipykernel: the reply asks the client to leave and end the kernel (a console does; a notebook shows
  // nothing), unless a cell has defined the name.
  const exit = EXIT.exec(code);
  if (exit && !d.engine.userNames.has(exit[1])) {
    if (storeHistory) { d.engine.executionCount++; d.history.add(count, code); }
    return { status: "ok", execution_count: count, user_expressions: {}, payload: [{ source: "ask_exit", keepkernel: false }] };
  }

  if (storeHistory) d.history.add(count, code);
  const outcome = await d.engine.execute(code, ctx.msg, { storeHistory, silent });
  if (outcome.status === "error") {
    ctx.publish("error", { ...outcome.error });
    if (c.stop_on_error !== false) await ctx.abortQueued();
    return { status: "error", execution_count: outcome.executionCount, ...outcome.error };
  }
  if (outcome.hasResult) {
    let data: Record<string, unknown>;
    try {
      data = mimeBundle(outcome.result);
    } catch (e) {
      // The value's own mime bundle is malformed: the cell fails, saying why.
      const error = { ename: errorName(e), evalue: errorMessage(e), traceback: [`${errorName(e)}: ${errorMessage(e)}`] };
      ctx.publish("error", error);
      return { status: "error", execution_count: outcome.executionCount, ...error };
    }
    ctx.publish("execute_result", { execution_count: outcome.executionCount, data, metadata: {} });
    if (storeHistory) d.history.setOutput(count, String(data["text/plain"]));
  }
  const userExpressions: Record<string, unknown> = {};
  for (const [key, expr] of Object.entries(c.user_expressions ?? {})) {
    try {
      userExpressions[key] = { status: "ok", data: mimeBundle(await d.engine.evaluate(expr)), metadata: {} };
    } catch (e) {
      userExpressions[key] = { status: "error", ename: errorName(e), evalue: errorMessage(e), traceback: [] };
    }
  }
  return { status: "ok", execution_count: outcome.executionCount, user_expressions: userExpressions, payload: [] };
}

/**
 * How long is_complete waits for the type checker's parse before it answers
 * `unknown` (the checker takes it ahead of cells waiting to be analyzed, so
 * at most the request in progress is before it).
 */
const kIsCompleteWaitMs = 2000;

/** The one handler table, for shell and control (the socket thread answers a few control requests itself: worker.ts). */
export function makeHandlers(d: HandlerDeps): Handlers {
  return {
    kernel_info_request: () => d.kernelInfo(),
    execute_request: (ctx) => execute(d, ctx),
    is_complete_request: (ctx) => isComplete(ctx.msg.content.code, (source) => d.engine.checker.isComplete(source, kIsCompleteWaitMs)),
    complete_request: (ctx) => completeWithTypes(d.engine.checker, ctx.msg.content.code, ctx.msg.content.cursor_pos, d.engine.userNames, d.magics),
    inspect_request: (ctx) => inspectWithTypes(d.engine.checker, ctx.msg.content.code, ctx.msg.content.cursor_pos, d.magics),
    history_request: (ctx) => ({ status: "ok", history: d.history.query(ctx.msg.content) }),
    comm_info_request: (ctx) => ({ status: "ok", comms: d.comms.list(ctx.msg.content.target_name ?? undefined) }),
    comm_open: async (ctx) => { await d.withParent(ctx.msg, () => d.comms.onOpen(ctx.msg)); return null; },
    comm_msg: async (ctx) => { await d.withParent(ctx.msg, () => d.comms.onMsg(ctx.msg)); return null; },
    comm_close: async (ctx) => { await d.withParent(ctx.msg, () => d.comms.onClose(ctx.msg)); return null; },
    shutdown_request: (ctx) => {
      const restart = ctx.msg.content.restart === true;
      d.shutdown(restart);
      return { status: "ok", restart };
    },
  };
}

export { plainText };
