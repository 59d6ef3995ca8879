/**
 * The Jupyter wire format: frames `[ids..., "<IDS|MSG>", signature, header,
 * parent_header, metadata, content, buffers...]`, signed with an HMAC of the
 * four JSON parts. Pure: no sockets.
 */
import { createHmac, createSecretKey, getHashes, KeyObject, timingSafeEqual } from "crypto";
import { isUtf8 } from "buffer";
import { Message } from "./message";
import type { DropLog } from "./drop_log";

export const DELIMITER = Buffer.from("<IDS|MSG>");

/** Signs and verifies message parts with one key and scheme (`hmac-sha256`, …). */
export class Signer {
  private readonly algorithm: string | null;
  /** The key as a KeyObject, made once: a string key is converted again by every createHmac (5–6 per cell). */
  private readonly secret: KeyObject | null;

  /** An empty key means messages are unsigned and signatures are not checked. */
  constructor(key: string, scheme = "hmac-sha256") {
    this.secret = key ? createSecretKey(Buffer.from(key, "utf8")) : null;
    if (!key) { this.algorithm = null; return; }
    const m = /^hmac-([a-z0-9-]+)$/i.exec(scheme);
    const algorithm = m ? m[1].toLowerCase() : "";
    if (!m || !getHashes().includes(algorithm)) {
      throw new Error(`unsupported signature_scheme "${scheme}": expected hmac-<hash> with a hash Node supports (e.g. hmac-sha256)`);
    }
    this.algorithm = algorithm;
  }

  get enabled(): boolean { return this.algorithm !== null; }

  /** The hex signature of the parts (strings count as their UTF-8 bytes); "" when unsigned. */
  sign(parts: readonly (Buffer | string)[]): string {
    if (!this.algorithm || !this.secret) return "";
    const h = createHmac(this.algorithm, this.secret);
    for (const p of parts) h.update(p);
    return h.digest("hex");
  }

  /**
   * Constant-time comparison of a received signature with the expected one:
   * the received one is copied into a buffer of the expected length, so the
   * comparison takes the same time whatever was sent (a wrong length too).
   */
  verify(signature: string, parts: Buffer[]): boolean {
    if (!this.algorithm) return true;
    const expected = Buffer.from(this.sign(parts), "latin1");
    const got = Buffer.alloc(expected.length);
    const received = Buffer.from(signature, "latin1");
    received.copy(got);
    return timingSafeEqual(got, expected) && received.length === expected.length;
  }
}

export class WireError extends Error {
  /** A short name of the problem, for counting drops by kind ("invalid signature", "not JSON", …). */
  constructor(message: string, readonly kind = "malformed frames") { super(message); this.name = "WireError"; }
}

/**
 * The largest header frame accepted (bytes). Every reply and status message
 * carries the request's header back as its parent: a larger one would let a
 * client make the kernel queue copies of it on every socket.
 */
export const kMaxHeaderBytes = 64 * 1024;

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value ?? {}));
}

/** Message → frames, signed. */
export function encode(msg: Message, signer: Signer): Buffer[] {
  const parts = [json(msg.header), json(msg.parent_header), json(msg.metadata), json(msg.content)];
  return [...msg.idents, DELIMITER, Buffer.from(signer.sign(parts)), ...parts, ...msg.buffers];
}

/** A frame as zeromq takes it: a string goes as its UTF-8 bytes. */
export type SendFrame = Buffer | string;

/**
 * Message → frames, signed, the same bytes on the wire as `encode` but with
 * the signature and the four JSON parts as strings: zeromq.js copies a string
 * into memory it owns, where a Buffer of more than 128 bytes is sent without
 * a copy and its reference handed back to the sending thread afterwards (an
 * async wake-up of that thread's event loop for every such frame). For the
 * main thread's sends (5 a cell), which the kernel makes as fast as it can.
 */
