/**
 * Who may run code, and what the kernel gives away: signatures (missing,
 * forged, tampered), malformed signed requests, the drop log's rate limit,
 * the addresses bound, connection-file problems, the key, file permissions.
 * Real kernel processes over real zeromq sockets.
 */
import { spawnSync } from "child_process";
import * as crypto from "crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { KernelClient } from "../../../kernel/transport/client";
import { DELIMITER, encode, Signer } from "../../../kernel/protocol/wire";
import { Message, newHeader } from "../../../kernel/protocol/message";
import { kDropIntervalMs, kFullDropsPerInterval } from "../../../kernel/protocol/drop_log";
import { CLI, ofType, startKernel, waitUntil } from "../../helpers";

function forged(k: KernelClient, code: string): Message {
  return { idents: [], header: newHeader("execute_request", k.origin), parent_header: {}, metadata: {}, content: { code, silent: false }, buffers: [] };
}

/** Lines of the kernel's stderr that report one dropped or refused message (not the counts of the rest). */
function fullDropLines(k: KernelClient): string[] {
  return dropLines(k).filter((l) => !/more messages dropped or refused/.test(l));
}

/** Lines of the kernel's stderr that report dropped or refused messages. */
function dropLines(k: KernelClient): string[] {
  return k.stderr.split("\n").filter((l) => /dropped|refused|answered a .* with an error/.test(l));
}

