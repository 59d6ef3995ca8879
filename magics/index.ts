/** The magics every kernel has. */
import { MagicRegistry } from "./registry";
import { memoryMagic } from "./memory";
import { resetMagic } from "./reset";
import { emptyCacheMagic } from "./empty_cache";
import { typecheckMagic } from "./typecheck";
import type { Magic } from "./context";

export function registerBuiltinMagics(registry: MagicRegistry): void {
  const lsmagic: Magic = {
    name: "lsmagic",
    usage: "%lsmagic   (list the line magics)",
    run(_args, ctx) {
      const lines = registry.names().map((n) => registry.get(n)!.usage);
      ctx.output.display({ "text/plain": lines.join("\n"), "application/json": { magics: registry.names() } });
    },
  };
  for (const m of [memoryMagic, resetMagic, emptyCacheMagic, typecheckMagic, lsmagic]) registry.register(m);
}
