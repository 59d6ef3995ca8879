/**
 * The TypeScript project behind type checking, completion and inspection: a
 * language service over a few virtual files that live in the notebook's
 * folder (so packages resolve from there) —
 *
 *   - the kernel's ambient declarations (`torch`, `display`, `input`, `cell`…),
 *   - the declarations of earlier cells, as global declarations in a few
 *     prelude files (see prelude.ts),
 *   - the cell being checked or completed, as a module, so that its own
 *     declarations shadow the earlier ones instead of clashing with them,
 *
 * plus the standard library, @types/node and the runtime's declaration files.
 *
 * Speed matters here: every cell is a new program and a new type checker. The
 * set of root files stays the same from cell to cell, so the compiler reuses
 * the program's structure; file reads, module resolutions and parsed library
 * files are kept between programs. Library folders are seen under virtual
 * paths outside any node_modules folder, so the compiler does not look for a
 * package.json above each of them for every new program.
 */
import type * as TS from "typescript";
import { existsSync, readFileSync, realpathSync } from "fs";
import { dirname, join } from "path";
import { typescript } from "./typescript_module";

/** A folder seen by the compiler under a virtual prefix. */
interface Mount { virtual: string; real: string }

interface VirtualFile { text: string; version: number; snapshot: TS.IScriptSnapshot }

export interface ProjectSetup {
  /** The notebook's folder: virtual files live here and packages resolve from here first. */
  cwd: string;
  /** The kernel's package folder (holds dist/ and node_modules/); packages resolve from here next. */
  kernelRoot: string;
  /** The folder with the runtime's declaration files (index.d.ts is what `"tsgpu"` means). */
  runtimeTypes: string;
  /** Text of the kernel's ambient declarations. */
  ambient: string;
  /** Library files an earlier project read and parsed (see ParsedLibraries); by default none. */
  libraries?: ParsedLibraries;
}

/**
 * What a project keeps of the files outside the notebook's virtual files:
 * their text (read once) and their parsed and bound syntax trees (in the
 * document registry). A new project given these parses nothing that an
 * earlier one parsed with the same options, whatever its folder: the checker
 * process started from a startup snapshot holds the ones its warm-up built
 * (see checker_snapshot.ts).
 */
export interface ParsedLibraries {
  registry: TS.DocumentRegistry;
  /** File texts by the name the compiler sees (null: the file could not be read). */
  texts: Map<string, TS.IScriptSnapshot | null>;
  /** Module and type-reference resolutions that succeeded, by containing file, name (and mode). */
  resolutions: Map<string, TS.ResolvedModuleWithFailedLookupLocations>;
  typeRefs: Map<string, TS.ResolvedTypeReferenceDirectiveWithFailedLookupLocations>;
}

const VIRTUAL = "/__tsgpu__/";

/** Compiler options for cells: modern modules (top-level await), strict, Node's types. */
export function cellCompilerOptions(ts: typeof TS): TS.CompilerOptions {
  return {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2023.d.ts", "lib.esnext.disposable.d.ts", "lib.esnext.decorators.d.ts"],
    types: [],
    strict: true,
    esModuleInterop: true,
    allowSyntheticDefaultImports: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    experimentalDecorators: false,
    declaration: true,
    emitDeclarationOnly: true,
    allowJs: false,
    noErrorTruncation: false,
  };
}

export class CellProject {
  readonly ts = typescript();
  readonly options: TS.CompilerOptions;
  readonly ls: TS.LanguageService;
  /** The file a cell is put in to check or complete it. */
  readonly cellFile: string;
  private readonly ambientFile: string;
  private readonly files = new Map<string, VirtualFile>();
  private readonly chunkFiles: string[] = [];
  private readonly mounts: Mount[] = [];
  private readonly extraRoots: string[] = [];
  /** Library and package files read so far, and their syntax trees: see ParsedLibraries. */
  readonly libraries: ParsedLibraries;
  private readonly snapshots: Map<string, TS.IScriptSnapshot | null>;
  private readonly fsCache = new Map<string, unknown>();
  private readonly resolutions: Map<string, TS.ResolvedModuleWithFailedLookupLocations>;
  private readonly typeRefs: Map<string, TS.ResolvedTypeReferenceDirectiveWithFailedLookupLocations>;
  private readonly resolutionCache: TS.ModuleResolutionCache;
  private readonly runtimeIndex: string;
  private roots: string[] = [];

