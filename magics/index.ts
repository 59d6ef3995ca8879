/** The magics every kernel has. */
import { MagicRegistry } from "./registry";
import { memoryMagic } from "./memory";
import { resetMagic, resetSelectiveMagic, xdelMagic } from "./reset";
import { emptyCacheMagic } from "./empty_cache";
import { typecheckMagic } from "./typecheck";
import { whoMagic, whosMagic } from "./who";
import { timeMagic, timeitMagic } from "./timing";
import { envMagic, lsmagicMagic, pinfoMagic, restartMagic } from "./kernel_magics";

export function registerBuiltinMagics(registry: MagicRegistry): void {
  for (const m of [memoryMagic, resetMagic, resetSelectiveMagic, xdelMagic, emptyCacheMagic, typecheckMagic, whoMagic, whosMagic,
    timeMagic, timeitMagic, envMagic, pinfoMagic, restartMagic, lsmagicMagic]) registry.register(m);
}
