/**
 * Comms: the Jupyter protocol's channels between a frontend widget and
 * kernel code (comm_open / comm_msg / comm_close). Cells see the `comms`
 * global:
 *
 *   comms.registerTarget("counter", (comm, data) => {
 *     comm.onMsg((d) => comm.send({ echo: d }));
 *   });
 *   const c = comms.open("counter", { start: 1 });   // kernel-initiated
 *
 * Messages the kernel sends go on iopub with the request being handled (or
 * the cell that runs) as their parent, as ipykernel does.
 */
import { randomUUID } from "crypto";
import type { Message } from "./protocol/message";

export type CommData = Record<string, unknown>;
export type CommMsgHandler = (data: CommData, msg: Message) => void | Promise<void>;
export type CommCloseHandler = (data: CommData, msg: Message | undefined) => void | Promise<void>;
/** Called when a frontend opens a comm to this target; `data` is the comm_open's data. */
export type CommTargetHandler = (comm: Comm, data: CommData, msg: Message) => void | Promise<void>;

/** Sends one comm message on iopub (`comm_open`, `comm_msg` or `comm_close`). */
export type CommPublish = (msgType: "comm_open" | "comm_msg" | "comm_close", content: Record<string, unknown>,
                           metadata: Record<string, unknown>, buffers: Buffer[]) => void;

function expectObject(name: string, v: unknown): CommData {
  if (v === undefined) return {};
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new TypeError(`expected an object for ${name}, got ${v === null ? "null" : Array.isArray(v) ? "an array" : typeof v}`);
  return v as CommData;
}

