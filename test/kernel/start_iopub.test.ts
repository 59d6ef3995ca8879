/**
 * A starting kernel answers kernel_info at once, before any client has
 * subscribed to iopub (after a restart each socket of a client reconnects
 * on its own timer, and shell often comes back first): the busy and idle of
 * those requests reach the first subscriber when it subscribes, after its
 * iopub_welcome, so that a client waiting for a request's idle still gets it.
 */
import { spawn } from "child_process";
import { mkdtempSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { randomBytes } from "crypto";
import * as zmq from "zeromq";
import { freePort } from "../../kernel/transport/client";
import { decode, encode, Signer } from "../../kernel/protocol/wire";
import { Message, newHeader } from "../../kernel/protocol/message";
import { ConnectionInfo, endpoint } from "../../kernel/protocol/connection";
import { kernelArgv } from "../helpers";

jest.setTimeout(60000);

const origin = { session: "late-iopub-client", username: "test" };

function request(type: string): Message {
  return { idents: [], header: newHeader(type, origin), parent_header: {}, metadata: {}, content: {}, buffers: [] };
}

test("kernel_info answered before any iopub subscription: the first subscriber gets its busy and idle after the welcome", async () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-late-iopub-"));
  const ports = [];
  for (let i = 0; i < 5; i++) ports.push(await freePort());
  const info: ConnectionInfo = {
    transport: "tcp", ip: "127.0.0.1", shell_port: ports[0], control_port: ports[1], stdin_port: ports[2], iopub_port: ports[3],
    hb_port: ports[4], key: randomBytes(16).toString("hex"), signature_scheme: "hmac-sha256",
  };
  const signer = new Signer(info.key, info.signature_scheme);
  const file = join(dir, "kernel.json");
  writeFileSync(file, JSON.stringify(info));
  const argv = kernelArgv().map((a) => a.replace("{connection_file}", file));
  const proc = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, TSGPU_HISTORY_FILE: join(dir, "h.jsonl") } });
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const shell = new zmq.Dealer({ routingId: origin.session, receiveTimeout: 500 });
  const control = new zmq.Dealer({ receiveTimeout: 10000 });
  const sub = new zmq.Subscriber({ receiveTimeout: 10000 });
  try {
    shell.connect(endpoint(info, info.shell_port));
    // Poll kernel_info as a client does while the kernel starts, with no iopub subscription.
    const answered: string[] = [];
    const sent = new Set<string>();
    const deadline = Date.now() + 30000;
    while (!answered.length) {
      if (Date.now() > deadline) throw new Error("no kernel_info_reply within 30 s");
      const req = request("kernel_info_request");
      sent.add(req.header.msg_id);
      await shell.send(encode(req, signer));
      try {
        const r = decode(await shell.receive(), signer);
        expect(r.header.msg_type).toBe("kernel_info_reply");
        expect(sent.has(r.parent_header.msg_id as string)).toBe(true);
        answered.push(r.parent_header.msg_id as string);
      } catch (e) {
        if ((e as { code?: string }).code !== "EAGAIN") throw e;
      }
    }
    // Only now does iopub subscribe.
    sub.connect(endpoint(info, info.iopub_port));
    sub.subscribe();
    const first = decode(await sub.receive(), signer);
    expect(first.header.msg_type).toBe("iopub_welcome");
    const states = new Map<string, string[]>();
    while (!answered.every((id) => states.get(id)?.includes("idle"))) {
      const m = decode(await sub.receive(), signer);
      if (m.header.msg_type !== "status") continue;
      const id = m.parent_header.msg_id as string;
      states.set(id, [...(states.get(id) ?? []), m.content.execution_state as string]);
    }
    for (const id of answered) expect(states.get(id)).toEqual(["busy", "idle"]);
    // A request after the subscription is bracketed as usual.
    const later = request("kernel_info_request");
    await shell.send(encode(later, signer));
    const seen: string[] = [];
    while (!seen.includes("idle")) {
      const m = decode(await sub.receive(), signer);
      if (m.header.msg_type === "status" && m.parent_header.msg_id === later.header.msg_id) seen.push(m.content.execution_state as string);
    }
    expect(seen).toEqual(["busy", "idle"]);
    control.connect(endpoint(info, info.control_port));
    await control.send(encode(request("shutdown_request"), signer));
    expect(await exited).toBe(0);
  } finally {
    proc.kill("SIGKILL");
    for (const s of [shell, control, sub]) s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
