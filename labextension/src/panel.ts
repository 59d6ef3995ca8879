/**
 * The side panel: for the active notebook's tsgpu kernel, per device the
 * allocated, reserved and peak bytes now and over time (chart.ts), the
 * largest holders by variable, and the remedies (Empty cache; Reset, after
 * a confirmation in the panel). It talks to the kernel only while it is
 * shown and a tsgpu kernel is there (connection.ts); for another kernel, or
 * none, it says so.
 */
import type { NotebookPanel } from "@jupyterlab/notebook";
import type { Kernel } from "@jupyterlab/services";
import { Widget } from "@lumino/widgets";
import { drawChart, Sample } from "./chart";
import { isTsgpu, MemoryConnection, Snapshot } from "./connection";
import { formatBytes } from "./format";

/** Samples kept per device (at most one every 500 ms: a few minutes of history). */
export const MAX_SAMPLES = 600;

type State = "no-notebook" | "no-kernel" | "not-tsgpu" | "connecting" | "connected" | "restarting" | "failed";

function div(cls: string, text?: string): HTMLDivElement {
  const d = document.createElement("div");
  d.className = cls;
  if (text !== undefined) d.textContent = text;
  return d;
}

export class MemoryPanelWidget extends Widget {
  private notebook: NotebookPanel | null = null;
  private connection: MemoryConnection | null = null;
  private samples = new Map<string, Sample[]>();
  private last: Snapshot | null = null;
  private state: State = "no-notebook";
  private why = "";
  /** Bumped on every (re)connection, so that an old one's late answers are ignored. */
  private generation = 0;
  private readonly statusNode = div("tsgpu-panel-status");
  private readonly devicesNode = div("tsgpu-panel-devices");
  private readonly holdersNode = div("tsgpu-panel-holders");
  private readonly actionsNode = div("tsgpu-panel-actions");
  private readonly resultNode = div("tsgpu-panel-result");

  constructor() {
    super();
    this.id = "tsgpu-memory-panel";
    this.addClass("tsgpu-panel");
    this.title.caption = "tsgpu memory: the notebook kernel's device memory and what holds it";
    this.title.label = "Memory";
    this.title.iconClass = "tsgpu-panel-icon";
    const head = div("tsgpu-panel-title", "Device memory");
    this.node.append(head, this.statusNode, this.devicesNode, div("tsgpu-panel-subtitle", "Largest holders"), this.holdersNode, this.actionsNode, this.resultNode);
    this.renderActions();
    this.render();
  }

  /** Follows `panel` (the active notebook, or null): reconnects to its kernel and whenever that kernel changes. */
  setNotebook(panel: NotebookPanel | null): void {
    if (panel === this.notebook) return;
    if (this.notebook) {
      this.notebook.sessionContext.kernelChanged.disconnect(this.onKernelChanged, this);
      this.notebook.sessionContext.statusChanged.disconnect(this.onStatus, this);
    }
    this.notebook = panel;
    if (panel) {
      panel.sessionContext.kernelChanged.connect(this.onKernelChanged, this);
      panel.sessionContext.statusChanged.connect(this.onStatus, this);
    }
    void this.reconnect();
  }

  protected onAfterShow(): void { void this.reconnect(); }

  protected onAfterHide(): void { this.disconnect(); this.render(); }

  dispose(): void { this.disconnect(); super.dispose(); }

  private onKernelChanged(): void { void this.reconnect(); }

  private onStatus(_: unknown, status: Kernel.Status): void {
    if (status === "restarting" || status === "autorestarting" || status === "dead") {
      this.disconnect();
      this.state = status === "dead" ? "no-kernel" : "restarting";
      this.why = status === "dead" ? "The kernel is dead." : "The kernel is restarting.";
      this.render();
    } else if (status === "idle" && !this.connection && (this.state === "restarting" || this.state === "failed")) {
      void this.reconnect();
    }
  }

  private disconnect(): void {
    this.generation++;
    this.connection?.close();
    this.connection = null;
  }

  /** Drops the current comm and history, and opens one to the current notebook's kernel if it is tsgpu. */
  private async reconnect(): Promise<void> {
    this.disconnect();
    const gen = this.generation;
    this.samples = new Map();
    this.last = null;
    this.resultNode.textContent = "";
    const kernel = this.notebook?.sessionContext.session?.kernel ?? null;
    if (!this.notebook) { this.setState("no-notebook", "Open a notebook to see its kernel's memory."); return; }
    if (!kernel) { this.setState("no-kernel", "This notebook has no kernel."); return; }
    if (!this.isVisible) { this.render(); return; }
    this.setState("connecting", "Connecting to the kernel…");
    if (!(await isTsgpu(kernel))) {
      if (gen === this.generation) this.setState("not-tsgpu", `The kernel of this notebook (${kernel.name}) is not tsgpu: the memory panel shows tsgpu kernels only.`);
      return;
    }
    if (gen !== this.generation) return;
    const connection = new MemoryConnection(kernel, (s) => { if (gen === this.generation) this.add(s); }, (reason) => {
      if (gen !== this.generation) return;
      this.connection = null;
      this.setState("restarting", `Disconnected: ${reason}.`);
    });
    this.connection = connection;
    try {
      await connection.open();
      if (gen === this.generation) this.setState("connected", "");
    } catch (e) {
      if (gen === this.generation) { this.connection = null; this.setState("failed", `Could not reach the kernel's memory panel: ${(e as Error).message}`); }
    }
  }

  private setState(state: State, why: string): void {
    this.state = state;
    this.why = why;
    this.render();
  }

