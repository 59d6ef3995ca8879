/**
 * %empty_cache [DEVICE] — returns cached, unused segments to the device and
 * reports the bytes released, and what stayed reserved and why.
 */
import { Magic, UsageError } from "./context";
import { escapeHtml, formatBytes, htmlTable, textTable } from "./format";

export const emptyCacheMagic: Magic = {
  name: "empty_cache",
  usage: "%empty_cache [DEVICE]   (release cached memory of every device, or of one)",
  run(args, ctx) {
    const known = ctx.runtime.memory.devices();
    if (args.length > 1 || (args[0] && !known.includes(args[0]))) {
      throw new UsageError(`%empty_cache: expected one of ${known.join(", ")} or nothing, got ${args.join(" ")}`);
    }
    const devices = args.length ? args : known;
    const results = devices.map((device) => {
      const reservedBefore = ctx.runtime.memory.reserved(device);
      const r = ctx.runtime.memory.emptyCache(device);
      return { device, reserved_before: reservedBefore, reserved_after: ctx.runtime.memory.reserved(device),
        released_bytes: r.releasedBytes, released_segments: r.releasedSegments,
        kept_bytes: r.keptBytes, kept_segments: r.keptSegments, reason: r.reason };
    });
    const rows: (string | number)[][] = [["device", "released", "segments released", "still reserved", "why kept"]];
    for (const r of results) rows.push([r.device, formatBytes(r.released_bytes), r.released_segments, formatBytes(r.reserved_after), r.reason || "-"]);
    ctx.output.display({
      "text/plain": textTable(rows),
      "text/html": htmlTable(rows, "empty_cache") + results.filter((r) => r.reason).map((r) => `<p>${escapeHtml(r.device)}: ${escapeHtml(r.reason)}</p>`).join(""),
      "application/json": { devices: results },
    });
  },
};
