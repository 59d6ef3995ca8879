/**
 * User code cannot end the kernel: calls that would end the process are
 * refused with a message, and what escapes a cell (timer exceptions,
 * unhandled rejections, stack overflows, a toString that recurses forever,
 * a string too long to exist) is reported as that cell's error, after which
 * the next cell runs with the state kept. A real kernel process.
 */
import { KernelClient } from "../../kernel/transport/client";
import { ofType, startKernel } from "../helpers";

let k: KernelClient;
beforeAll(async () => {
  k = await startKernel({ env: { ...process.env, TSGPU_HISTORY_FILE: "none" } });
  await k.execute("const survivor = 'still here';");
});
afterAll(async () => { await k.shutdown(); });

function alive(): boolean {
  try { process.kill(k.proc!.pid!, 0); return k.proc!.exitCode === null; } catch { return false; }
}

async function nextCellRuns(): Promise<void> {
  const { reply, outputs } = await k.execute("survivor + '!'");
  expect(reply.content.status).toBe("ok");
  expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("'still here!'");
}

describe("calls that would end the process are refused", () => {
  const calls = ["process.exit()", "process.exit(3)", "process.abort()", "process.kill(process.pid)",
    "process.kill(process.pid, 'SIGKILL')", "process.kill(process.pid, 'SIGTERM')", "process.kill(0, 'SIGKILL')",
    "(process as any).reallyExit(1)"];
  for (const call of calls) {
    test(call, async () => {
      const { reply, outputs } = await k.execute(call);
      expect(reply.content.status).toBe("error");
      expect(reply.content.ename).toBe("ProcessExitRefused");
      expect(reply.content.evalue).toMatch(/is refused in a kernel cell: it would end the kernel and lose every variable/);
      expect(ofType(outputs, "error")).toHaveLength(1);
      expect(alive()).toBe(true);
      await nextCellRuns();
    });
  }

  test("signals that do not end the process still go through (0 probes whether a process exists)", async () => {
    const { outputs } = await k.execute("process.kill(process.pid, 0)");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("true");
  });

  test("the replacements cannot be undone by assignment", async () => {
    const { reply } = await k.execute("(process as any).exit = () => 0; process.exit(1)");
    expect(reply.content.ename).toMatch(/ProcessExitRefused|TypeError/);
    expect(alive()).toBe(true);
    await nextCellRuns();
  });
});

describe("what escapes a cell is reported as the cell's error", () => {
  async function errorsOf(code: string) {
    const r = await k.execute(code);
    const parentId = (r.reply.parent_header as any).msg_id;
    const errors = ofType(r.outputs, "error").filter((m) => (m.parent_header as any).msg_id === parentId);
    return { reply: r.reply, errors };
  }

  test("an exception thrown in a timer", async () => {
    const { errors } = await errorsOf("setTimeout(() => { throw new Error('thrown late'); }, 10);\nawait new Promise((r) => setTimeout(r, 200));");
    expect(errors.map((e) => `${e.content.ename}: ${e.content.evalue}`)).toEqual(["Error: thrown late"]);
    await nextCellRuns();
  });

  test("an unhandled rejection", async () => {
    const { errors } = await errorsOf("Promise.reject(new TypeError('nobody caught me'));\nawait new Promise((r) => setTimeout(r, 200));");
    expect(errors.map((e) => `${e.content.ename}: ${e.content.evalue}`)).toEqual(["TypeError: nobody caught me"]);
    await nextCellRuns();
  });

  test("a stack overflow", async () => {
    const { reply } = await errorsOf("function down(n: number): number { return down(n + 1) + 1; }\ndown(0)");
    expect([reply.content.status, reply.content.ename, reply.content.evalue]).toEqual(["error", "RangeError", "Maximum call stack size exceeded"]);
    await nextCellRuns();
  });

  test("an infinite recursion in a toString that the display calls", async () => {
    const value = "({ toString(): string { return String(this); }, [Symbol.for('nodejs.util.inspect.custom')]() { return String(this); } })";
    const shown = await errorsOf(value);
    expect([shown.reply.content.status, shown.reply.content.ename]).toEqual(["error", "RangeError"]);
    const displayed = await errorsOf(`display(1, { displayId: ${value} as any })`);
    expect([displayed.reply.content.status, displayed.reply.content.ename]).toEqual(["error", "RangeError"]);
    await nextCellRuns();
  });

  test("a 2 GiB string", async () => {
    const { reply } = await errorsOf("const huge = 'x'.repeat(2 ** 31);");
    expect([reply.content.status, reply.content.ename, reply.content.evalue]).toEqual(["error", "RangeError", "Invalid string length"]);
    await nextCellRuns();
  });
});
