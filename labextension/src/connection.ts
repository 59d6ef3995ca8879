/**
 * The panel's side of the `tsgpu.memory` comm (the kernel's side is
 * kernel/memory_panel.ts): opens one comm to a notebook's kernel, asks for a
 * snapshot, receives the kernel's updates, and sends the remedies
 * (`empty_cache`, `reset`) as requests whose replies it matches by id.
 * Closing it closes the comm, after which the kernel sends nothing.
 */
import type { Kernel, KernelMessage } from "@jupyterlab/services";

/** The comm target of the kernel's memory panel. */
export const TARGET = "tsgpu.memory";

/** One device in a snapshot: bytes allocated, reserved and the peak of allocated, and the device's total. */
export interface DeviceNumbers { device: string; allocated: number; reserved: number; peak: number; total: number }

/** A variable (or output, kept error, runtime label) and the bytes of the tensors it holds. */
export interface Holder { label: string; kind: string; bytes: number; tensors: number }

/** What the kernel sends (version 1 of its fields). */
export interface Snapshot {
  version: number;
  time: number;
  cell: number;
  busy: boolean;
  runtime_loaded: boolean;
  devices: DeviceNumbers[];
  holders: Holder[];
}

/** A remedy's answer: the magic's data, its text, and the snapshot after it. */
export interface RemedyResult { result: Record<string, unknown> | null; text: string; snapshot: Snapshot }

type Pending = { resolve: (data: Record<string, any>) => void; reject: (e: Error) => void };

/** One open comm to one kernel. */
export class MemoryConnection {
  private comm: Kernel.IComm | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  /** `onSnapshot` gets every snapshot (replies and updates); `onClosed` is called when the kernel closes the comm. */
  constructor(private readonly kernel: Kernel.IKernelConnection,
              private readonly onSnapshot: (s: Snapshot) => void,
              private readonly onClosed: (reason: string) => void) {}

  /** Opens the comm and asks for the first snapshot. */
  async open(): Promise<void> {
    const comm = this.kernel.createComm(TARGET);
    this.comm = comm;
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => this.receive(msg.content.data as Record<string, any>);
    comm.onClose = (msg: KernelMessage.ICommCloseMsg) => {
      this.comm = null;
      this.failPending("the kernel closed the memory panel's comm");
      this.onClosed(String((msg.content.data as Record<string, unknown>)?.reason ?? "the kernel closed the comm"));
    };
    await comm.open({}).done;
    const first = await this.request("snapshot");
    this.onSnapshot(first.snapshot as Snapshot);
  }

  /** Runs `%empty_cache` in the kernel. */
  async emptyCache(): Promise<RemedyResult> { return this.remedy("empty_cache"); }

  /** Runs `%reset -f` in the kernel (the caller asks the user first). */
  async reset(): Promise<RemedyResult> { return this.remedy("reset"); }

  /** Closes the comm (the kernel stops its updates); closing twice does nothing. */
  close(): void {
    const comm = this.comm;
    this.comm = null;
    this.failPending("the memory panel closed");
    if (comm && !comm.isDisposed) { try { comm.close(); } catch { /* the kernel is gone */ } }
  }

  get isOpen(): boolean { return this.comm !== null; }

  private async remedy(name: "empty_cache" | "reset"): Promise<RemedyResult> {
    const data = await this.request(name);
    const out = { result: (data.result ?? null) as Record<string, unknown> | null, text: String(data.text ?? ""), snapshot: data.snapshot as Snapshot };
    this.onSnapshot(out.snapshot);
    return out;
  }

  private request(name: string): Promise<Record<string, any>> {
    const comm = this.comm;
    if (!comm) return Promise.reject(new Error("not connected to the kernel"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      comm.send({ request: name, id });
    });
  }

  private receive(data: Record<string, any>): void {
    if (data.update) { this.onSnapshot(data.update as Snapshot); return; }
    const p = typeof data.id === "number" ? this.pending.get(data.id) : undefined;
    if (!p) return;
    this.pending.delete(data.id);
    if (data.error) p.reject(new Error(String(data.error)));
    else p.resolve(data);
  }

  private failPending(why: string): void {
    for (const p of this.pending.values()) p.reject(new Error(why));
    this.pending.clear();
  }
}

/** Whether the kernel is tsgpu (its kernel_info's implementation), whatever its kernelspec is named. */
export async function isTsgpu(kernel: Kernel.IKernelConnection): Promise<boolean> {
  try { return (await kernel.info).implementation === "tsgpu"; } catch { return false; }
}