export function encodeText(msg: Message, signer: Signer): SendFrame[] {
  const parts = [JSON.stringify(msg.header ?? {}), JSON.stringify(msg.parent_header ?? {}),
    JSON.stringify(msg.metadata ?? {}), JSON.stringify(msg.content ?? {})];
  const frames: SendFrame[] = msg.idents.length ? [...msg.idents, DELIMITER] : [DELIMITER];
  frames.push(signer.sign(parts), parts[0], parts[1], parts[2], parts[3]);
  for (const b of msg.buffers) frames.push(b);
  return frames;
}

/** Bytes of frames (a string counts as its UTF-8 bytes). */
export function frameBytes(frames: readonly SendFrame[]): number {
  let n = 0;
  for (const f of frames) n += typeof f === "string" ? Buffer.byteLength(f) : f.length;
  return n;
}

/** Signs frames made by `encode` with an unsigned Signer (the signature frame is replaced in place). */
export function signFrames(frames: Buffer[], signer: Signer): Buffer[] {
  const at = frames.findIndex((f) => f.length === DELIMITER.length && f.equals(DELIMITER));
  if (at < 0 || frames.length < at + 6) throw new WireError("cannot sign: frames are not a message");
  frames[at + 1] = Buffer.from(signer.sign(frames.slice(at + 2, at + 6)));
  return frames;
}

/** Frames → message. Throws WireError when the frames are malformed or the signature is wrong. */
export function decode(frames: Buffer[], signer: Signer): Message {
  const at = frames.findIndex((f) => f.length === DELIMITER.length && f.equals(DELIMITER));
  if (at < 0) throw new WireError(`no <IDS|MSG> delimiter in ${frames.length} message frames`, "no delimiter");
  if (frames.length < at + 6) throw new WireError(`message has ${frames.length - at - 1} frames after the delimiter, expected at least 5`, "too few frames");
  const signature = frames[at + 1].toString("latin1");
  const parts = frames.slice(at + 2, at + 6);
  if (!signer.verify(signature, parts)) {
    throw signature ? new WireError("invalid message signature", "invalid signature") : new WireError("missing message signature", "missing signature");
  }
  if (parts[0].length > kMaxHeaderBytes) throw new WireError(`header frame of ${parts[0].length} bytes, expected at most ${kMaxHeaderBytes}`, "header too large");
  const names = ["header", "parent_header", "metadata", "content"];
  const decoded = parts.map((p, i) => {
    if (!isUtf8(p)) throw new WireError(`the ${names[i]} frame (${p.length} bytes) is not valid UTF-8`, "not UTF-8");
    try {
      return JSON.parse(p.toString("utf8"));
    } catch (e) {
      // The parser's message may quote the frame: name the position only.
      const pos = /position (\d+)/.exec((e as Error).message)?.[1];
      throw new WireError(`the ${names[i]} frame (${p.length} bytes) is not JSON${pos ? ` (at byte ${pos})` : ""}`, "not JSON");
    }
  }) as any[];
  const [header, parent, metadata, content] = decoded;
  if (!header || typeof header.msg_type !== "string") throw new WireError("message header has no msg_type", "no msg_type");
  return {
    idents: frames.slice(0, at),
    header,
    parent_header: parent ?? {},
    metadata: metadata ?? {},
    content: content ?? {},
    buffers: frames.slice(at + 6),
  };
}

/**
 * Frames → message, or null when they are malformed or wrongly signed: such a
 * message is dropped, never executed, and `drops` records why (naming the
 * channel), with its rate limit.
 */
export function decodeOrDrop(frames: Buffer[], signer: Signer, channel: string, drops: DropLog): Message | null {
  try {
    return decode(frames, signer);
  } catch (e) {
    if (e instanceof WireError) drops.drop(channel, e.kind, e.message);
    else drops.drop(channel, "decoding failed", String((e as Error)?.stack ?? e));
    return null;
  }
}
