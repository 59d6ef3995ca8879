/**
 * A starting kernel answers kernel_info at once, before any client has
 * subscribed to iopub (after a restart each socket of a client reconnects
 * on its own timer, and shell often comes back first): the busy and idle of
 * those requests reach the first subscriber when it subscribes, after its
 * iopub_welcome, so that a client waiting for a request's idle still gets it.
 */
import { spawn } from "child_process";
import { mkdtempSync, rmSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import * as zmq from "zeromq";
import { decode, encode, Signer } from "../../../kernel/protocol/wire";
import { Message, newHeader } from "../../../kernel/protocol/message";
import { endpoint } from "../../../kernel/protocol/connection";
import { kernelArgv, writeConnectionFile } from "../../helpers";

jest.setTimeout(60000);

const origin = { session: "late-iopub-client", username: "test" };

function request(type: string): Message {
  return { idents: [], header: newHeader(type, origin), parent_header: {}, metadata: {}, content: {}, buffers: [] };
}

/** A kernel started on a connection file of our own, with a shell socket only (no iopub subscription yet). */
async function startBare() {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-late-iopub-"));
  const { file, info } = await writeConnectionFile(dir);
  const signer = new Signer(info.key, info.signature_scheme);
  const argv = kernelArgv().map((a) => a.replace("{connection_file}", file));
  const proc = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "inherit", "pipe"], env: { ...process.env, TSGPU_HISTORY_FILE: join(dir, "h.jsonl") } });
  let stderr = "";
  proc.stderr!.on("data", (d) => { stderr += d; });
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const shell = new zmq.Dealer({ routingId: origin.session, receiveTimeout: 500 });
  const control = new zmq.Dealer({ receiveTimeout: 10000 });
  const sub = new zmq.Subscriber({ receiveTimeout: 10000 });
  shell.connect(endpoint(info, info.shell_port));
  return {
    info, signer, shell, sub, stderr: () => stderr,
    /** Sends a kernel_info_request on shell and resolves with its reply (null when none came within 500 ms). */
    async kernelInfo(): Promise<Message | null> {
      const req = request("kernel_info_request");
      await shell.send(encode(req, signer));
      for (;;) {
        let r: Message;
        try { r = decode(await shell.receive(), signer); } catch (e) { if ((e as { code?: string }).code === "EAGAIN") return null; throw e; }
        if (r.parent_header.msg_id === req.header.msg_id) return r;
      }
    },
    subscribe(): void { sub.connect(endpoint(info, info.iopub_port)); sub.subscribe(); },
    async next(): Promise<Message> { return decode(await sub.receive(), signer); },
    async shutdown(): Promise<number | null> {
      control.connect(endpoint(info, info.control_port));
      await control.send(encode(request("shutdown_request"), signer));
      return exited;
    },
    close(): void {
      proc.kill("SIGKILL");
      for (const s of [shell, control, sub]) s.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

test("kernel_info answered before any iopub subscription: the first subscriber gets its busy and idle after the welcome", async () => {
  const k = await startBare();
  try {
    // Poll kernel_info as a client does while the kernel starts, with no iopub subscription.
    const answered: string[] = [];
    const deadline = Date.now() + 30000;
    while (!answered.length) {
      if (Date.now() > deadline) throw new Error("no kernel_info_reply within 30 s");
      const r = await k.kernelInfo();
      if (!r) continue;
      expect(r.header.msg_type).toBe("kernel_info_reply");
      answered.push(r.parent_header.msg_id as string);
    }
    // Only now does iopub subscribe.
    k.subscribe();
    expect((await k.next()).header.msg_type).toBe("iopub_welcome");
    const states = new Map<string, string[]>();
    while (!answered.every((id) => states.get(id)?.includes("idle"))) {
      const m = await k.next();
      if (m.header.msg_type !== "status") continue;
      const id = m.parent_header.msg_id as string;
      states.set(id, [...(states.get(id) ?? []), m.content.execution_state as string]);
    }
    for (const id of answered) expect(states.get(id)).toEqual(["busy", "idle"]);
    // A request after the subscription is bracketed as usual.
    const later = (await k.kernelInfo())!;
    const seen: string[] = [];
    while (!seen.includes("idle")) {
      const m = await k.next();
      if (m.header.msg_type === "status" && m.parent_header.msg_id === later.parent_header.msg_id) seen.push(m.content.execution_state as string);
    }
    expect(seen).toEqual(["busy", "idle"]);
    expect(await k.shutdown()).toBe(0);
  } finally {
    k.close();
  }
});

test("what no subscriber heard is kept up to 256 messages: the first subscriber gets the latest, in order, and the kernel logs the rest as dropped", async () => {
  const k = await startBare();
  try {
    const ids: string[] = [];
    while (ids.length < 200) {
      const r = await k.kernelInfo();
      if (r) ids.push(r.parent_header.msg_id as string);
    }
    // 200 requests published 400 status messages with nobody subscribed.
    k.subscribe();
    expect((await k.next()).header.msg_type).toBe("iopub_welcome");
    const got: string[] = [];
    while (got.length < 256) {
      const m = await k.next();
      expect(m.header.msg_type).toBe("status");
      got.push(`${m.parent_header.msg_id} ${m.content.execution_state}`);
    }
    const expected = ids.flatMap((id) => [`${id} busy`, `${id} idle`]).slice(-256);
    expect(got).toEqual(expected);
    expect(k.stderr()).toMatch(/dropped a outgoing iopub message: published before anyone subscribed \(the first subscriber gets at most 256 messages and 16 MiB of what came before it\)/);
    expect(await k.shutdown()).toBe(0);
  } finally {
    k.close();
  }
});
