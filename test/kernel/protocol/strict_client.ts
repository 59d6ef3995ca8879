/**
 * A client that reads the kernel as the strictest clients do (Zed's REPL,
 * runtimed's kernel testbed, built on the Rust `jupyter-protocol` types):
 * every message it receives, on every channel, from the first start-up
 * kernel_info_reply on, is checked against the outbound schema, and what
 * does not fit is kept as a violation naming msg type, field and value.
 */
import { mkdtempSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import * as zmq from "zeromq";
import type { KernelClient } from "../../../kernel/transport/client";
import { Message, newHeader } from "../../../kernel/protocol/message";
import { decode, encode } from "../../../kernel/protocol/wire";
import { endpoint } from "../../../kernel/protocol/connection";
import { describeViolation, validateOutbound } from "../../../kernel/protocol/outbound_schema";
import { startKernel } from "../../helpers";

export interface StrictKernel {
  k: KernelClient;
  /** One line per schema violation among the messages received so far. */
  violations: string[];
  /** Every message received, with its channel, in order. */
  received: { channel: string; msg: Message }[];
  /** The folder of the kernel's input history (remove it once the kernel has ended). */
  historyDir: string;
}

/** Starts a kernel whose every message is validated as it arrives (with an input history of its own). */
export async function startStrictKernel(): Promise<StrictKernel> {
  const violations: string[] = [];
  const received: StrictKernel["received"] = [];
  const historyDir = mkdtempSync(join(tmpdir(), "tsgpu-strict-"));
  const k = await startKernel({
    env: { ...process.env, TSGPU_HISTORY_FILE: join(historyDir, "history.jsonl") },
    onMessage: (channel, msg) => {
      received.push({ channel, msg });
      for (const v of validateOutbound({ channel, ...msg })) violations.push(describeViolation(v));
    },
  });
  return { k, violations, received, historyDir };
}

/** One heartbeat round trip: sends `ping` on the heartbeat socket and resolves with what comes back. */
export async function heartbeat(k: KernelClient, timeoutMs = 5000): Promise<string> {
  const hb = new zmq.Request({ receiveTimeout: timeoutMs, sendTimeout: timeoutMs, linger: 0 });
  try {
    hb.connect(endpoint(k.info, k.info.hb_port));
    await hb.send("ping");
    const [echo] = await hb.receive();
    return echo.toString();
  } finally {
    hb.close();
  }
}

/**
 * Connects a second frontend to the running kernel the way runtimed's testbed
 * does once the kernel is up: subscribes to iopub and waits for its
 * iopub_welcome, then sends one kernel_info_request on a fresh shell socket
 * and reads one reply. Resolves with the welcome and the reply, decoded.
 */
export async function connectLikeTestbed(k: KernelClient, timeoutMs = 5000): Promise<{ welcome: Message; reply: Message }> {
  const iopub = new zmq.Subscriber({ receiveTimeout: timeoutMs, linger: 0 });
  const shell = new zmq.Dealer({ routingId: `testbed-${process.pid}`, receiveTimeout: timeoutMs, linger: 0 });
  try {
    iopub.connect(endpoint(k.info, k.info.iopub_port));
    iopub.subscribe("");
    let welcome: Message;
    do welcome = decode((await iopub.receive()) as Buffer[], k.signer);
    while (welcome.header.msg_type !== "iopub_welcome");
    shell.connect(endpoint(k.info, k.info.shell_port));
    const request: Message = { idents: [], header: newHeader("kernel_info_request", { session: "testbed", username: "runtimelib" }), parent_header: {}, metadata: {}, content: {}, buffers: [] };
    await shell.send(encode(request, k.signer));
    const reply = decode((await shell.receive()) as Buffer[], k.signer);
    return { welcome, reply };
  } finally {
    iopub.close();
    shell.close();
  }
}

/** The iopub messages whose parent is the request `msgId`, in order (status included). */
export function iopubOf(k: KernelClient, msgId: string): Message[] {
  return k.iopubLog.filter((m) => (m.parent_header as { msg_id?: string }).msg_id === msgId);
}
