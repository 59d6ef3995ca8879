/**
 * Messages between the main thread (dispatcher, user code, shell and iopub
 * sockets) and the socket worker (control, stdin, heartbeat). Messages travel
 * decoded; each thread signs and verifies what its own sockets carry.
 */
import type { Channel, Message } from "../protocol/message";
import type { ConnectionInfo } from "../protocol/connection";
import type { ListenFds } from "./listen_fds";

/**
 * A module that runs on the socket thread beside the kernel's sockets, so
 * that it answers while a cell holds the main thread (the launcher's comm
 * port listener: gateway/comm_listener.ts). `file` exports
 * `startCompanion(data, link)`; its messages and the main thread's travel
 * over `link` as plain (structured-clone) values.
 */
export interface ThreadCompanion { file: string; data: unknown }

/** The socket thread's side of a companion's conversation with the main thread. */
export interface CompanionLink {
  /** Sends a message to the main thread (Transport's onCompanion). */
  send(msg: unknown): void;
  /** Calls fn for each message the main thread sends (Transport.toCompanion). */
  onMessage(fn: (msg: unknown) => void): void;
}

export interface WorkerInit {
  info: ConnectionInfo;
  /** A module to run on this thread as well (optional; none by default). */
  companion?: ThreadCompanion;
  /** Listening sockets the launcher bound for control, stdin and heartbeat (see listen_fds.ts), if any. */
  listenFds: ListenFds;
  /**
   * Int32Array over a SharedArrayBuffer: index 0 is set to 1 to interrupt the
   * running cell; index RELAY_PENDING to 1 when the relay ring has messages.
   */
  interruptFlag: SharedArrayBuffer;
  /** Holds stdin replies for a cell that waits synchronously (`prompt()`): see StdinMailbox. */
  stdinBox: SharedArrayBuffer;
  /** The SharedRing (ring.ts) that carries control and stdin messages from the main thread. */
  outRing: SharedArrayBuffer;
  /** The SharedRing that carries this thread's iopub messages (signed) to the main thread. */
  relayRing: SharedArrayBuffer;
  /** The process whose end ends the kernel: JPY_PARENT_PID (set by jupyter_client), else the parent at start. */
  parentPid: number;
  /** Static kernel_info content, so the worker can answer on control without the main thread. */
  kernelInfo: Record<string, unknown>;
}

export type ToMain =
  | { kind: "ready" }
  | { kind: "request"; channel: "control"; msg: Message }
  /** The relay ring has iopub messages to send. */
  | { kind: "relay" }
  | { kind: "stdin"; msg: Message }
  /** An interrupt_request set the flag; `date` is its header's (when the client sent it). */
  | { kind: "interrupt"; date?: string }
  | { kind: "log"; text: string }
  /**
   * The socket thread closed its sockets (it stays up until the process ends); `zeroCopyFrames`: binary frames it
   * handed zeromq without a copy (frames.ts), which make the process's teardown unsafe (guard.ts, exitProcess).
   */
  | { kind: "closed"; zeroCopyFrames: number }
  /** From the companion module. */
  | { kind: "companion"; msg: unknown };

export type ToWorker =
  | { kind: "send"; channel: Channel; msg: Message }
  | { kind: "shutdown-handled" }
  | { kind: "device-usage"; devices: Record<string, unknown> }
  | { kind: "close" }
  /** For the companion module. */
  | { kind: "companion"; msg: unknown };

/** Index in the interrupt flag array that says the relay ring has messages. */
export const RELAY_PENDING = 1;
/** Length of the interrupt flag array (Int32 elements). */
export const FLAG_WORDS = 2;

/** Layout of the stdin mailbox: [state, byteLength] as Int32, then UTF-8 bytes. */
export const STDIN_HEADER_BYTES = 8;
export const STDIN_CAPACITY_BYTES = 1 << 20;
export const STDIN_EMPTY = 0;
export const STDIN_FULL = 1;
