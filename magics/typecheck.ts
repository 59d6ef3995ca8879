/**
 * %typecheck [on|strict|off] — how cells are type checked. `on` (the
 * default): type errors are printed as warnings on the cell's stderr and the
 * cell runs; `strict`: a cell with type errors stops before it runs and
 * reports them as its error; `off`: no checking (completion still knows the
 * types). Without an argument, shows the current mode.
 */
import { Magic, UsageError } from "./context";
import { magicMime } from "./mime";

const MODES = ["on", "strict", "off"] as const;
type Mode = typeof MODES[number];

const DESCRIPTION: Record<Mode, string> = {
  on: "type errors are reported as warnings; cells run",
  strict: "cells with type errors stop before running",
  off: "cells are not type checked",
};

export const typecheckMagic: Magic = {
  name: "typecheck",
  usage: "%typecheck [on|strict|off]   (type checking of cells: warnings, errors that stop the cell, or none)",
  run(args, ctx) {
    const tc = ctx.typecheck;
    if (!tc) throw new UsageError("%typecheck: this kernel has no type checker");
    if (args.length > 1 || (args.length === 1 && !(MODES as readonly string[]).includes(args[0]))) {
      throw new UsageError(`%typecheck: expected one of ${MODES.join(", ")} for the mode, got ${args.join(" ")}. Usage: ${typecheckMagic.usage}`);
    }
    if (args.length === 1) tc.setMode(args[0] as Mode);
    const mode = tc.mode();
    const note = tc.unavailable() ? ` (unavailable: ${tc.unavailable()})` : "";
    ctx.output.display({
      "text/plain": `type checking: ${mode} — ${DESCRIPTION[mode]}${note}`,
      [magicMime("typecheck")]: { mode, available: !tc.unavailable() },
    });
  },
};
