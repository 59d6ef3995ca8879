/**
 * The on-disk V8 code cache for large modules (typescript.js): a module loads
 * as `require` would, from the cache once one was saved, and correctly without
 * one, with a bad one, after its file changed, and where nothing can be written.
 */
import { execFileSync } from "child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { cacheDir, loadWithCodeCache } from "../../../kernel/language/code_cache";

let dir: string;
let mod: string;
let cache: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tsgpu-code-cache-"));
  mod = join(dir, "mod.js");
  cache = join(dir, "cache");
  writeFileSync(join(dir, "helper.js"), "module.exports = (x) => x * 2;\n");
  writeFileSync(mod, "const helper = require('./helper');\nexports.answer = helper(21);\nexports.dir = __dirname;\nexports.self = module.filename;\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Mod { answer: number; dir: string; self: string }

/**
 * Loads the module in a new Node process (V8 keeps compiled scripts in memory
 * too, so within one process a second load would say nothing about the disk
 * cache), saving the cache afterwards when asked.
 */
function loadInChild(save: boolean): { fromCache: boolean; exports: Mod } {
  const script = `const { loadWithCodeCache } = require(${JSON.stringify(require.resolve("../../../kernel/language/code_cache"))});
    const m = loadWithCodeCache(${JSON.stringify(mod)}, ${JSON.stringify(cache)});
    if (${save}) m.saveCache();
    process.stdout.write(JSON.stringify({ fromCache: m.fromCache, exports: m.exports }));`;
  return JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }));
}

test("a module loads like require, and from the cache once it was saved", () => {
  const first = loadInChild(true);
  expect(first).toEqual({ fromCache: false, exports: { answer: 42, dir, self: mod } });
  expect(readdirSync(cache).filter((f) => f.endsWith(".v8cache"))).toHaveLength(1);
  expect(loadInChild(false)).toEqual({ fromCache: true, exports: { answer: 42, dir, self: mod } });
});

test("a damaged cache is set aside and written again", () => {
  loadInChild(true);
  const [file] = readdirSync(cache);
  writeFileSync(join(cache, file), Buffer.from("not a code cache"));
  const damaged = loadInChild(true);
  expect(damaged.fromCache).toBe(false);
  expect(damaged.exports.answer).toBe(42);
  expect(loadInChild(false).fromCache).toBe(true);
});

test("a changed module file does not use the old cache", () => {
  loadInChild(true);
  writeFileSync(mod, "exports.answer = 7;\nexports.dir = 'changed';\nexports.self = 'x';\n");
  const changed = loadInChild(false);
  expect(changed.fromCache).toBe(false);
  expect(changed.exports.answer).toBe(7);
});

test("where no cache can be written, the module still loads and saving is quiet", () => {
  const blocked = join(mod, "not-a-folder"); // a path under a file
  const loaded = loadWithCodeCache<Mod>(mod, blocked);
  expect(loaded.exports.answer).toBe(42);
  expect(() => loaded.saveCache()).not.toThrow();
});

test("the cache folder: TSGPU_CACHE_DIR, else XDG_CACHE_HOME/tsgpu, else ~/.cache/tsgpu", () => {
  expect(cacheDir({ TSGPU_CACHE_DIR: "/x/y" })).toBe("/x/y");
  expect(cacheDir({ XDG_CACHE_HOME: "/c" })).toBe(join("/c", "tsgpu"));
  expect(cacheDir({})).toMatch(/\.cache[/\\]tsgpu$/);
});
