/**
 * The magics' session over the interfaces it declares (magics/session.ts:
 * SessionEngine, SessionOutput, cellPosition), with plain objects standing
 * in for the kernel's engine and output router: no kernel, no runtime.
 */
import { AsyncLocalStorage } from "async_hooks";
import { MagicSession, SessionEngine, SessionOutput } from "../../magics/session";

function fakes() {
  const published: { type: string; content: Record<string, unknown> }[] = [];
  const written: string[] = [];
  const engine: SessionEngine = {
    executionCount: 7,
    userNames: new Set(["tsgpuSessionTestA", "tsgpuSessionTestB"]),
    outputs: { 3: "three" },
    lastError: undefined,
    lastErrorCell: 0,
    removeNames: (names) => names,
    resetNamespace: () => [],
    clearOutputs: () => [],
    compileNested: (code) => async () => `ran ${code}`,
    checker: { mode: "on" },
  };
  const router: SessionOutput = {
    scopes: new AsyncLocalStorage<{ executionCount: number }>(),
    scope: () => ({ executionCount: 7 }),
    publish: (type, content) => { published.push({ type, content }); },
    write: (_name, text) => { written.push(text); },
  };
  const session = new MagicSession({
    engine: () => engine, router, runtime: () => { throw new Error("no runtime in this test"); }, loadedRuntime: () => undefined,
    prompt: () => "y", describe: () => null,
    cellPosition: (file, line) => (file === "tsgpu-cell-4" ? { cell: 4, line: line - 1 } : null),
  });
  return { session, engine, published, written };
}

describe("MagicSession without a kernel", () => {
  const g = globalThis as Record<string, unknown>;
  beforeAll(() => { g.tsgpuSessionTestA = 1; g.tsgpuSessionTestB = "b"; });
  afterAll(() => { delete g.tsgpuSessionTestA; delete g.tsgpuSessionTestB; });

  test("%who lists the engine's user names through the context, as display_data", async () => {
    const { session, published } = fakes();
    await session.runLine("who", "");
    expect(published).toHaveLength(1);
    expect(published[0].type).toBe("display_data");
    expect((published[0].content.data as Record<string, unknown>)["text/plain"]).toBe("tsgpuSessionTestA\ttsgpuSessionTestB");
  });

  test("%typecheck reads and sets the engine's checker mode", async () => {
    const { session, engine } = fakes();
    await session.runLine("typecheck", "strict");
    expect(engine.checker.mode).toBe("strict");
  });

  test("frames of a cell's script map through the kernel's cellPosition; other files do not", () => {
    const { session } = fakes();
    expect(session.frameMapper("tsgpu-cell-4", 3, 1)).toEqual({ label: "Cell In[4]", line: 2, cell: 4 });
    expect(session.frameMapper("/usr/lib/node.js", 3, 1)).toBeNull();
  });

  test("an unknown magic is a UsageError naming it", async () => {
    const { session } = fakes();
    await expect(session.runLine("nope", "")).rejects.toThrow(/nope/);
  });
});
