/**
 * A companion module of the transport (transport/bridge-types.ts): a module
 * the socket thread runs beside control, stdin and heartbeat, talking to the
 * main thread through Transport.toCompanion and the onCompanion option (the
 * comm port listener of `tsgpu launch` is one: test_gateway_launch.py).
 */
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { Transport } from "../../../kernel/transport/bridge";
import { writeConnectionFile } from "../../helpers";

jest.setTimeout(30000);

const dir = mkdtempSync(join(tmpdir(), "tsgpu-companion-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function transport(logs: string[]): Transport {
  return new Transport({ request: () => undefined, stdin: () => undefined, interrupt: () => undefined, log: (t) => { logs.push(t); } });
}

test("the companion gets its data, and messages go both ways", async () => {
  const file = join(dir, "echo.js");
  writeFileSync(file, `exports.startCompanion = (data, link) => {
    link.send({ started: data, thread: require("worker_threads").isMainThread ? "main" : "worker" });
    link.onMessage((m) => link.send({ echo: m }));
  };`);
  const { info } = await writeConnectionFile(mkdtempSync(join(dir, "c-")));
  const heard: unknown[] = [];
  let second!: () => void;
  const echoed = new Promise<void>((resolve) => { second = resolve; });
  const t = transport([]);
  await t.start(info, { session: "s" }, {}, {
    threadAtOnce: true, companion: { file, data: { n: 7 } },
    onCompanion: (m) => { heard.push(m); if (heard.length === 2) second(); },
  });
  t.toCompanion({ ping: [1, "two"] });
  await echoed;
  expect(heard).toEqual([{ started: { n: 7 }, thread: "worker" }, { echo: { ping: [1, "two"] } }]);
  await t.abort();
});

test("a companion that cannot start ends the socket thread, so the transport does not start, and says why", async () => {
  const { info } = await writeConnectionFile(mkdtempSync(join(dir, "c-")));
  const logs: string[] = [];
  const t = transport(logs);
  await expect(t.start(info, { session: "s" }, {}, { threadAtOnce: true, companion: { file: join(dir, "missing.js"), data: null } }))
    .rejects.toThrow(/the socket thread ended/);
  expect(logs.join("\n")).toContain(`cannot start ${join(dir, "missing.js")} on the socket thread`);
  await t.abort();
});