  constructor(private readonly setup: ProjectSetup) {
    const ts = this.ts;
    this.libraries = setup.libraries ?? { registry: ts.createDocumentRegistry(), texts: new Map(), resolutions: new Map(), typeRefs: new Map() };
    this.snapshots = this.libraries.texts;
    this.resolutions = this.libraries.resolutions;
    this.typeRefs = this.libraries.typeRefs;
    this.options = cellCompilerOptions(ts);
    const libDir = dirname(ts.getDefaultLibFilePath(this.options));
    this.mount("lib", libDir);
    this.runtimeIndex = this.mount("tsgpu", setup.runtimeTypes) + "index.d.ts";
    const nodeTypes = findPackageDir("@types/node", [setup.kernelRoot, setup.cwd]);
    if (nodeTypes) {
      this.extraRoots.push(this.mount("node", nodeTypes) + "index.d.ts");
      // Node's types import undici's: seen under a virtual path too, for the same reason.
      const undici = findPackageDir("undici-types", [nodeTypes, setup.kernelRoot]);
      if (undici) this.mount("undici-types", undici);
    }
    this.cellFile = join(setup.cwd, "__tsgpu_cell__.ts");
    this.ambientFile = join(setup.cwd, "__tsgpu_ambient__.d.ts");
    this.setFile(this.ambientFile, setup.ambient);
    this.setFile(this.cellFile, "export {};\n");
    this.updateRoots();
    this.resolutionCache = ts.createModuleResolutionCache(setup.cwd, (f) => f, this.options);
    this.ls = ts.createLanguageService(this.host(), this.libraries.registry);
  }

  /**
   * The real paths of the library and package files read so far (with
   * `null` texts for those that could not be read): what a startup snapshot
   * of this project's files depends on.
   */
  libraryFiles(): { path: string; read: boolean }[] {
    return [...this.snapshots].map(([name, s]) => ({ path: this.real(name), read: s !== null }));
  }

  /** Whether @types/node was found (without it, `console` and `process` are unknown to the checker). */
  get hasNodeTypes(): boolean { return this.extraRoots.length > 0; }

  /**
   * Sees the folder `real` under a virtual name. The folder's real path is
   * what is mounted: module resolution follows symbolic links (pnpm's layout,
   * a linked node_modules), and a file reached through its real path must map
   * to the same virtual name, or the compiler loads the package twice.
   */
  private mount(name: string, real: string): string {
    const virtual = `${VIRTUAL}${name}/`;
    let target = real;
    try { target = realpathSync(real); } catch { /* keep the path as given */ }
    this.mounts.push({ virtual, real: target.endsWith("/") ? target : target + "/" });
    return virtual;
  }

  /** A virtual path → the real one (paths outside the mounts are real already). */
  private real(path: string): string {
    for (const m of this.mounts) {
      if (path.startsWith(m.virtual)) return m.real + path.slice(m.virtual.length);
      if (path === m.virtual.slice(0, -1)) return m.real.slice(0, -1);
    }
    return path;
  }

  /** A real path inside a mounted folder → its virtual path, so no file is loaded under two names. */
  private virtualOf(path: string): string {
    for (const m of this.mounts) if (path.startsWith(m.real)) return m.virtual + path.slice(m.real.length);
    return path;
  }

  private remap<T extends { resolvedFileName: string }>(r: T | undefined): void {
    if (r) r.resolvedFileName = this.virtualOf(r.resolvedFileName);
  }

