/**
 * The first cells after a kernel starts, while the type checker is still
 * parsing the libraries: their type warnings arrive for them, before their
 * reply, and help shows types from the first request on.
 */
import { notebookFolder, startKernelIn, stderr } from "./engine_helpers";

jest.setTimeout(90000);

let folder: ReturnType<typeof notebookFolder>;
beforeAll(() => { folder = notebookFolder(); });
afterAll(() => folder.remove());

test("the first cell, run as soon as the kernel answers, gets its type warnings before its reply", async () => {
  const k = await startKernelIn(folder.dir);
  try {
    const { reply, outputs } = await k.execute('const s: number = "hello"');
    expect(reply.content.status).toBe("ok");
    expect(stderr(outputs)).toContain("Cell In[1], line 1, column 7: warning TS2322: Type 'string' is not assignable to type 'number'.");
    // And the cells after it, as before.
    const second = await k.execute("const t: string = 42;");
    expect(stderr(second.outputs)).toContain("Cell In[2], line 1, column 7: warning TS2322: Type 'number' is not assignable to type 'string'.");
  } finally {
    await k.shutdown();
  }
});

test("?name as the first request shows the typed signature", async () => {
  const k = await startKernelIn(folder.dir);
  try {
    const { reply } = await k.execute("?torch.zeros");
    expect(reply.content.payload[0].data["text/plain"]).toMatch(/^function zeros\(shape: number \| readonly number\[\], opts\?: TensorOptions\): Tensor/);
  } finally {
    await k.shutdown();
  }
});