function toBuffers(buffers: ArrayBufferView[] | undefined): Buffer[] {
  return (buffers ?? []).map((b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** One open comm, as cells and comm targets see it. */
export class Comm {
  private msgHandlers: CommMsgHandler[] = [];
  private closeHandlers: CommCloseHandler[] = [];
  private closed = false;

  constructor(readonly commId: string, readonly targetName: string, private readonly registry: CommRegistry) {}

  get isClosed(): boolean { return this.closed; }

  /** Sends `data` (and binary `buffers`) to the frontend side of this comm. */
  send(data: CommData = {}, options: { metadata?: CommData; buffers?: ArrayBufferView[] } = {}): void {
    if (this.closed) throw new Error(`comm ${this.commId} (target "${this.targetName}") is closed; cannot send`);
    this.registry.publish("comm_msg", { comm_id: this.commId, data: expectObject("data", data) },
      expectObject("metadata", options.metadata), toBuffers(options.buffers));
  }

  /** Closes the comm on both sides; closing twice does nothing. */
  close(data: CommData = {}): void {
    if (this.closed) return;
    this.registry.publish("comm_close", { comm_id: this.commId, data: expectObject("data", data) }, {}, []);
    this.registry.forget(this.commId);
    this.closed = true;
    void this.registry.callAll(this.closeHandlers, data, undefined);
  }

  /** Adds a handler for messages from the frontend. */
  onMsg(handler: CommMsgHandler): this { this.msgHandlers.push(handler); return this; }

  /** Adds a handler for when the comm closes (from either side). */
  onClose(handler: CommCloseHandler): this { this.closeHandlers.push(handler); return this; }

  /** @internal a comm_msg from the frontend. */
  receive(data: CommData, msg: Message): Promise<void> { return this.registry.callAll(this.msgHandlers, data, msg); }

  /** @internal a comm_close from the frontend. */
  closedByFrontend(data: CommData, msg: Message): Promise<void> {
    this.closed = true;
    return this.registry.callAll(this.closeHandlers, data, msg);
  }
}

/** The comm targets cells registered and the comms open now. */
export class CommRegistry {
  private readonly targets = new Map<string, CommTargetHandler>();
  private readonly open = new Map<string, Comm>();

  /**
   * `ignored` reports messages for comms that do not exist (a frontend can
   * send any number of them: the kernel gives it a rate-limited log).
   */
  constructor(readonly publish: CommPublish, private readonly log: (text: string) => void,
              private readonly ignored: (text: string) => void = log) {}

  /** Lets frontends open comms to `targetName`; a second registration replaces the first. */
  registerTarget(targetName: string, handler: CommTargetHandler): void {
    if (typeof targetName !== "string" || !targetName) throw new TypeError(`expected a non-empty string for targetName, got ${JSON.stringify(targetName)}`);
    if (typeof handler !== "function") throw new TypeError(`expected a function for handler, got ${typeof handler}`);
    this.targets.set(targetName, handler);
  }

  unregisterTarget(targetName: string): boolean { return this.targets.delete(targetName); }

  /** Opens a comm from the kernel side (the frontend must have a handler for the target). */
  openComm(targetName: string, data: CommData = {}, options: { metadata?: CommData; buffers?: ArrayBufferView[]; commId?: string } = {}): Comm {
    if (typeof targetName !== "string" || !targetName) throw new TypeError(`expected a non-empty string for targetName, got ${JSON.stringify(targetName)}`);
    const comm = new Comm(options.commId ?? randomUUID(), targetName, this);
    this.open.set(comm.commId, comm);
    this.publish("comm_open", { comm_id: comm.commId, target_name: targetName, data: expectObject("data", data) },
      expectObject("metadata", options.metadata), toBuffers(options.buffers));
    return comm;
  }

  /** The open comms, optionally only those of one target (for comm_info_reply). */
  list(targetName?: string): Record<string, { target_name: string }> {
    const out: Record<string, { target_name: string }> = {};
    for (const [id, c] of this.open) if (!targetName || c.targetName === targetName) out[id] = { target_name: c.targetName };
    return out;
  }

  get(commId: string): Comm | undefined { return this.open.get(commId); }

  /** @internal */
  forget(commId: string): void { this.open.delete(commId); }

  /** Handles a frontend's comm_open: calls the target's handler, or closes the comm when there is none. */
  async onOpen(msg: Message): Promise<void> {
    const c = msg.content;
    const commId = String(c.comm_id ?? "");
    const target = String(c.target_name ?? "");
    const handler = this.targets.get(target);
    if (!commId) { this.log("comm_open without comm_id ignored"); return; }
    if (!handler) {
      this.log(`comm_open for unknown target "${target}"; closing it`);
      this.publish("comm_close", { comm_id: commId, data: {} }, {}, []);
      return;
    }
    const comm = new Comm(commId, target, this);
    this.open.set(commId, comm);
    try {
      await handler(comm, expectObject("data", c.data ?? {}), msg);
    } catch (e) {
      this.log(`comm target "${target}" failed on open: ${(e as Error)?.stack ?? e}`);
      comm.close();
    }
  }

  /** Handles a frontend's comm_msg. */
  async onMsg(msg: Message): Promise<void> {
    const comm = this.open.get(String(msg.content.comm_id));
    if (!comm) { this.ignored(`comm_msg for unknown comm ${String(msg.content.comm_id).slice(0, 80)} ignored`); return; }
    await comm.receive(expectObject("data", msg.content.data ?? {}), msg);
  }

  /** Handles a frontend's comm_close. */
  async onClose(msg: Message): Promise<void> {
    const id = String(msg.content.comm_id);
    const comm = this.open.get(id);
    if (!comm) { this.ignored(`comm_close for unknown comm ${id.slice(0, 80)} ignored`); return; }
    this.open.delete(id);
    await comm.closedByFrontend(expectObject("data", msg.content.data ?? {}), msg);
  }

  /** @internal runs handlers in order; one that throws is logged and does not stop the others. */
  async callAll<A extends unknown[]>(handlers: ((...args: A) => unknown)[], ...args: A): Promise<void> {
    for (const h of handlers) {
      try { await h(...args); } catch (e) { this.log(`comm handler failed: ${(e as Error)?.stack ?? e}`); }
    }
  }

  /** The object cells see as `comms`. */
  api() {
    return {
      registerTarget: (name: string, handler: CommTargetHandler) => this.registerTarget(name, handler),
      unregisterTarget: (name: string) => this.unregisterTarget(name),
      open: (name: string, data?: CommData, options?: { metadata?: CommData; buffers?: ArrayBufferView[] }) => this.openComm(name, data, options),
      get: (commId: string) => this.get(commId),
      list: (targetName?: string) => this.list(targetName),
    };
  }
}
