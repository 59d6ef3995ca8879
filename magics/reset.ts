/**
 * Remedies that drop what holds memory, then collect garbage so that tensors
 * nothing references any more are freed, and say what they freed:
 *   %reset [-f]            every user variable, the output history, the kept error,
 *                          and the timers cells left pending (with the frames they keep)
 *   %reset [-f] out        the output history only (Out, _, __, ___, _N)
 *   %reset_selective [-f] REGEX   the variables whose names match REGEX
 *   %xdel NAME             one variable and every reference the kernel keeps to its value
 * Without -f, %reset and %reset_selective ask through stdin first.
 */
import { Magic, MagicContext, UsageError } from "./context";
import { escapeHtml, formatBytes, htmlBlock, htmlTable, textTable } from "./format";
import { magicMime } from "./mime";

/** Runs V8's collector and lets the runtime free storages whose tensors were collected. */
export async function collectGarbage(ctx: MagicContext): Promise<void> {
  for (let i = 0; i < 2; i++) {
    ctx.runtime.memory.collectGarbage();
    await new Promise((r) => setImmediate(r));
  }
  ctx.runtime.memory.collectGarbage();
}

interface Before { allocated: Map<string, number>; ids: Map<number, number> }

function measure(ctx: MagicContext): Before {
  const m = ctx.runtime.memory;
  return { allocated: new Map(m.devices().map((d) => [d, m.allocated(d)])), ids: new Map(m.liveTensors().map((t) => [t.id, t.nbytes])) };
}

export interface FreedReport {
  tensors: number;
  bytes: number;
  devices: { device: string; before: number; after: number; freed: number }[];
  /** "freed 1.49 GiB in 3 tensors; 0 B still allocated on cpu" */
  text: string;
}

/** Collects garbage and compares with `before`. */
export async function freedSince(ctx: MagicContext, before: Before): Promise<FreedReport> {
  await collectGarbage(ctx);
  const m = ctx.runtime.memory;
  const live = new Set(m.liveTensors().map((t) => t.id));
  const gone = [...before.ids.keys()].filter((id) => !live.has(id));
  const devices = m.devices().map((d) => {
    const b = before.allocated.get(d) ?? 0, a = m.allocated(d);
    return { device: d, before: b, after: a, freed: b - a };
  });
  const bytes = devices.reduce((n, d) => n + Math.max(0, d.freed), 0);
  const still = devices.map((d) => `${formatBytes(d.after)} still allocated on ${d.device}`).join(", ");
  return { tensors: gone.length, bytes, devices, text: `freed ${formatBytes(bytes)} in ${gone.length} tensor${gone.length === 1 ? "" : "s"}; ${still}` };
}