  /** A snapshot from the kernel: becomes a sample of every device, and the shown numbers. */
  private add(s: Snapshot): void {
    this.last = s;
    for (const d of s.devices) {
      const list = this.samples.get(d.device) ?? [];
      list.push({ time: s.time, allocated: d.allocated, reserved: d.reserved, peak: d.peak });
      if (list.length > MAX_SAMPLES) list.splice(0, list.length - MAX_SAMPLES);
      this.samples.set(d.device, list);
    }
    this.render();
  }

  private renderActions(): void {
    const empty = document.createElement("button");
    empty.className = "jp-mod-styled jp-mod-reject tsgpu-panel-empty-cache";
    empty.textContent = "Empty cache";
    empty.title = "%empty_cache: free unreferenced tensors and return cached memory to the device";
    empty.onclick = () => void this.run("empty_cache");
    const reset = document.createElement("button");
    reset.className = "jp-mod-styled jp-mod-warn tsgpu-panel-reset";
    reset.textContent = "Reset…";
    reset.title = "%reset -f: drop every variable of the notebook and free their tensors (asks first)";
    reset.onclick = () => this.confirmReset();
    this.actionsNode.append(empty, reset);
  }

  /** Asks, inside the panel, before %reset drops every variable. */
  private confirmReset(): void {
    this.resultNode.textContent = "";
    const box = div("tsgpu-panel-confirm");
    box.append(div("tsgpu-panel-confirm-text", "Drop every variable of this notebook's kernel? They cannot be recovered."));
    const yes = document.createElement("button");
    yes.className = "jp-mod-styled jp-mod-warn tsgpu-panel-confirm-reset";
    yes.textContent = "Reset";
    yes.onclick = () => void this.run("reset");
    const no = document.createElement("button");
    no.className = "jp-mod-styled jp-mod-reject tsgpu-panel-confirm-cancel";
    no.textContent = "Cancel";
    no.onclick = () => { this.resultNode.textContent = ""; };
    box.append(yes, no);
    this.resultNode.appendChild(box);
  }

  private async run(remedy: "empty_cache" | "reset"): Promise<void> {
    const c = this.connection;
    this.resultNode.textContent = remedy === "reset" ? "Resetting…" : "Emptying the cache…";
    if (!c) { this.resultNode.textContent = "Not connected to a tsgpu kernel."; return; }
    try {
      const r = remedy === "reset" ? await c.reset() : await c.emptyCache();
      this.resultNode.textContent = "";
      this.resultNode.appendChild(div(`tsgpu-panel-result-text tsgpu-panel-result-${remedy}`, r.text || "Done."));
    } catch (e) {
      this.resultNode.textContent = `${remedy === "reset" ? "%reset" : "%empty_cache"} failed: ${(e as Error).message}`;
    }
  }

  private render(): void {
    this.node.dataset.state = this.state;
    const s = this.last;
    const connected = this.state === "connected";
    this.statusNode.textContent = connected && s
      ? (s.runtime_loaded ? `${this.notebook?.title.label ?? ""} · after cell In[${s.cell}]${s.busy ? " (running)" : ""}` : "No tensors yet: the runtime loads with the first cell that uses torch.")
      : (!this.isVisible && this.notebook ? "" : this.why);
    for (const b of Array.from(this.actionsNode.querySelectorAll("button"))) (b as HTMLButtonElement).disabled = !connected;
    this.devicesNode.textContent = "";
    this.holdersNode.textContent = "";
    if (!connected || !s) return;
    for (const d of s.devices) {
      const box = div("tsgpu-panel-device");
      box.dataset.device = d.device;
      box.dataset.allocated = String(d.allocated);
      box.dataset.reserved = String(d.reserved);
      box.dataset.peak = String(d.peak);
      box.appendChild(div("tsgpu-panel-device-name", `${d.device}${d.total ? ` — ${formatBytes(d.total)}` : ""}`));
      const table = document.createElement("table");
      table.className = "tsgpu-panel-numbers";
      for (const [key, label] of [["allocated", "allocated"], ["reserved", "reserved"], ["peak", "peak"]] as const) {
        const tr = document.createElement("tr");
        tr.className = `tsgpu-panel-row-${key}`;
        const name = document.createElement("td");
        name.innerHTML = `<span class="tsgpu-panel-swatch tsgpu-panel-swatch-${key}"></span>`;
        name.append(label);
        const value = document.createElement("td");
        value.className = `tsgpu-panel-value tsgpu-panel-${key}`;
        value.textContent = formatBytes(d[key]);
        tr.append(name, value);
        table.appendChild(tr);
      }
      box.appendChild(table);
      box.appendChild(drawChart(this.samples.get(d.device) ?? []));
      this.devicesNode.appendChild(box);
    }
    if (!s.holders.length) { this.holdersNode.appendChild(div("tsgpu-panel-empty", "No live tensors.")); return; }
    const table = document.createElement("table");
    table.className = "tsgpu-panel-holder-table";
    for (const h of s.holders) {
      const tr = document.createElement("tr");
      tr.className = "tsgpu-panel-holder";
      tr.dataset.label = h.label;
      tr.dataset.bytes = String(h.bytes);
      const label = document.createElement("td");
      label.className = "tsgpu-panel-holder-label";
      label.textContent = h.label;
      label.title = `${h.kind}: ${h.tensors} tensor${h.tensors === 1 ? "" : "s"}`;
      const bytes = document.createElement("td");
      bytes.className = "tsgpu-panel-value";
      bytes.textContent = formatBytes(h.bytes);
      tr.append(label, bytes);
      table.appendChild(tr);
    }
    this.holdersNode.appendChild(table);
  }
}
