/**
 * Random and mutated multipart messages for a kernel's sockets: wrong frame
 * counts, no delimiter, garbage and wrong signatures, non-JSON and huge JSON,
 * wrong types in every header field, unknown msg_types, invalid UTF-8, and a
 * few frames of 64 MiB. Deterministic for a seed, so a failure can be replayed.
 */
import { DELIMITER, Signer } from "../../kernel/protocol/wire";
import { newHeader, Origin } from "../../kernel/protocol/message";

function jsonType(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "number" && !Number.isSafeInteger(v) ? "fraction" : typeof v;
}

/** A small seeded generator (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HEADER_FIELDS = ["msg_id", "msg_type", "session", "username", "date", "version"];
/** Values of every JSON type, for fields that want another. */
const WRONG_VALUES: unknown[] = [null, 0, -1, 1.5, 1e308, true, false, "", [], [1, "a"], {}, { nested: { deep: [null] } }, "x".repeat(300)];
/**
 * Requests the kernel answers without running user code, and their
 * well-formed contents. Not completion or inspection: those that come
 * through well-formed are type-checker work, whose memory is the checker's
 * (measured apart), not the protocol's.
 */
const SAFE_REQUESTS: [string, Record<string, unknown>][] = [
  ["kernel_info_request", {}], ["is_complete_request", { code: "let x = (" }], ["comm_info_request", {}],
  ["history_request", { hist_access_type: "tail", n: 3, output: false, raw: true }],
  ["execute_request", { code: "1", silent: true, store_history: false }],
  ["shutdown_request", { restart: "maybe" }], ["comm_msg", { comm_id: "nope", data: {} }],
  ["interrupt_request", {}], ["usage_request", {}],
];
const UNKNOWN_TYPES = ["", "execute_reply", "status", "debug_request", "__proto__", "constructor", "x".repeat(200), "kernel_info_request ", "KERNEL_INFO_REQUEST"];

export interface FuzzOptions {
  signer: Signer;
  origin: Origin;
  /** After which messages a 64 MiB frame is sent (they are slow to build and send: a few). */
  hugeAt: number[];
  /** Generate only these cases (0–11, as in `next`), to find which one a problem comes from. */
  only?: number[];
}

/** What a generated message is, for counting. */
export type FuzzKind = "random frames" | "no delimiter" | "too few frames" | "bad signature" | "not JSON" | "invalid UTF-8"
  | "huge JSON" | "wrong header types" | "unknown msg_type" | "wrong content types" | "valid" | "64 MiB frame";

export class Fuzzer {
  private readonly r: () => number;
  private sent = 0;
  private hugeSent = 0;
  private hugeFrame?: Buffer;

  private readonly requests = process.env.TSGPU_FUZZ_TYPES
    ? SAFE_REQUESTS.filter(([t]) => process.env.TSGPU_FUZZ_TYPES!.split(",").includes(t)) : SAFE_REQUESTS;

  constructor(seed: number, private readonly o: FuzzOptions) {
    this.r = rng(seed);
  }