function report(ctx: MagicContext, magic: string, head: string, freed: FreedReport, extra: Record<string, unknown>): void {
  const rows: (string | number)[][] = [["device", "allocated before", "allocated after", "freed"]];
  for (const d of freed.devices) rows.push([d.device, formatBytes(d.before), formatBytes(d.after), formatBytes(d.freed)]);
  const line = `${head}\n${freed.text[0].toUpperCase()}${freed.text.slice(1)}.`;
  ctx.output.display({
    "text/plain": `${line}\n${textTable(rows)}`,
    "text/html": htmlBlock(`<p>${escapeHtml(line).replace("\n", "<br/>")}</p>${htmlTable(rows)}`),
    [magicMime(magic)]: { ...extra, freed_tensors: freed.tensors, freed_bytes: freed.bytes, devices: freed.devices, summary: freed.text },
  });
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Asks unless forced; prints why nothing was done and returns false when not confirmed. */
function confirmed(ctx: MagicContext, force: boolean, question: string): boolean {
  if (force) return true;
  const answer = ctx.stdin.confirm(question);
  if (answer === null) { ctx.output.print("Nothing done: this frontend cannot ask for confirmation; use -f."); return false; }
  if (!answer) { ctx.output.print("Nothing done."); return false; }
  return true;
}

export const resetMagic: Magic = {
  name: "reset",
  usage: "%reset [-f] [out]   (drop all user variables, output history, kept error and pending cell timers, or with out only the output history; then free unreferenced tensors)",
  async run(args, ctx) {
    const force = args.includes("-f");
    const rest = args.filter((a) => a !== "-f");
    if (rest.length > 1 || (rest.length === 1 && rest[0] !== "out")) {
      throw new UsageError(`%reset: expected -f and/or out, got ${rest.join(" ")}. Usage: ${resetMagic.usage}`);
    }
    const outOnly = rest[0] === "out";
    const question = outOnly ? "Flushing output cache. Proceed (y/[n])? " : "Once deleted, variables cannot be recovered. Proceed (y/[n])? ";
    if (!confirmed(ctx, force, question)) return;
    const before = measure(ctx);
    if (outOnly) {
      const counts = ctx.outputs.clear();
      const freed = await freedSince(ctx, before);
      report(ctx, "reset", `Flushed the output history: ${counts.length ? counts.map((n) => `Out[${n}]`).join(", ") : "it was empty"}.`, freed, { outputs_cleared: counts });
      return;
    }
    const counts = ctx.outputs.entries().map(([n]) => n);
    const hadError = ctx.errors.kept() !== undefined;
    const timers = ctx.cells.stopTimers();
    const dropped = ctx.namespace.reset();
    ctx.outputs.clear();
    ctx.errors.clear();
    const freed = await freedSince(ctx, before);
    const parts = [`Dropped ${plural(dropped.length, "variable")}${dropped.length ? ": " + dropped.join(", ") : ""}`,
      `cleared the output history${counts.length ? ` (${counts.map((n) => `Out[${n}]`).join(", ")})` : ""}`];
    if (hadError) parts.push("the kept error");
    if (timers) parts.push(`stopped ${plural(timers, "pending timer")} that cells started`);
    report(ctx, "reset", parts.join("; ") + ".", freed, { dropped, outputs_cleared: counts, kept_error_cleared: hadError, timers_stopped: timers });
  },
};

export const resetSelectiveMagic: Magic = {
  name: "reset_selective",
  usage: "%reset_selective [-f] REGEX   (drop the user variables whose names match REGEX, then free unreferenced tensors)",
  async run(args, ctx) {
    const force = args.includes("-f");
    const rest = args.filter((a) => a !== "-f");
    if (rest.length !== 1) throw new UsageError(`%reset_selective: expected one regular expression, got ${rest.length ? rest.join(" ") : "nothing"}. Usage: ${resetSelectiveMagic.usage}`);
    let re: RegExp;
    try { re = new RegExp(rest[0]); } catch (e) { throw new UsageError(`%reset_selective: expected a regular expression for REGEX, got ${rest[0]} (${(e as Error).message})`); }
    if (!confirmed(ctx, force, "Once deleted, variables cannot be recovered. Proceed (y/[n])? ")) return;
    const before = measure(ctx);
    const dropped = ctx.namespace.remove(ctx.namespace.names().filter((n) => re.test(n)));
    const freed = await freedSince(ctx, before);
    report(ctx, "reset_selective", `Dropped ${plural(dropped.length, "variable")} matching /${rest[0]}/${dropped.length ? ": " + dropped.join(", ") : ""}.`, freed, { dropped });
  },
};

/** Removes a variable, the output history entries holding its value, and the kept error if it is that value. */
function dropEverywhere(ctx: MagicContext, name: string): { counts: number[]; errorHeld: boolean } {
  const value = ctx.namespace.get(name);
  ctx.namespace.remove([name]);
  const counts = value !== undefined && value !== null && (typeof value === "object" || typeof value === "function") ? ctx.outputs.forget(value) : [];
  const kept = ctx.errors.kept();
  const errorHeld = kept !== undefined && value !== undefined && kept.error === value;
  if (errorHeld) ctx.errors.clear();
  return { counts, errorHeld };
}

export const xdelMagic: Magic = {
  name: "xdel",
  usage: "%xdel NAME   (drop a variable and every reference the kernel keeps to its value: Out, _, the kept error)",
  async run(args, ctx) {
    if (args.length !== 1) throw new UsageError(`%xdel: expected one variable name, got ${args.length ? args.join(" ") : "nothing"}. Usage: ${xdelMagic.usage}`);
    const name = args[0];
    if (!ctx.namespace.names().includes(name)) {
      throw new UsageError(`%xdel: no user variable named ${name}; variables: ${ctx.namespace.names().join(", ") || "(none)"}`);
    }
    const before = measure(ctx);
    // Dropped in a plain function: a local of this async function would keep the value alive across the await.
    const { counts, errorHeld } = dropEverywhere(ctx, name);
    const freed = await freedSince(ctx, before);
    const also = [...counts.map((n) => `Out[${n}]`), ...(errorHeld ? ["the kept error"] : [])];
    report(ctx, "xdel", `Deleted ${name}${also.length ? ` and its references in ${also.join(", ")}` : ""}.`, freed, { dropped: [name], outputs_cleared: counts });
  },
};
