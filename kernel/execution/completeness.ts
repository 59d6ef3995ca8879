/**
 * is_complete: whether a console should run the code typed so far, ask for
 * another line, or say it is wrong — as IPython answers for Python.
 *
 *   - `complete`: the code parses, or it is a line magic or a help request
 *     (`%memory`, `?torch.randn`, `%memory?`);
 *   - `incomplete`: the only errors are at the end, and something there can
 *     still be closed or finished by more lines: an open bracket or block, a
 *     template literal, a block comment, a string continued with `\`, or a
 *     statement header whose body is still to come (`if (x)`, `else`, `=>`);
 *     a cell magic (`%%name`) until a blank line ends its body;
 *   - `invalid`: anything no further input can fix (`let z = ;`, `1 +`).
 *
 * The parse itself (language/completeness_scan.ts) needs the TypeScript
 * compiler, about 90 MiB once loaded: the type checker, which has it loaded
 * already, is asked; only where there is no checker ready does this thread
 * load the compiler and answer itself. A checker that does not answer in
 * time (busy with a long cell, or a flood of requests) makes the answer
 * `unknown`, which tells a console to decide by itself.
 */
import { Completeness, sourceCompleteness } from "../language/completeness_scan";
import { typescript } from "../language/typescript_module";
import { rewriteMagics } from "./engine";
import { helpRequest } from "./help";

export type { Completeness } from "../language/completeness_scan";

/** Asks the type checker for a text's completeness; null when it cannot answer. */
export type AskCompleteness = (source: string) => Promise<Completeness | null>;

/**
 * Longer texts are answered `unknown` (the console decides) without a
 * parse: a console asks after each line typed, and a megabyte of text from
 * anyone who can reach the port would otherwise be parsed, and its garbage
 * kept, by the checker or this thread.
 */
export const kIsCompleteMaxChars = 64 * 1024;

export async function isComplete(code: string, ask?: AskCompleteness): Promise<Completeness> {
  if (code.length > kIsCompleteMaxChars) return { status: "unknown" };
  if (!code.trim() || helpRequest(code)) return { status: "complete" };
  if (/^%%/.test(code.trimStart())) return /\n[ \t]*\n?$/.test(code) ? { status: "complete" } : { status: "incomplete", indent: "" };
  const source = rewriteMagics(code);
  return (ask ? await ask(source) : null) ?? sourceCompleteness(typescript(), source);
}