  private int(n: number): number { return Math.floor(this.r() * n); }
  private pick<T>(xs: readonly T[]): T { return xs[this.int(xs.length)]; }
  private bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }

  private parts(type: string, content: unknown): Buffer[] {
    const header = newHeader(type, this.o.origin);
    // Never a shutdown the kernel would honour: its restart is never a boolean.
    if (type === "shutdown_request") content = { restart: this.pick(["maybe", 1, null, [], {}]) };
    return [header, {}, {}, content].map((p) => Buffer.from(JSON.stringify(p)));
  }

  private signed(parts: Buffer[], extra: Buffer[] = []): Buffer[] {
    return [Buffer.from("fuzz-id"), DELIMITER, Buffer.from(this.o.signer.sign(parts)), ...parts, ...extra];
  }

  /** The next message's frames and what kind it is. */
  next(): { kind: FuzzKind; frames: Buffer[] } {
    this.sent++;
    if (this.o.hugeAt.includes(this.sent)) {
      this.hugeFrame ??= Buffer.alloc(64 << 20, 0x7b);
      // A 64 MiB frame: as a signed buffer, as the content, or as garbage before the delimiter.
      const at = this.hugeSent++ % 3;
      const frames = at === 0 ? this.signed(this.parts("kernel_info_request", {}), [this.hugeFrame])
        : at === 1 ? [DELIMITER, Buffer.from("00"), ...this.parts("kernel_info_request", {}).slice(0, 3), this.hugeFrame]
        : [this.hugeFrame, DELIMITER];
      return { kind: "64 MiB frame", frames };
    }
    const roll = this.o.only ? this.pick(this.o.only) : this.int(12);
    const [type, content] = this.pick(this.requests);
    switch (roll) {
      case 0: return { kind: "random frames", frames: Array.from({ length: this.int(9) }, () => this.bytes(this.int(64))) };
      case 1: return { kind: "no delimiter", frames: this.parts(type, content) };
      case 2: return { kind: "too few frames", frames: this.signed(this.parts(type, content)).slice(0, 2 + this.int(5)) };
      case 3: {
        const frames = this.signed(this.parts(type, content));
        frames[2] = this.pick([Buffer.from(""), this.bytes(32), Buffer.from("0".repeat(64)), Buffer.from(frames[2].toString().toUpperCase())]);
        return { kind: "bad signature", frames };
      }
      case 4: {
        const parts = this.parts(type, content);
        parts[this.int(4)] = Buffer.from(this.pick(["{", "nul", "{\"a\":}", "[1,2", "\"unterminated", "{}{}"]));
        return { kind: "not JSON", frames: this.signed(parts) };
      }
      case 5: {
        const parts = this.parts(type, content);
        const i = this.int(4);
        parts[i] = Buffer.concat([parts[i].subarray(0, 1), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), parts[i].subarray(1)]);
        return { kind: "invalid UTF-8", frames: this.signed(parts) };
      }
      case 6: {
        // A large JSON value (up to 1 MiB) in the content, or in the header (over its limit). Never as a
        // cell to run or a program to type-check: a cell's text is kept (history, tracebacks) by design,
        // and the checker's memory follows the programs it is given; that is the soak's business.
        const big = { code: "x".repeat(this.int(1 << 20)), list: Array.from({ length: this.int(2000) }, (_, i) => i) };
        const parts = this.parts(this.pick(["kernel_info_request", "comm_info_request", "is_complete_request", "history_request"]), big);
        if (this.r() < 0.3) parts[0] = Buffer.from(JSON.stringify({ ...JSON.parse(parts[0].toString()), pad: "y".repeat(100_000) }));
        return { kind: "huge JSON", frames: this.signed(parts) };
      }
      case 7: {
        const header: Record<string, unknown> = newHeader(type, this.o.origin);
        header[this.pick(HEADER_FIELDS)] = this.pick(WRONG_VALUES);
        if (this.r() < 0.3) delete header[this.pick(HEADER_FIELDS)];
        const safe = type === "shutdown_request" ? { restart: "maybe" } : content;
        const parts = [header, this.pick([{}, null, 5, "p"]), this.pick([{}, [], 3]), safe].map((p) => Buffer.from(JSON.stringify(p)));
        return { kind: "wrong header types", frames: this.signed(parts) };
      }
      case 8: return { kind: "unknown msg_type", frames: this.signed(this.parts(this.pick(UNKNOWN_TYPES), content)) };
      case 9:
      case 10: {
        // A request of a known type with one field (or the whole content) of another JSON type.
        const c: Record<string, unknown> = { ...content };
        const keys = Object.keys(c);
        const key = keys.length ? this.pick(keys) : "target_name";
        c[key] = this.pick(WRONG_VALUES.filter((v) => jsonType(v) !== jsonType(content[key]) && (content[key] !== undefined || v !== null)));
        const whole = this.r() < 0.1 ? this.pick(WRONG_VALUES) : c;
        return { kind: "wrong content types", frames: this.signed(this.parts(type, whole)) };
      }
      default: return { kind: "valid", frames: this.signed(this.parts(type, content)) };
    }
  }
}

/** The resident set of one process, in bytes (Linux). */
export function ownRssBytes(pid: number): number {
  const status = require("fs").readFileSync(`/proc/${pid}/status`, "utf8") as string;
  const kb = /VmRSS:\s+(\d+) kB/.exec(status);
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

/**
 * The resident set of a kernel process with its child processes' (its type
 * checker runs in one when started from its snapshot), in bytes (Linux).
 */
export function rssBytes(pid: number): number {
  const fs = require("fs") as typeof import("fs");
  let total = ownRssBytes(pid);
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) total += ownRssBytes(Number(d));
    } catch { /* gone */ }
  }
  return total;
}

/** Frames of one fuzz run, sent on shell and control (and a few on stdin) of a running kernel. */
export interface FuzzRun {
  /** Messages sent, by kind. */
  counts: Record<string, number>;
  /** The kernel's RSS when the run began and after each checkpoint (bytes). */
  rss: { after: number; bytes: number }[];
  seconds: number;
}

/** Sends `total` fuzz messages to the kernel behind `k`, reading every reply, and samples its RSS at the checkpoints. */
export async function runFuzz(k: import("../../kernel/transport/client").KernelClient, seed: number, total: number,
                              hugeAt: number[], checkpoints: number[], settle: () => Promise<void>): Promise<FuzzRun> {
  const only = process.env.TSGPU_FUZZ_ONLY?.split(",").map(Number);
  const fuzzer = new Fuzzer(seed, { signer: k.signer, origin: k.origin, hugeAt, only });
  const counts: Record<string, number> = {};
  const rss = [{ after: 0, bytes: rssBytes(k.proc!.pid!) }];
  const t0 = Date.now();
  const sockets = process.env.TSGPU_FUZZ_SOCKETS ? process.env.TSGPU_FUZZ_SOCKETS.split(",").map((n) => (k as any)[n]) : [k.shell, k.control, k.shell, k.control, k.stdin];
  for (let i = 1; i <= total; i++) {
    const { kind, frames } = fuzzer.next();
    counts[kind] = (counts[kind] ?? 0) + 1;
    await sockets[i % sockets.length].send(frames);
    // Let the kernel keep up now and then (zeromq would otherwise queue the whole run in this process).
    if (i % 500 === 0) await k.request("kernel_info_request", {}, "control", 60000);
    if (checkpoints.includes(i)) {
      await settle();
      rss.push({ after: i, bytes: rssBytes(k.proc!.pid!) });
    }
  }
  return { counts, rss, seconds: (Date.now() - t0) / 1000 };
}
