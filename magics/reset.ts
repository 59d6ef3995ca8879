/**
 * %reset [-f] — drops every variable the cells defined, the output history
 * (`Out`) and the kept error, collects garbage so that tensors nothing
 * references any more are freed, and reports what it freed per device.
 */
import { Magic, MagicContext, UsageError } from "./context";
import { formatBytes, htmlTable, textTable } from "./format";

function allocatedByDevice(ctx: MagicContext): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of ctx.runtime.memory.devices()) out[d] = ctx.runtime.memory.allocated(d);
  return out;
}

/** Runs V8's collector and lets the runtime free storages whose tensors were collected. */
export async function collectGarbage(ctx: MagicContext): Promise<void> {
  for (let i = 0; i < 2; i++) {
    ctx.runtime.memory.collectGarbage();
    await new Promise((r) => setImmediate(r));
  }
  ctx.runtime.memory.collectGarbage();
}

export const resetMagic: Magic = {
  name: "reset",
  usage: "%reset -f   (drop all user variables and output history, then free unreferenced tensors)",
  async run(args, ctx) {
    const force = args.includes("-f");
    const unknown = args.filter((a) => a !== "-f");
    if (unknown.length) throw new UsageError(`%reset: unknown option ${unknown[0]}. Usage: ${resetMagic.usage}`);
    if (!force) {
      const answer = typeof (globalThis as any).prompt === "function"
        ? (() => { try { return String((globalThis as any).prompt("Once deleted, variables cannot be recovered. Proceed (y/[n])? ")); } catch { return null; } })()
        : null;
      if (answer === null) { ctx.output.print("Nothing done: this frontend cannot ask for confirmation; use %reset -f."); return; }
      if (!/^y(es)?$/i.test(answer.trim())) { ctx.output.print("Nothing done."); return; }
    }
    const before = allocatedByDevice(ctx);
    const dropped = ctx.namespace.reset();
    await collectGarbage(ctx);
    const after = allocatedByDevice(ctx);
    const devices = Object.keys(after).map((d) => ({ device: d, before: before[d] ?? 0, after: after[d], freed: (before[d] ?? 0) - after[d] }));
    const rows: (string | number)[][] = [["device", "allocated before", "allocated after", "freed"]];
    for (const d of devices) rows.push([d.device, formatBytes(d.before), formatBytes(d.after), formatBytes(d.freed)]);
    const head = `Dropped ${dropped.length} variable${dropped.length === 1 ? "" : "s"}${dropped.length ? ": " + dropped.join(", ") : ""}; cleared output history.`;
    ctx.output.display({
      "text/plain": `${head}\n${textTable(rows)}`,
      "text/html": `<p>${head.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</p>${htmlTable(rows)}`,
      "application/json": { dropped, devices },
    });
  },
};
