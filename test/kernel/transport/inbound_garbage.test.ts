/** A thread collects its garbage once enough input came in, once per limit, after what is pending. */
import { InboundGarbage } from "../../../kernel/transport/inbound_garbage";

const tick = () => new Promise((r) => setImmediate(r));

test("one collection after the limit is passed, none before, the count starting again after it", async () => {
  let collections = 0;
  const g = new InboundGarbage(1000, () => { collections++; });
  g.read([new Uint8Array(400), new Uint8Array(500)]);
  await tick();
  expect(collections).toBe(0);
  g.read([new Uint8Array(200)]);
  g.read([new Uint8Array(5000)]);
  expect(collections).toBe(0); // not while the message is being handled
  await tick();
  expect(collections).toBe(1);
  g.read([new Uint8Array(999)]);
  await tick();
  expect(collections).toBe(1);
});

test("a thread that read enough collects once no input came for the quiet time, and not while input keeps coming", async () => {
  let collections = 0;
  const g = new InboundGarbage(1 << 30, () => { collections++; }, 1000, 40);
  g.read([new Uint8Array(999)]);
  await new Promise((r) => setTimeout(r, 80));
  expect(collections).toBe(0); // under the quiet threshold: nothing to collect
  g.read([new Uint8Array(10)]);
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 20));
    g.read([new Uint8Array(10)]); // each message starts the quiet time again
  }
  expect(collections).toBe(0);
  await new Promise((r) => setTimeout(r, 80));
  expect(collections).toBe(1);
  await new Promise((r) => setTimeout(r, 80));
  expect(collections).toBe(1); // the count started again
});