describe("signatures and malformed requests", () => {
  let k: KernelClient;
  beforeAll(async () => { k = await startKernel({ env: { ...process.env, TSGPU_HISTORY_FILE: "none" } }); });
  afterAll(async () => { await k.shutdown(); });

  test("missing, forged and tampered signatures are dropped without running anything", async () => {
    const before = k.iopubLog.length;
    const sentIds: string[] = [];
    // No signature at all.
    const unsigned = forged(k, "globalThis.ran = 'unsigned'");
    sentIds.push(unsigned.header.msg_id);
    await k.shell.send(encode(unsigned, new Signer("")));
    // Signed with another key.
    const wrongKey = forged(k, "globalThis.ran = 'wrong key'");
    sentIds.push(wrongKey.header.msg_id);
    await k.control.send(encode(wrongKey, new Signer("not-the-key")));
    // Signed correctly, then the content changed.
    const tampered = forged(k, "1 + 1");
    sentIds.push(tampered.header.msg_id);
    const frames = encode(tampered, k.signer);
    const at = frames.findIndex((f) => f.equals(DELIMITER));
    frames[at + 5] = Buffer.from(JSON.stringify({ code: "globalThis.ran = 'tampered'", silent: false }));
    await k.shell.send(frames);
    // A signature of the right length that is wrong in its last character only.
    const nearly = forged(k, "globalThis.ran = 'nearly'");
    sentIds.push(nearly.header.msg_id);
    const nf = encode(nearly, k.signer);
    const sig = nf[at + 1].toString();
    nf[at + 1] = Buffer.from(sig.slice(0, -1) + (sig.endsWith("0") ? "1" : "0"));
    await k.shell.send(nf);
    // The shell runs in order: once this later cell is answered, whatever the forged ones caused was published.
    const { outputs } = await k.execute("typeof (globalThis as any).ran");
    expect(k.iopubLog.slice(before).filter((m) => sentIds.includes((m.parent_header as any).msg_id))).toEqual([]);
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("'undefined'");
    // The kernel's stderr is read through a pipe of its own, which may lag behind the reply.
    await waitUntil(() => k.stderr.includes("dropped a control message: invalid message signature"), "the drop log's lines");
    expect(k.stderr).toContain("dropped a shell message: missing message signature");
    expect(k.stderr).toContain("dropped a control message: invalid message signature");
  });

  test("signatures are compared in constant time (crypto.timingSafeEqual), whatever their length", () => {
    // The module object itself (the TypeScript namespace import is a frozen view of it).
    const spy = jest.spyOn(require("crypto") as typeof crypto, "timingSafeEqual");
    try {
      const signer = new Signer("key");
      const parts = [Buffer.from("{}"), Buffer.from("{}"), Buffer.from("{}"), Buffer.from("{}")];
      const good = signer.sign(parts);
      expect(signer.verify(good, parts)).toBe(true);
      expect(signer.verify("0".repeat(good.length), parts)).toBe(false);
      expect(signer.verify(good.slice(0, 10), parts)).toBe(false);
      expect(signer.verify(good + "00", parts)).toBe(false);
      // Every call compared equal-length buffers with timingSafeEqual, the short and long ones included.
      expect(spy).toHaveBeenCalledTimes(4);
    } finally {
      spy.mockRestore();
    }
  });

  test("a signed request with wrong field types gets an error reply naming the field; the kernel keeps its state", async () => {
    await k.execute("const kept = 41;");
    const exec = await k.request("execute_request", { code: 5, silent: "no" });
    expect(exec.reply.content).toMatchObject({ status: "error", ename: "InvalidRequest", execution_count: 0 });
    expect(exec.reply.content.evalue).toContain("expected a string for content.code, got 5");
    const complete = await k.request("complete_request", { code: "Ma", cursor_pos: "2" });
    expect(complete.reply.content).toMatchObject({ status: "error", ename: "InvalidRequest", matches: [] });
    const history = await k.request("history_request", { hist_access_type: 3 });
    expect(history.reply.content).toMatchObject({ status: "error", history: [] });
    const shutdown = await k.request("shutdown_request", { restart: "yes" }, "control");
    expect(shutdown.reply.content).toMatchObject({ status: "error", restart: false });
    expect(shutdown.reply.content.evalue).toContain("expected a boolean for content.restart");
    const { outputs } = await k.execute("kept + 1");
    expect(ofType(outputs, "execute_result")[0].content.data["text/plain"]).toBe("42");
  });

  test("messages that cannot be answered are dropped and logged: bad header fields, unknown types, wrong channel", async () => {
    // A kernel of its own: the drops of the other tests would use up the lines logged in full.
    const k = await startKernel({ env: { ...process.env, TSGPU_HISTORY_FILE: "none" } });
    const h = newHeader("kernel_info_request", k.origin);
    const badHeader = { ...h, msg_id: 12 } as any;
    await k.shell.send(encode({ idents: [], header: badHeader, parent_header: {}, metadata: {}, content: {}, buffers: [] }, k.signer));
    await k.send(k.shell, "no_such_request", {});
    await k.send(k.shell, "interrupt_request", {});
    await waitUntil(() => k.stderr.includes("it is accepted on control only"), "the drop log's line about the last message");
    expect(k.stderr).toContain("with a malformed header: expected a non-empty string for header.msg_id, got 12");
    expect(k.stderr).toContain("message of unknown type no_such_request");
    expect(k.stderr).toContain("message: interrupt_request on shell; it is accepted on control only");
    expect((await k.request("kernel_info_request", {})).reply.content.status).toBe("ok");
    await k.shutdown();
  });

  test("a flood of bad messages is logged with a rate limit: a few in full, the rest counted", async () => {
    const fullBefore = fullDropLines(k).length;
    const t0 = Date.now();
    for (let i = 0; i < 300; i++) await k.shell.send(encode(forged(k, "1"), new Signer("bad")));
    for (let i = 0; i < 300; i++) await k.control.send([Buffer.from("garbage"), Buffer.from([0xff, 0xfe])]);
    expect((await k.request("kernel_info_request", {}, "shell")).reply.content.status).toBe("ok");
    expect((await k.request("kernel_info_request", {}, "control")).reply.content.status).toBe("ok");
    const elapsed = Date.now() - t0;
    // Both sockets have handled their flood (each answered a later request); their lines may still be in the pipe.
    await waitUntil(() => fullDropLines(k).length > fullBefore, "the drop log's first lines");
    // 600 drops, one thread each for shell and control: at most 5 full lines per thread and 10 s interval. A flood
    // that a loaded machine takes seconds to send may reach into a second interval (an earlier test's drops opened
    // the first): count the intervals it touched rather than assume one.
    const intervals = 1 + Math.ceil(elapsed / kDropIntervalMs);
    expect(fullDropLines(k).length - fullBefore).toBeLessThanOrEqual(2 * kFullDropsPerInterval * intervals);
  });
});