  private setFile(name: string, text: string, fresh = false): boolean {
    const old = this.files.get(name);
    if (old && old.text === text && !fresh) return false;
    this.files.set(name, { text, version: (old?.version ?? 0) + 1, snapshot: this.ts.ScriptSnapshot.fromString(text) });
    return true;
  }

  private updateRoots(): void {
    this.roots = [this.ambientFile, ...this.extraRoots, ...this.chunkFiles, this.cellFile];
  }

  /** Sets the text of prelude chunk i (creating it if needed); returns whether anything changed. */
  setChunk(i: number, text: string): boolean {
    while (this.chunkFiles.length <= i) {
      const name = join(this.setup.cwd, `__tsgpu_prelude_${this.chunkFiles.length}__.d.ts`);
      this.chunkFiles.push(name);
      this.setFile(name, "export {};\n");
      this.updateRoots();
    }
    return this.setFile(this.chunkFiles[i], text);
  }

  /**
   * Puts text in the cell file; returns its source file in the current
   * program. `fresh`: the file counts as changed even if its text is the
   * same, so its imports are resolved again.
   */
  setCell(text: string, fresh = false): TS.SourceFile {
    this.setFile(this.cellFile, text, fresh);
    return this.ls.getProgram()!.getSourceFile(this.cellFile)!;
  }

  /** Forgets what was learned about the file system (a package may have been installed since). */
  forgetFileSystem(): void {
    for (const [k, v] of this.fsCache) if (!v) this.fsCache.delete(k);
    for (const [k, r] of this.resolutions) if (!r.resolvedModule) this.resolutions.delete(k);
    this.resolutionCache.clear();
  }

  private cached<T>(kind: string, path: string, read: () => T): T {
    const key = kind + "\0" + path;
    if (this.fsCache.has(key)) return this.fsCache.get(key) as T;
    const v = read();
    this.fsCache.set(key, v);
    return v;
  }

  private snapshot(name: string): TS.IScriptSnapshot | undefined {
    const v = this.files.get(name);
    if (v) return v.snapshot;
    let s = this.snapshots.get(name);
    if (s === undefined) {
      let text: string | undefined;
      try { text = readFileSync(this.real(name), "utf8"); } catch { text = undefined; }
      s = text === undefined ? null : this.ts.ScriptSnapshot.fromString(text);
      // Library and package files are read once per session.
      this.snapshots.set(name, s);
    }
    return s ?? undefined;
  }

  private host(): TS.LanguageServiceHost {
    const ts = this.ts;
    const sys = ts.sys;
    const host: TS.LanguageServiceHost & { getModuleResolutionCache(): TS.ModuleResolutionCache } = {
      getScriptFileNames: () => this.roots,
      getScriptVersion: (f) => String(this.files.get(f)?.version ?? 0),
      getScriptSnapshot: (f) => this.snapshot(f),
      getCurrentDirectory: () => this.setup.cwd,
      getCompilationSettings: () => this.options,
      getDefaultLibFileName: (o) => `${VIRTUAL}lib/${ts.getDefaultLibFileName(o)}`,
      fileExists: (f) => this.files.has(f) || this.cached("f", f, () => sys.fileExists(this.real(f))),
      readFile: (f) => this.files.get(f)?.text ?? this.cached("r", f, () => sys.readFile(this.real(f))),
      directoryExists: (d) => d === VIRTUAL.slice(0, -1) || this.cached("d", d, () => sys.directoryExists(this.real(d))),
      getDirectories: (d) => this.cached("l", d, () => sys.getDirectories(this.real(d))),
      realpath: (p) => p.startsWith(VIRTUAL) || this.files.has(p) ? p : this.cached("p", p, () => sys.realpath!(p)),
      useCaseSensitiveFileNames: () => true,
      getModuleResolutionCache: () => this.resolutionCache,
      resolveModuleNameLiterals: (literals, containing, redirected, options, sourceFile) =>
        literals.map((lit) => this.resolveModule(lit.text, containing, redirected, options, ts.getModeForUsageLocation(sourceFile, lit, options))),
      resolveTypeReferenceDirectiveReferences: (refs, containing, redirected, options) =>
        refs.map((ref) => this.resolveTypeReference(typeof ref === "string" ? ref : ref.fileName.toLowerCase(), containing, redirected, options)),
    };
    return host;
  }

