/**
 * The socket thread hands zeromq frames it copies (kernel/transport/frames.ts):
 * a worker thread that sends Jupyter messages and ends before zeromq has
 * written them must leave nothing of its own behind in zeromq. With the
 * Buffers sent as they are, zeromq's I/O thread returns each large frame to
 * the ended thread's freed zeromq state; in the child below, run with freed
 * memory overwritten (MALLOC_PERTURB_), that aborted in each of 4 runs.
 */
import { spawnSync } from "child_process";
import { mkdtempSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { copiedFrames, kZeroCopyAboveBytes, zeroCopyFrameCount } from "../../../kernel/transport/frames";
import { decode, encode, Signer } from "../../../kernel/protocol/wire";
import { newHeader } from "../../../kernel/protocol/message";
import { ROOT } from "../../helpers";

jest.setTimeout(120000);

const origin = { session: "s1", username: "u" };

describe("frames the socket thread gives zeromq", () => {
  test("small frames stay Buffers, larger UTF-8 frames become strings with the same bytes, larger binary ones are counted", () => {
    const small = Buffer.from("x".repeat(kZeroCopyAboveBytes));
    const text = Buffer.from("é".repeat(200)); // 400 bytes of UTF-8
    const binary = Buffer.alloc(kZeroCopyAboveBytes + 1, 0xff);
    const before = zeroCopyFrameCount();
    const out = copiedFrames([small, text, binary]);
    expect(out[0]).toBe(small);
    expect(out[1]).toBe("é".repeat(200));
    expect(Buffer.from(out[1] as string, "utf8").equals(text)).toBe(true);
    expect(out[2]).toBe(binary);
    expect(zeroCopyFrameCount() - before).toBe(1);
  });

  test("a signed message survives the conversion: the strings carry the signed bytes", () => {
    const signer = new Signer("key");
    const msg = { idents: [Buffer.from("peer")], header: newHeader("shutdown_reply", origin), parent_header: {},
      metadata: {}, content: { status: "ok", restart: false, text: "ü".repeat(300) }, buffers: [] };
    const frames = copiedFrames(encode(msg, signer)).map((f) => (typeof f === "string" ? Buffer.from(f, "utf8") : f));
    expect(decode(frames, signer).content).toEqual(msg.content);
  });

  test("a worker thread that sends and ends before the peer reads leaves zeromq nothing of its own", () => {
    const dir = mkdtempSync(join(tmpdir(), "tsgpu-frames-"));
    const script = join(dir, "send_then_end.js");
    writeFileSync(script, `
const { Worker, isMainThread, parentPort } = require("worker_threads");
const zmq = require(${JSON.stringify(join(ROOT, "node_modules", "zeromq"))});
const { copiedFrames } = require(${JSON.stringify(join(ROOT, "dist", "kernel", "transport", "frames.js"))});
const { encode, Signer } = require(${JSON.stringify(join(ROOT, "dist", "kernel", "protocol", "wire.js"))});
const { newHeader } = require(${JSON.stringify(join(ROOT, "dist", "kernel", "protocol", "message.js"))});
const N = 16;
if (isMainThread) {
  (async () => {
    const pull = new zmq.Pull({ receiveHighWaterMark: 1 }); // this thread's zeromq shares the context, as the kernel's does
    const w = new Worker(__filename);
    const port = await new Promise((r) => w.once("message", r));
    pull.connect("tcp://127.0.0.1:" + port);
    await new Promise((r) => w.once("exit", r)); // the sender's zeromq state is freed now; most frames are still queued
    let bytes = 0;
    for (let i = 0; i < N; i++) for (const f of await pull.receive()) bytes += f.length;
    await new Promise((r) => setTimeout(r, 300));
    pull.close();
    console.log(JSON.stringify({ bytes }));
  })();
} else {
  (async () => {
    const push = new zmq.Push({ sendHighWaterMark: 1000, linger: -1 });
    await push.bind("tcp://127.0.0.1:0");
    parentPort.postMessage(Number(push.lastEndpoint.split(":").pop()));
    const signer = new Signer("key");
    for (let i = 0; i < N; i++) {
      const msg = { idents: [], header: newHeader("stream", { session: "s", username: "u" }), parent_header: {}, metadata: {},
        content: { name: "stdout", text: "x".repeat(1 << 20) }, buffers: [] };
      await push.send(copiedFrames(encode(msg, signer)));
    }
    push.close();
  })();
}
`);
    const runs = [1, 2, 3].map(() => spawnSync(process.execPath, [script], {
      env: { ...process.env, MALLOC_PERTURB_: "165" }, encoding: "utf8", timeout: 60000,
    }));
    for (const r of runs) {
      expect({ status: r.status, signal: r.signal, stderr: r.stderr }).toEqual({ status: 0, signal: null, stderr: "" });
      expect(JSON.parse(r.stdout).bytes).toBeGreaterThan(16 * (1 << 20));
    }
  });
});