describe("addresses and files", () => {
  test("the kernel listens on the connection file's address and ports only; files it writes are owner-only; the key is never logged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tsgpu-sec-"));
    const key = crypto.randomBytes(16).toString("hex");
    const env = { ...process.env, TSGPU_HISTORY_FILE: join(dir, "data", "history.jsonl"), TSGPU_CACHE_DIR: join(dir, "cache"), TSGPU_PROTOCOL_LOG: join(dir, "protocol.jsonl") };
    const k = await startKernel({ env, key });
    try {
      await k.execute("console.log('hello'); 1 + 1");
      const pid = k.proc!.pid!;
      const inodes = new Set(readdirSync(`/proc/${pid}/fd`).map((fd) => { try { return readlinkSync(`/proc/${pid}/fd/${fd}`); } catch { return ""; } })
        .map((l) => /^socket:\[(\d+)\]$/.exec(l)?.[1]).filter(Boolean));
      const listening: string[] = [];
      for (const table of ["tcp", "tcp6"]) {
        for (const line of readFileSync(`/proc/${pid}/net/${table}`, "utf8").split("\n").slice(1)) {
          const f = line.trim().split(/\s+/);
          if (f.length < 10 || f[3] !== "0A" || !inodes.has(f[9])) continue;
          const [addr, port] = f[1].split(":");
          const ip = table === "tcp" ? addr.match(/../g)!.reverse().map((b) => parseInt(b, 16)).join(".") : addr;
          listening.push(`${ip}:${parseInt(port, 16)}`);
        }
      }
      const i = k.info;
      expect(listening.sort()).toEqual([i.shell_port, i.control_port, i.stdin_port, i.iopub_port, i.hb_port].map((p) => `127.0.0.1:${p}`).sort());
    } finally {
      await k.shutdown();
    }
    const written = [env.TSGPU_HISTORY_FILE, env.TSGPU_PROTOCOL_LOG];
    for (const f of written) expect([f, (statSync(f).mode & 0o777).toString(8)]).toEqual([f, "600"]);
    expect((statSync(join(dir, "data")).mode & 0o777).toString(8)).toBe("700");
    expect(k.stderr).not.toContain(key);
    for (const f of written) expect(readFileSync(f, "utf8")).not.toContain(key);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("connection file problems stop the kernel at once with one line", () => {
  const dir = mkdtempSync(join(tmpdir(), "tsgpu-conn-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const key = "s3cret-key-never-shown";
  const good = { transport: "tcp", ip: "127.0.0.1", shell_port: 50001, control_port: 50002, stdin_port: 50003, iopub_port: 50004, hb_port: 50005, key, signature_scheme: "hmac-sha256" };

  function run(file: string) {
    const r = spawnSync(process.execPath, [CLI, "kernel", file], { encoding: "utf8", timeout: 15000 });
    return { status: r.status, lines: r.stderr.trim().split("\n"), stderr: r.stderr };
  }
  function write(name: string, text: string): string {
    const f = join(dir, name);
    writeFileSync(f, text);
    return f;
  }

  const cases: [string, () => string, RegExp][] = [
    ["missing", () => join(dir, "nope.json"), /cannot read connection file .*nope\.json: no such file or folder/],
    ["unreadable (a folder)", () => { const d = join(dir, "folder.json"); mkdirSync(d, { recursive: true }); return d; }, /cannot read connection file .*folder\.json: it is a folder/],
    ["not JSON", () => write("bad.json", `{"key": "${key}", oops`), /connection file .*bad\.json is not JSON \(error at byte \d+ of \d+\)/],
    ["not an object", () => write("array.json", "[1, 2]"), /holds an array, expected a JSON object/],
    ["lacks a port", () => write("noport.json", JSON.stringify({ ...good, hb_port: undefined })), /expected a port number from 1 to 65535 for hb_port, got nothing \(the field is missing\)/],
    ["lacks the ip", () => write("noip.json", JSON.stringify({ ...good, ip: undefined })), /expected an address \(a non-empty string\) for ip, got nothing/],
    ["lacks the key", () => write("nokey.json", JSON.stringify({ ...good, key: undefined })), /expected a string \(the signing key\) for key, got nothing/],
    ["a key of the wrong type", () => write("numkey.json", JSON.stringify({ ...good, key: 12345 })), /for key, got number$/],
    ["a port that is a string", () => write("strport.json", JSON.stringify({ ...good, shell_port: "50001" })), /for shell_port, got string "50001"/],
    ["an unknown transport", () => write("udp.json", JSON.stringify({ ...good, transport: "udp" })), /expected "tcp" or "ipc" for transport, got string "udp"/],
  ];
  for (const [what, make, expected] of cases) {
    test(what, () => {
      const r = run(make());
      expect(r.status).toBe(1);
      expect(r.lines).toHaveLength(1);
      expect(r.lines[0]).toMatch(expected);
      expect(r.stderr).not.toContain(key);
      expect(r.stderr).not.toContain("12345");
    });
  }
});