  private moduleHost(): TS.ModuleResolutionHost {
    return {
      fileExists: (f) => this.files.has(f) || this.cached("f", f, () => this.ts.sys.fileExists(this.real(f))),
      readFile: (f) => this.files.get(f)?.text ?? this.cached("r", f, () => this.ts.sys.readFile(this.real(f))),
      directoryExists: (d) => this.cached("d", d, () => this.ts.sys.directoryExists(this.real(d))),
      realpath: (p) => p.startsWith(VIRTUAL) ? p : this.cached("p", p, () => this.ts.sys.realpath!(p)),
      getDirectories: (d) => this.cached("l", d, () => this.ts.sys.getDirectories(this.real(d))),
    };
  }

  /** Resolves an import: "tsgpu" is the runtime; packages from the notebook's folder, then the kernel's. */
  private resolveModule(name: string, containing: string, redirected: TS.ResolvedProjectReference | undefined,
                        options: TS.CompilerOptions, mode: TS.ResolutionMode): TS.ResolvedModuleWithFailedLookupLocations {
    const ts = this.ts;
    if (name === "tsgpu") {
      return { resolvedModule: { resolvedFileName: this.runtimeIndex, extension: ts.Extension.Dts, isExternalLibraryImport: false } };
    }
    const key = `${containing}\0${name}\0${mode ?? ""}`;
    const hit = this.resolutions.get(key);
    if (hit) return hit;
    const host = this.moduleHost();
    let r = ts.resolveModuleName(name, containing, options, host, this.resolutionCache, redirected, mode);
    if (!r.resolvedModule && !name.startsWith(".") && !name.startsWith("/")) {
      const fromKernel = ts.resolveModuleName(name, join(this.setup.kernelRoot, "__tsgpu__.ts"), options, host, undefined, redirected, mode);
      if (fromKernel.resolvedModule) r = fromKernel;
    }
    if (r.resolvedModule) this.remap(r.resolvedModule);
    // A library file's import that names no file is one of @types/node's ambient modules ("node:fs", "events"…):
    // kept too, or every first program would look for each through the node_modules folders again.
    if (r.resolvedModule || containing.startsWith(VIRTUAL)) this.resolutions.set(key, r);
    return r;
  }

  private resolveTypeReference(name: string, containing: string, redirected: TS.ResolvedProjectReference | undefined,
                               options: TS.CompilerOptions): TS.ResolvedTypeReferenceDirectiveWithFailedLookupLocations {
    const key = `${containing}\0${name}`;
    const hit = this.typeRefs.get(key);
    if (hit) return hit;
    let r = this.ts.resolveTypeReferenceDirective(name, containing, options, this.moduleHost(), redirected);
    if (!r.resolvedTypeReferenceDirective) {
      r = this.ts.resolveTypeReferenceDirective(name, join(this.setup.kernelRoot, "__tsgpu__.ts"), options, this.moduleHost(), redirected);
    }
    if (r.resolvedTypeReferenceDirective?.resolvedFileName) {
      this.remap(r.resolvedTypeReferenceDirective as { resolvedFileName: string });
      this.typeRefs.set(key, r);
    }
    return r;
  }
}

/** The folder of an installed package, looked for under each base's node_modules. */
export function findPackageDir(name: string, bases: string[]): string | null {
  for (const base of bases) {
    for (let dir = base; ; dir = dirname(dir)) {
      const candidate = join(dir, "node_modules", name);
      if (existsSync(join(candidate, "package.json"))) return candidate;
      if (dirname(dir) === dir) break;
    }
  }
  return null;
}
