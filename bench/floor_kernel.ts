/**
 * The floor of the kernel benchmark: a kernel that does nothing but answer,
 * on the main thread, through the same zeromq library and wire code as
 * tsgpu. It runs no code: execute_request gets `ok`, and the code comes back
 * as its text/plain result. What it measures is the harness (jupyter_client,
 * the sockets, Node's start) on this machine; no real kernel can be faster.
 *
 *   node dist/bench/floor_kernel.js CONNECTION_FILE
 */
import { randomUUID } from "crypto";
import * as zmq from "zeromq";
import { readConnectionFile, endpoint } from "../kernel/protocol/connection";
import { decode, encode, Signer } from "../kernel/protocol/wire";
import { Message, reply, replyType } from "../kernel/protocol/message";
import { kernelInfo } from "../kernel/info";

async function main(file: string): Promise<void> {
  const info = readConnectionFile(file);
  const signer = new Signer(info.key, info.signature_scheme);
  const origin = { session: randomUUID(), username: "kernel" };
  const shell = new zmq.Router({ sendTimeout: 0 });
  const control = new zmq.Router({ sendTimeout: 0 });
  const iopub = new zmq.XPublisher({ sendTimeout: 0, verbosity: "allSubs" });
  const hb = new zmq.Reply();
  for (const [s, p] of [[shell, info.shell_port], [control, info.control_port], [iopub, info.iopub_port], [hb, info.hb_port]] as const) {
    await s.bind(endpoint(info, Number(p)));
  }
  const publish = (parent: Message | undefined, type: string, content: Record<string, unknown>) =>
    void iopub.send(encode(reply(parent, type, content, origin), signer));
  let count = 0;
  const serve = async (sock: zmq.Router) => {
    for await (const frames of sock) {
      const msg = decode(frames, signer);
      const type = msg.header.msg_type;
      publish(msg, "status", { execution_state: "busy" });
      let content: Record<string, unknown> = { status: "ok" };
      if (type === "kernel_info_request") content = { ...kernelInfo(), implementation: "floor" };
      if (type === "execute_request") {
        count++;
        publish(msg, "execute_input", { code: msg.content.code, execution_count: count });
        publish(msg, "execute_result", { execution_count: count, data: { "text/plain": String(msg.content.code) }, metadata: {} });
        content = { status: "ok", execution_count: count, user_expressions: {}, payload: [] };
      }
      void sock.send(encode(reply(msg, replyType(type), content, origin), signer));
      publish(msg, "status", { execution_state: "idle" });
      if (type === "shutdown_request") setTimeout(() => process.exit(0), 50);
    }
  };
  void serve(shell);
  void serve(control);
  void (async () => { for await (const [f] of iopub) if (f[0] === 1) publish(undefined, "iopub_welcome", { subscription: "" }); })();
  for await (const f of hb) await hb.send(f);
}

main(process.argv[2]).catch((e) => { process.stderr.write(`floor kernel: ${e?.stack ?? e}\n`); process.exit(1); });
