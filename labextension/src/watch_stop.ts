/**
 * `%memory --watch on` views left looking live by a restart from
 * JupyterLab's menu. The kernel's last update, which says the view stopped
 * (magics/watch.ts), never lands there: JupyterLab's KernelConnection.restart()
 * drops its futures and its display-id table before it asks the server to
 * restart, so the update_display_data the exiting kernel sends has nowhere
 * to go. When a notebook's kernel restarts, dies or is replaced, this marks
 * every live view of that notebook stopped, in the kernel's own words, in
 * the notebook's model (so a saved notebook says it too).
 */
import type { NotebookPanel } from "@jupyterlab/notebook";

/** The data type of `%memory`'s views (magics/mime.ts). */
export const MEMORY_MIME = "application/vnd.tsgpu.memory.v1+json";

function clock(): string {
  const d = new Date();
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
}

/** A live view's bundle, stopped for `reason`; null when `data` is not a live watch view. */
export function stoppedBundle(data: Record<string, any>, reason: string): Record<string, any> | null {
  const json = data[MEMORY_MIME];
  if (!json || typeof json !== "object" || json.watch !== true) return null;
  const cell = Number(json.cell ?? 0);
  const status = `Memory watch stopped (${reason}) at ${clock()}; the numbers are those after cell In[${cell}].`;
  const out: Record<string, any> = { ...data, [MEMORY_MIME]: { ...json, watch: false, state: "stopped", reason } };
  if (typeof data["text/html"] === "string") {
    out["text/html"] = data["text/html"].replace(/<p class="note tsgpu-watch-status" data-state="live">[\s\S]*?<\/p>/,
      `<p class="note tsgpu-watch-status" data-state="stopped">${status.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</p>`);
  }
  if (typeof data["text/plain"] === "string") out["text/plain"] = data["text/plain"].replace(/\(live\)/, `(stopped: ${reason})`);
  return out;
}

/** Marks every live watch view in `panel`'s notebook stopped; returns how many it changed. */
export function stopWatchViews(panel: NotebookPanel, reason: string): number {
  const model = panel.content.model;
  if (!model) return 0;
  let changed = 0;
  for (let c = 0; c < model.cells.length; c++) {
    const cell = model.cells.get(c) as any;
    if (cell.type !== "code" || !cell.outputs) continue;
    const outputs = cell.outputs;
    for (let i = 0; i < outputs.length; i++) {
      const output = outputs.get(i);
      const json = output.toJSON() as Record<string, any>;
      if (json.output_type !== "display_data" && json.output_type !== "execute_result") continue;
      const data = stoppedBundle(json.data ?? {}, reason);
      if (!data) continue;
      outputs.set(i, { ...json, data });
      changed++;
    }
  }
  return changed;
}
