/**
 * `import` and `require` for cells: packages resolve from the notebook's
 * folder first, then from the kernel's own; `"tsgpu"` is the runtime.
 * ESM-only packages load through dynamic import.
 */
import { createRequire, builtinModules } from "module";
import { join } from "path";
import { pathToFileURL } from "url";

/** A real dynamic import (TypeScript's CommonJS output would turn `import()` into `require`). */
const dynamicImport = new Function("specifier", "return import(specifier)") as (s: string) => Promise<any>;

export class ModuleLoader {
  constructor(private readonly runtime: () => unknown) {}

  private resolvers(): NodeRequire[] {
    return [createRequire(join(process.cwd(), "__notebook__.js")), createRequire(__filename)];
  }

  private resolve(spec: string): string {
    let lastError: unknown;
    for (const r of this.resolvers()) {
      try { return r.resolve(spec); } catch (e) { lastError = e; }
    }
    // Packages whose "exports" only have an "import" condition cannot be resolved by require.resolve.
    for (const base of [process.cwd(), join(__dirname, "..", "..", "..")]) {
      const entry = esmEntry(base, spec);
      if (entry) return entry;
    }
    throw lastError;
  }

  /** `require.resolve(spec)` as a cell would do it. */
  resolvePath(spec: string): string {
    if (spec.startsWith("node:") || builtinModules.includes(spec)) return spec;
    return spec.startsWith(".") || spec.startsWith("/") ? join(process.cwd(), spec) : this.resolve(spec);
  }

  /** `require(spec)` as a cell would do it. */
  require(spec: string): unknown {
    if (spec === "tsgpu") return this.runtime();
    if (spec.startsWith("node:") || builtinModules.includes(spec)) return require(spec);
    return this.resolvers()[0](this.resolvePath(spec));
  }

  /** `import(spec)`: the module namespace (CommonJS modules as `{ default, ...named }`). */
  async import(spec: string): Promise<unknown> {
    if (typeof spec !== "string") throw new TypeError(`expected a module name for import, got ${typeof spec}`);
    if (spec === "tsgpu") return this.runtime();
    if (spec.startsWith("node:") || builtinModules.includes(spec)) return dynamicImport(spec);
    const target = spec.startsWith(".") || spec.startsWith("/") ? join(process.cwd(), spec) : this.resolve(spec);
    return dynamicImport(pathToFileURL(target).href);
  }
}

/** The ESM entry of a package installed under base/node_modules, from its package.json. */
function esmEntry(base: string, spec: string): string | null {
  const parts = spec.split("/");
  const name = spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  const sub = "." + spec.slice(name.length);
  try {
    const dir = join(base, "node_modules", name);
    const pkg = require(join(dir, "package.json"));
    let target: any = pkg.exports;
    if (target && typeof target === "object" && !Array.isArray(target) && Object.keys(target).some((k) => k.startsWith("."))) target = target[sub];
    else if (sub !== ".") target = undefined;
    while (target && typeof target === "object") target = target.node ?? target.import ?? target.default;
    if (typeof target === "string") return join(dir, target);
    if (sub === "." && (pkg.module || pkg.main)) return join(dir, pkg.module ?? pkg.main);
  } catch { /* not installed here */ }
  return null;
}

/** `import d from "m"`: the default export, or the CommonJS module itself. */
export function defaultOf(mod: any): unknown {
  if (mod && typeof mod === "object" && "default" in mod) {
    const d = mod.default;
    return d && typeof d === "object" && d.__esModule && "default" in d ? d.default : d;
  }
  return mod;
}
