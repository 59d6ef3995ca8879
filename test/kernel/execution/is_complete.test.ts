/**
 * is_complete through a real kernel, as a console asks it after each line:
 * `invalid` where no further input can fix the code, `incomplete` only where
 * something open at the end can still be closed, magic and help lines
 * `complete`.
 */
import type { KernelClient } from "../../../kernel/transport/client";
import { kernelForFile } from "../engine_helpers";

jest.setTimeout(60000);

let k!: KernelClient;
kernelForFile((c) => { k = c; });

async function isComplete(code: string): Promise<Record<string, unknown>> {
  const { reply } = await k.request("is_complete_request", { code });
  return reply.content;
}

test.each([
  ["let z = ;", "an expression missing before the line ends"],
  ["let a = 1 +", "an operator with nothing after it, outside any bracket"],
  ["const s = 'unfinished", "a quoted string: it cannot go on to the next line"],
  ["let z = ;\nfoo(", "an error before the end, even with a bracket open after it"],
  ["foo(;", "a bracket closed by nothing but a semicolon"],
  ["const = 5 5;", "a declaration without a name"],
])("invalid: %j (%s)", async (code) => {
  expect(await isComplete(code)).toEqual({ status: "invalid" });
});

test.each([
  ["function f() {", "  "],
  ["foo(", "  "],
  ["const xs = [1, 2,", "  "],
  ["class A {\n  m() {", "    "],
  ["const t = `a template", ""],
  ["const t = `a ${b", "  "],
  ["const t = `a ${ {b: 1}.b } c", ""],
  ["/* a comment", ""],
  ["const s = 'continued \\", ""],
  ["if (ready)", "  "],
  ["for await (const x of source)", "  "],
  ["const f = (x: number) =>", "  "],
  ["%memory\nfunction g() {", "  "],
  ["%%time", ""],
])("incomplete: %j, indent %j", async (code, indent) => {
  expect(await isComplete(code)).toEqual({ status: "incomplete", indent });
});

test.each([
  "%memory", "%memory --summary cpu", "  %reset -f", "%lsmagic\nconst a = 1;", "%nosuchmagic",
  "?torch.randn", "torch.randn?", "??torch.randn", "%pinfo torch", "?%memory", "%memory?",
  "%%time\nconst a = 1;\n", "const a = 1;", "do {} while (x)", "",
])("complete: %j", async (code) => {
  expect(await isComplete(code)).toEqual({ status: "complete" });
});

test("a text longer than 64 KiB is answered unknown without a parse: the console decides", async () => {
  expect(await isComplete(`let big = "${"x".repeat(70_000)}";`)).toEqual({ status: "unknown" });
  expect(await isComplete(`let fits = "${"x".repeat(60_000)}";`)).toEqual({ status: "complete" });
});
