/**
 * The kernel compacts its old generation every so many cells: the count, and
 * that the collection it runs leaves a fragmented old generation on fewer
 * pages than a plain full collection does (in a Node started with
 * --expose-gc, as a kernel is).
 */
import { execFileSync } from "child_process";
import { join } from "path";
import { HeapCompaction } from "../../../kernel/execution/heap_compaction";

const tick = () => new Promise((r) => setImmediate(r));

test("one collection after every `every` answered cells, after what is pending", async () => {
  let collections = 0;
  const c = new HeapCompaction(3, () => { collections++; });
  c.cellEnded(); c.cellEnded();
  await tick();
  expect(collections).toBe(0);
  c.cellEnded();
  expect(collections).toBe(0);
  await tick();
  expect(collections).toBe(1);
  c.cellEnded(); c.cellEnded();
  await tick();
  expect(collections).toBe(1);
  c.cellEnded();
  await tick();
  expect(collections).toBe(2);
});

test("the compacting collection leaves a fragmented old generation on fewer pages than gc() does", () => {
  const mod = join(__dirname, "..", "..", "..", "kernel", "execution", "heap_compaction.js");
  // Objects promoted to the old generation, nine of ten then dropped: pages mostly empty.
  const script = `
    const v8 = require("v8");
    const { compactingCollection } = require(${JSON.stringify(mod)});
    const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space").physical_space_size;
    let kept = [];
    for (let i = 0; i < 400000; i++) kept.push({ i, s: "x" + i });
    gc(); gc();
    kept = kept.filter((_, i) => i % 10 === 0);
    gc();
    // Once V8's sweeper threads are done with that collection's pages.
    setTimeout(() => {
      gc();
      const plain = old();
      compactingCollection();
      console.log(JSON.stringify({ plain, compacted: old(), kept: kept.length }));
    }, 300);`;
  const out = JSON.parse(execFileSync(process.execPath, ["--expose-gc", "-e", script], { encoding: "utf8" }));
  expect(out.kept).toBe(40000);
  expect(out.compacted).toBeLessThan(out.plain * 0.6);
});

test("without gc exposed it does nothing", () => {
  const { compactingCollection } = require("../../../kernel/execution/heap_compaction");
  expect(compactingCollection(undefined)).toBe(false);
});
