/**
 * The checker as a Node startup snapshot (`node --build-snapshot`).
 *
 * Building (run by checker_snapshot.ts, never by hand): loads the compiler
 * and the checker's modules, lets a CellLanguage parse and bind the standard
 * library, @types/node and the runtime's declarations, and keeps those
 * parsed files (ParsedLibraries); Node then writes the heap to the blob.
 * Starting (`node --snapshot-blob BLOB`, a child process of the kernel with
 * an IPC channel): the heap comes back in a fraction of the time the parse
 * takes, a CellLanguage for the notebook's folder is made from the parsed
 * files, and requests are served as the checker thread serves them.
 *
 * A snapshot's entry script can require Node's built-in modules only, so
 * the checker's own (CommonJS, built by tsc) modules are loaded by the small
 * loader below; they require nothing but built-ins and each other. Every
 * library file's size and time are kept with the snapshot and checked at
 * start: if one changed, the files are read and parsed again (and the
 * kernel is told to build a new snapshot).
 *
 * Node runs this file as a CommonJS script without `exports`: it is not a
 * module (no import or export; types come through `import()` types) and
 * its names are kept inside a function, out of the global scope.
 */
(() => {
  const { readFileSync, statSync } = require("fs") as typeof import("fs");
  const { dirname, join, resolve } = require("path") as typeof import("path");
  const v8 = require("v8") as typeof import("v8");
  type TS = typeof import("typescript");
  type CellLanguageClass = import("./cell_language").CellLanguage;
  type ParsedLibraries = import("./project").ParsedLibraries;
  type ProjectSetup = import("./project").ProjectSetup;
  type CheckerLink = import("./checker_service").CheckerLink;
  type CheckerReply = import("./checker_protocol").CheckerReply;
  type CheckerRequest = import("./checker_protocol").CheckerRequest;
  type SnapshotBuild = import("./checker_protocol").SnapshotBuild;

  /** A library file as the build saw it; "missing": it could not be read. */
  type Stamp = [path: string, size: number, mtimeMs: number] | [path: string, "missing"];

  /** Loads a CommonJS module of the checker (and what it requires), with built-ins from Node. */
  function makeLoader(build: SnapshotBuild): (file: string) => any {
    const loaded = new Map<string, { exports: any }>();
    let ts: TS | undefined;
    const load = (file: string): any => {
      const hit = loaded.get(file);
      if (hit) return hit.exports;
      const module = { exports: {} as any };
      loaded.set(file, module);
      const source = readFileSync(file, "utf8");
      // Indirect eval compiles in the global scope, as Node's own module wrapper does.
      const factory = (0, eval)(`(function (exports, require, module, __filename, __dirname) {${source}\n})\n//# sourceURL=${file}`);
      const localRequire = (name: string): any => {
        if (name === "./typescript_module") {
          return { typescript: () => (ts ??= load(build.typescriptFile)), saveTypeScriptCodeCache: () => undefined };
        }
        if (name.startsWith(".")) {
          const path = resolve(dirname(file), name);
          return load(path.endsWith(".js") ? path : `${path}.js`);
        }
        return require(name);
      };
      factory.call(module.exports, module.exports, localRequire, module, file, dirname(file));
      return module.exports;
    };
    return load;
  }

  function stampOf(path: string): Stamp {
    try {
      const s = statSync(path);
      return [path, s.size, s.mtimeMs];
    } catch {
      return [path, "missing"];
    }
  }

  function sameStamp(a: Stamp, b: Stamp): boolean {
    return a.length === b.length && a.every((v, i) => v === b[i]);
  }

  function buildSnapshot(build: SnapshotBuild): void {
    const load = makeLoader(build);
    const { CellLanguage } = load(join(build.distDir, "cell_language.js")) as typeof import("./cell_language");
    const { serveChecker } = load(join(build.distDir, "checker_service.js")) as typeof import("./checker_service");
    let warmed: CellLanguageClass | undefined = new CellLanguage(build.setup);
    warmed.warmUp();
    const libraries: ParsedLibraries = warmed.project.libraries;
    // What was resolved from the build's own folder means nothing in a notebook's: only the libraries' resolutions are kept.
    for (const map of [libraries.resolutions, libraries.typeRefs]) {
      for (const key of map.keys()) if (key.startsWith(build.setup.cwd)) map.delete(key);
    }
    const stamps: Stamp[] = warmed.project.libraryFiles().map((f) => f.read ? stampOf(f.path) : [f.path, "missing"]);
    // Only the parsed files are kept: the program and type checker are made anew for the notebook's folder.
    warmed = undefined;

    v8.startupSnapshot.setDeserializeMainFunction(() => {
      // An interrupt of the kernel's process group is for the cell, not for the checker.
      process.on("SIGINT", () => undefined);
      // The kernel is gone (or stopped checking): so is its checker.
      process.on("disconnect", () => process.exit(0));
      const setup = JSON.parse(process.env.TSGPU_CHECKER_SETUP ?? "null") as ProjectSetup | null;
      const link: CheckerLink = {
        send: (m: CheckerReply) => { if (process.connected) process.send!(m); },
        onRequest: (fn: (r: CheckerRequest) => void) => { process.on("message", fn); },
      };
      if (!setup || !process.send) {
        process.stderr.write("the checker snapshot is started by the kernel only (TSGPU_CHECKER_SETUP and an IPC channel)\n");
        process.exit(2);
      }
      let stale = false;
      serveChecker(link, (warm) => {
        stale = !stamps.every((s) => sameStamp(s, stampOf(s[0])));
        const language = new CellLanguage({ ...setup, libraries: stale ? undefined : libraries });
        // Stale: the libraries are parsed anew by the warm-up, which must come before "ready" (see checker_worker.ts).
        if (warm || stale) language.warmUp();
        return language;
      }, () => link.send({ kind: "snapshot", stale }));
    });
  }

  if (v8.startupSnapshot?.isBuildingSnapshot()) {
    buildSnapshot(JSON.parse(process.env.TSGPU_CHECKER_BUILD ?? "null") as SnapshotBuild);
  }
})();
