/**
 * Loads a large CommonJS module with a V8 code cache kept on disk.
 *
 * Compiling typescript.js (9 MB) costs about 0.3 s of CPU in every kernel
 * process that loads it (the checker at start; the main thread only when an
 * is_complete_request finds no checker ready); with the cache it takes about 0.08 s. Node 20
 * has no compile cache of its own, so the module is compiled here through
 * `vm.Script` with `cachedData`. The cache is made once, after the module has
 * done real work (so the functions it compiled lazily are in it too), and is
 * keyed by the module file's path, size and time and by Node's version, so a
 * changed file or Node makes a new one. V8 checks the data itself as well and
 * rejects what does not fit (then the module is compiled as usual and the
 * cache written again). Failing to read or write the cache is never an error.
 */
import { createHash } from "crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "fs";
import { createRequire, wrap } from "module";
import { homedir } from "os";
import { dirname, join } from "path";
import { Script } from "vm";

/** Where code caches live: TSGPU_CACHE_DIR, else $XDG_CACHE_HOME/tsgpu, else ~/.cache/tsgpu. */
export function cacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TSGPU_CACHE_DIR) return env.TSGPU_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "tsgpu");
}

export interface CachedModule<T> {
  /** The module's exports. */
  exports: T;
  /** Whether its code came from the cache (false: compiled, and no usable cache was there). */
  fromCache: boolean;
  /** Writes the cache if there was none (call once the module has done its first work). Optional to call. */
  saveCache(): void;
}

/** Loads the CommonJS module at `file` (an absolute path) as `require` would, using and keeping a code cache in `dir`. */
export function loadWithCodeCache<T>(file: string, dir = cacheDir()): CachedModule<T> {
  const source = readFileSync(file, "utf8");
  const { size, mtimeMs } = statSync(file);
  const key = createHash("sha256").update(`${file}\0${size}\0${mtimeMs}\0${process.version}\0${process.arch}`).digest("hex").slice(0, 24);
  const cacheFile = join(dir, `${key}.v8cache`);
  let cached: Buffer | undefined;
  try { cached = readFileSync(cacheFile); } catch { /* no cache yet */ }
  const script = new Script(wrap(source), { filename: file, cachedData: cached });
  const fromCache = cached !== undefined && !script.cachedDataRejected;
  const module = { exports: {} as T, filename: file, id: file, loaded: false };
  const factory = script.runInThisContext() as (...args: unknown[]) => void;
  factory.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  let saved = fromCache;
  return {
    exports: module.exports,
    fromCache,
    saveCache(): void {
      if (saved) return;
      saved = true;
      try {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        const partial = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, cacheFile);
      } catch { /* a read-only or missing home: run without a cache */ }
    },
  };
}
