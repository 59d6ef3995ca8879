/**
 * The first cells after a kernel starts, while the type checker is still
 * parsing the libraries: their type warnings arrive for them, before their
 * reply, and help shows types from the first request on.
 */
import type { Message } from "../../../kernel/protocol/message";
import { sleep } from "../../helpers";
import { notebookFolder, startKernelIn, stderr } from "../engine_helpers";

jest.setTimeout(90000);

let folder: ReturnType<typeof notebookFolder>;
beforeAll(() => { folder = notebookFolder(); });
afterAll(() => folder.remove());

test.each([
  ["from its startup snapshot", {}],
  ["on a thread (no snapshot)", { TSGPU_CHECKER_SNAPSHOT: "0" }],
])("the first cell, run as soon as the kernel answers, gets its type warnings before its reply: checker %s", async (_, env) => {
  const k = await startKernelIn(folder.dir, env);
  try {
    const { reply, outputs } = await k.execute('const s: number = "hello"');
    expect(reply.content.status).toBe("ok");
    expect(stderr(outputs)).toContain("warning TS2322 at Cell In[1], line 1, column 7: Type 'string' is not assignable to type 'number'.");
    // And the cells after it, as before.
    const second = await k.execute("const t: string = 42;");
    expect(stderr(second.outputs)).toContain("warning TS2322 at Cell In[2], line 1, column 7: Type 'number' is not assignable to type 'string'.");
  } finally {
    await k.shutdown();
  }
});

async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await sleep(20);
  }
}

test("an interrupt while a finished first cell waits for its warnings ends the wait; the warnings follow", async () => {
  // The checker on its thread, which takes seconds to be ready: the cell surely waits when interrupted.
  const k = await startKernelIn(folder.dir, { TSGPU_CHECKER_SNAPSHOT: "0" });
  try {
    const running = k.execute('console.log("ran");\nconst late: number = "text";');
    await until(() => k.iopubLog.some((m) => m.header.msg_type === "stream" && m.content.text === "ran\n"), 30000);
    await k.request("interrupt_request", {}, "control");
    const { reply } = await running;
    // The cell itself had finished: the interrupt does not make it an error.
    expect(reply.content.status).toBe("ok");
    const ofCell = () => k.iopubLog.filter((m: Message) => (m.parent_header as { msg_id?: string }).msg_id === reply.parent_header.msg_id);
    await until(() => stderr(ofCell()).includes("warning TS2322 at"), 60000);
    expect((await k.execute("1 + 1")).reply.content.status).toBe("ok");
  } finally {
    await k.shutdown();
  }
});

test("?name as the first request shows the typed signature", async () => {
  const k = await startKernelIn(folder.dir);
  try {
    const { reply } = await k.execute("?torch.zeros");
    expect(reply.content.payload[0].data["text/plain"]).toMatch(/^function zeros\(\.\.\.size: SizeAndOptions\): Tensor\s+A tensor of zeros/);
  } finally {
    await k.shutdown();
  }
});
