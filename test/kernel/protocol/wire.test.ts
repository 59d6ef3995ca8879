import { createHmac } from "crypto";
import { decode, DELIMITER, encode, Signer, WireError } from "../../../kernel/protocol/wire";
import { Message, newHeader, reply, replyType } from "../../../kernel/protocol/message";

const origin = { session: "s1", username: "u" };

function sample(): Message {
  return { idents: [Buffer.from("client-1"), Buffer.from("client-2")], header: newHeader("execute_request", origin),
    parent_header: {}, metadata: { a: 1 }, content: { code: "1+1" }, buffers: [Buffer.from([1, 2, 3])] };
}

describe("wire format", () => {
  test("signature is HMAC-SHA256 of header, parent, metadata, content in hex", () => {
    const msg = sample();
    const frames = encode(msg, new Signer("secret"));
    const at = frames.findIndex((f) => f.equals(DELIMITER));
    expect(at).toBe(2);
    const h = createHmac("sha256", "secret");
    for (const p of frames.slice(at + 2, at + 6)) h.update(p);
    expect(frames[at + 1].toString()).toBe(h.digest("hex"));
  });

  test("frames split at <IDS|MSG>: identities before, JSON parts and buffers after", () => {
    const signer = new Signer("k");
    const back = decode(encode(sample(), signer), signer);
    expect(back.idents.map(String)).toEqual(["client-1", "client-2"]);
    expect(back.content).toEqual({ code: "1+1" });
    expect(back.metadata).toEqual({ a: 1 });
    expect(back.buffers.map((b) => [...b])).toEqual([[1, 2, 3]]);
    expect(back.header.msg_type).toBe("execute_request");
  });

  test("a message with no identities decodes", () => {
    const signer = new Signer("k");
    const msg = { ...sample(), idents: [] };
    expect(decode(encode(msg, signer), signer).idents).toEqual([]);
  });

  test("a wrong signature is rejected", () => {
    const frames = encode(sample(), new Signer("k"));
    expect(() => decode(frames, new Signer("other"))).toThrow(WireError);
    expect(() => decode(frames, new Signer("other"))).toThrow(/invalid message signature/);
  });

  test("a missing signature is rejected when a key is set", () => {
    const frames = encode(sample(), new Signer(""));
    expect(() => decode(frames, new Signer("k"))).toThrow(/missing message signature/);
  });

  test("a tampered content frame is rejected", () => {
    const signer = new Signer("k");
    const frames = encode(sample(), signer);
    const at = frames.findIndex((f) => f.equals(DELIMITER));
    frames[at + 5] = Buffer.from(JSON.stringify({ code: "rm -rf /" }));
    expect(() => decode(frames, signer)).toThrow(WireError);
  });

  test("an empty key means unsigned messages", () => {
    const signer = new Signer("");
    const frames = encode(sample(), signer);
    const at = frames.findIndex((f) => f.equals(DELIMITER));
    expect(frames[at + 1].toString()).toBe("");
    expect(decode(frames, signer).content.code).toBe("1+1");
  });

  test.each(["hmac-sha1", "hmac-sha512", "hmac-md5", "hmac-sha384"])("scheme %s signs and verifies", (scheme) => {
    const signer = new Signer("k", scheme);
    const frames = encode(sample(), signer);
    const algo = scheme.slice(5);
    const at = frames.findIndex((f) => f.equals(DELIMITER));
    const h = createHmac(algo, "k");
    for (const p of frames.slice(at + 2, at + 6)) h.update(p);
    expect(frames[at + 1].toString()).toBe(h.digest("hex"));
    expect(decode(frames, signer).content.code).toBe("1+1");
  });

  test("an unknown scheme is a clear error", () => {
    expect(() => new Signer("k", "rsa-foo")).toThrow(/unsupported signature_scheme "rsa-foo"/);
  });

  test("frames without a delimiter or with too few parts are rejected", () => {
    expect(() => decode([Buffer.from("x")], new Signer(""))).toThrow(/no <IDS\|MSG> delimiter/);
    expect(() => decode([DELIMITER, Buffer.from("")], new Signer(""))).toThrow(/expected at least 5/);
  });

  test("non-JSON parts are rejected", () => {
    const signer = new Signer("");
    const frames = [DELIMITER, Buffer.from(""), Buffer.from("{"), Buffer.from("{}"), Buffer.from("{}"), Buffer.from("{}")];
    expect(() => decode(frames, signer)).toThrow(/not JSON/);
  });

  test("replies carry the parent header and the parent's identities", () => {
    const parent = sample();
    const r = reply(parent, "execute_reply", { status: "ok" }, origin);
    expect(r.parent_header).toBe(parent.header);
    expect(r.idents).toBe(parent.idents);
    expect(r.header.msg_type).toBe("execute_reply");
    expect(r.header.version).toMatch(/^5\./);
    expect(replyType("kernel_info_request")).toBe("kernel_info_reply");
  });
});
