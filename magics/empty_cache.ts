/**
 * %empty_cache [DEVICE] — frees tensors that nothing references any more
 * (a garbage collection), returns every releasable cached segment to the
 * device, and reports what it released, what stays reserved and why: split
 * blocks still in use, and memory held by live tensors, naming their
 * largest holders.
 */
import { Magic, UsageError } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlTable, textTable } from "./format";
import { magicMime } from "./mime";
import { tensorsByHolder } from "./memory_tensors";
import { collectGarbage } from "./reset";

/** Holders named in the report. */
const kHolders = 3;

export const emptyCacheMagic: Magic = {
  name: "empty_cache",
  usage: "%empty_cache [DEVICE]   (free unreferenced tensors, release cached memory of every device or of one, say what stays and why)",
  async run(args, ctx) {
    const known = ctx.runtime.memory.devices();
    if (args.length > 1 || (args[0] && !known.includes(args[0]))) {
      throw new UsageError(`%empty_cache: expected one of ${known.join(", ")} or nothing for DEVICE, got ${args.join(" ")}`);
    }
    const devices = args.length ? args : known;
    const allocatedBefore = new Map(devices.map((d) => [d, ctx.runtime.memory.allocated(d)]));
    await collectGarbage(ctx);
    const results = devices.map((device) => {
      const m = ctx.runtime.memory;
      const reservedBefore = m.reserved(device);
      const r = m.emptyCache(device);
      return {
        device, reserved_before: reservedBefore, reserved_after: m.reserved(device),
        collected_bytes: (allocatedBefore.get(device) ?? 0) - m.allocated(device),
        released_bytes: r.releasedBytes, released_segments: r.releasedSegments,
        kept_bytes: r.keptBytes, kept_segments: r.keptSegments, reason: r.reason,
        allocated: m.allocated(device),
        holders: [] as { label: string; bytes: number; tensors: number }[],
      };
    });
    const withTensors = results.filter((r) => r.allocated > 0).map((r) => r.device);
    if (withTensors.length) {
      const { groups, tensors } = tensorsByHolder(ctx, withTensors);
      for (const r of results) {
        const mine = groups.map((g) => ({ ...g, bytes: g.ids.reduce((n, id) => n + (tensors.find((t) => t.id === id && t.device === r.device)?.nbytes ?? 0), 0) }))
          .filter((g) => g.bytes > 0).sort((a, b) => b.bytes - a.bytes);
        r.holders = mine.slice(0, kHolders).map((g) => ({ label: g.label, bytes: g.bytes, tensors: g.tensors }));
      }
    }
    const rows: (string | number)[][] = [["device", "released", "segments released", "still reserved", "held by tensors", "why kept"]];
    for (const r of results) rows.push([r.device, formatBytes(r.released_bytes), r.released_segments, formatBytes(r.reserved_after), formatBytes(r.allocated), r.reason || "-"]);
    const notes: string[] = [];
    for (const r of results) {
      if (r.collected_bytes > 0) notes.push(`${r.device}: the garbage collection freed ${formatBytes(r.collected_bytes)} of tensors nothing referenced.`);
      if (r.holders.length) notes.push(`${r.device}: largest holders: ${r.holders.map((h) => `${h.label} (${formatBytes(h.bytes)})`).join(", ")}; drop them (%xdel NAME, %reset -f) to release more.`);
    }
    ctx.output.display({
      "text/plain": [textTable(rows), ...notes].join("\n"),
      "text/html": htmlBlock(htmlTable(rows, "empty_cache") + notes.map((n) => `<p class="note">${escapeHtml(n)}</p>`).join("")),
      [magicMime("empty_cache")]: { devices: results },
    });
  },
};
