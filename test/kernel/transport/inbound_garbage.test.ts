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
