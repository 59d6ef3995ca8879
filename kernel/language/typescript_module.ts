/**
 * The TypeScript compiler, loaded once per thread through a V8 code cache
 * (see code_cache.ts). Kept apart from the transpiler so that code which
 * only needs the compiler (the checker, and the startup snapshot built of
 * it, which can hold no native module) loads nothing else.
 */
import type * as TS from "typescript";
import { CachedModule, loadWithCodeCache } from "./code_cache";

let tsModule: CachedModule<typeof TS> | undefined;
/** The TypeScript compiler (for parsing questions and types), loaded on first use, through a code cache. */
export function typescript(): typeof TS {
  if (!tsModule) {
    try {
      tsModule = loadWithCodeCache<typeof TS>(require.resolve("typescript"));
    } catch {
      tsModule = { exports: require("typescript") as typeof TS, fromCache: false, saveCache: () => undefined };
    }
  }
  return tsModule.exports;
}

/** Keeps the compiler's code cache for the next kernel; called once it has done real work (see code_cache.ts). */
export function saveTypeScriptCodeCache(): void {
  tsModule?.saveCache();
}
