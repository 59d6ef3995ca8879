/**
 * Messages between the main thread (dispatcher, user code) and the transport
 * worker (sockets). Messages travel decoded; the worker signs and verifies.
 */
import type { Channel, Message } from "../protocol/message";
import type { ConnectionInfo } from "../protocol/connection";

export interface WorkerInit {
  info: ConnectionInfo;
  /** Int32Array over a SharedArrayBuffer; index 0 is set to 1 to interrupt the running cell. */
  interruptFlag: SharedArrayBuffer;
  /** Holds stdin replies for a cell that waits synchronously (`prompt()`): see StdinMailbox. */
  stdinBox: SharedArrayBuffer;
  /** The SharedRing (ring.ts) that carries outgoing messages from the main thread. */
  outRing: SharedArrayBuffer;
  /** Static kernel_info content, so the worker can answer on control without the main thread. */
  kernelInfo: Record<string, unknown>;
}

export type ToMain =
  | { kind: "ready"; ports: Record<string, number> }
  | { kind: "request"; channel: "shell" | "control"; msg: Message; receivedAt: number }
  | { kind: "stdin"; msg: Message }
  | { kind: "interrupt" }
  | { kind: "log"; text: string };

export type ToWorker =
  | { kind: "send"; channel: Channel; msg: Message }
  | { kind: "shutdown-handled" }
  /** The main thread is ready: requests held since start go to it now. */
  | { kind: "serving" }
  | { kind: "device-usage"; devices: Record<string, unknown> }
  | { kind: "close" };

/** Layout of the stdin mailbox: [state, byteLength] as Int32, then UTF-8 bytes. */
export const STDIN_HEADER_BYTES = 8;
export const STDIN_CAPACITY_BYTES = 1 << 20;
export const STDIN_EMPTY = 0;
export const STDIN_FULL = 1;
