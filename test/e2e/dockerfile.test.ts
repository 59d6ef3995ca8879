/**
 * The Dockerfile builds from a clone. No container engine runs here, so the
 * build is done the way the engine does it: the build context is what
 * `git archive HEAD` holds (its Dockerfile is the one read) less what .dockerignore leaves out, the build
 * stage's COPY lines copy from it into a folder standing for the image's
 * WORKDIR, and each command of the stage's RUN lines runs there in turn.
 * Every command is one the test knows: it runs, or is skipped for a reason
 * it prints (what needs the CUDA image, root or the network); a command the
 * test does not know fails it, so a new build step cannot go untested.
 */
import { execFileSync, spawnSync } from "child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync } from "fs";
import { tmpdir } from "os";
import { dirname, join, posix, relative } from "path";
import { checkerStartKey } from "../../kernel/language/checker_snapshot";
import { ROOT } from "../helpers";

/** One instruction of a Dockerfile: its keyword and the rest of its (joined) lines. */
interface Instruction { op: string; args: string }

/** The Dockerfile's instructions, continuation lines joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    if (/^\s*#/.test(raw) && !pending) continue;
    if (/^\s*#/.test(raw)) continue; // a comment inside a continued instruction
    const line = raw.replace(/\s+$/, "");
    if (line.endsWith("\\")) { pending += line.slice(0, -1) + " "; continue; }
    const whole = (pending + line).trim();
    pending = "";
    if (!whole) continue;
    const m = /^(\w+)\s+([\s\S]*)$/.exec(whole);
    if (m) out.push({ op: m[1].toUpperCase(), args: m[2].trim() });
  }
  return out;
}

/** The stages: the instructions after each FROM, by the stage's name. */
function stages(instructions: Instruction[]): Map<string, Instruction[]> {
  const map = new Map<string, Instruction[]>();
  let current: Instruction[] | undefined;
  for (const i of instructions) {
    if (i.op === "FROM") {
      const name = / AS (\S+)$/i.exec(i.args)?.[1];
      if (!name) throw new Error(`a stage without a name: FROM ${i.args}`);
      map.set(name, (current = []));
    } else current?.push(i);
  }
  return map;
}

/** A .dockerignore pattern as a regular expression over a path relative to the context (Go's filepath.Match, and **). */
function ignoreRegex(pattern: string): RegExp {
  const clean = posix.normalize(pattern.replace(/^\/+/, "")).replace(/\/+$/, "");
  let re = "";
  for (let i = 0; i < clean.length; i++) {
    const c = clean[i];
    if (c === "*" && clean[i + 1] === "*") { re += ".*"; i++; if (clean[i + 1] === "/") i++; }
    else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** Whether .dockerignore's rules leave `path` (relative, with /) out: the last rule matching it or a folder above it wins. */
function ignored(rules: { exclude: boolean; re: RegExp }[], path: string): boolean {
  const parts = path.split("/");
  let out = false;
  for (const r of rules) {
    for (let n = 1; n <= parts.length; n++) {
      if (r.re.test(parts.slice(0, n).join("/"))) { out = r.exclude; break; }
    }
  }
  return out;
}

/** Removes what .dockerignore leaves out of the context folder. */
function applyDockerignore(context: string): string[] {
  const file = join(context, ".dockerignore");
  const rules = (existsSync(file) ? readFileSync(file, "utf8") : "").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"))
    .map((l) => (l.startsWith("!") ? { exclude: false, re: ignoreRegex(l.slice(1)) } : { exclude: true, re: ignoreRegex(l) }));
  const removed: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const rel = relative(context, full).split("\\").join("/");
      if (ignored(rules, rel)) { rmSync(full, { recursive: true, force: true }); removed.push(rel); }
      else if (statSync(full).isDirectory()) walk(full);
    }
  };
  walk(context);
  return removed;
}

/** A COPY's flags, sources and destination (the shell form). */
function parseCopy(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith("--"));
  const rest = words.filter((w) => !w.startsWith("--"));
  const from = flags.find((f) => f.startsWith("--from="))?.slice("--from=".length);
  return { from, sources: rest.slice(0, -1), dest: rest[rest.length - 1] };
}

/** The commands of a RUN line, one per `&&`. */
function commands(run: string): string[] {
  return run.split(/\s+&&\s+/).map((c) => c.trim()).filter(Boolean);
}

/** Every command of the build stage, and what the test does with it. */
const kSteps: { match: RegExp; skip?: string; link?: true }[] = [
  { match: /^apt-get (update|install)\b/, skip: "installs Ubuntu's packages into NVIDIA's CUDA image (root and the network)" },
  { match: /^rm -rf \/var\/lib\/apt\/lists\/\*$/, skip: "cleans apt's lists in the image" },
  { match: /^ln -s \/usr\/local\/lib\/node_modules\/npm\//, skip: "links the image's npm and npx into /usr/local/bin (here they are on PATH)" },
  { match: /^npm ci --ignore-scripts\b/, link: true,
    skip: "the registry is not used by a test: the repository's installed node_modules stands in, checked to match package-lock.json" },
  { match: /^npm rebuild zeromq @swc\/core$/, skip: "rebuilds two packages' binaries for the image; the node_modules standing in has them for this machine" },
  { match: /^npx cmake-js compile\b/, skip: "compiles the addon with nvcc for four GPU architectures, many minutes on this machine; the repository's build/ stands in (TSGPU_TEST_DOCKER_NATIVE=1 runs it)" },
  { match: /^node scripts\/gen_native_tables\.js$/ },
  { match: /^npx tsc -p tsconfig\.json$/ },
  { match: /^node -e .*unavailableReason\(\)/ },
  { match: /^npm prune --omit=dev\b/, skip: "would remove the development packages from the node_modules standing in, which the repository uses" },
  { match: /^rm -rf build\/CMakeFiles build\/Release\/obj\.target$/, skip: "would remove files of the build/ standing in, which the repository uses" },
];

/** Checks that every non-optional package of package-lock.json is installed in `modules` at its locked version. */
function checkInstalledAsLocked(lockFile: string, modules: string): void {
  const lock = JSON.parse(readFileSync(lockFile, "utf8"));
  const wrong: string[] = [];
  let checked = 0;
  for (const [path, entry] of Object.entries<any>(lock.packages)) {
    if (!path.startsWith("node_modules/") || entry.optional || entry.link) continue;
    const manifest = join(modules, path.slice("node_modules/".length), "package.json");
    const version = existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).version : "missing";
    if (version !== entry.version) wrong.push(`${path}: ${version}, locked ${entry.version}`);
    checked++;
  }
  expect(checked).toBeGreaterThan(100);
  expect(wrong).toEqual([]);
}

/** The commit the context is made of (TSGPU_TEST_DOCKER_REF: another, e.g. one from before a fix, to see the test fail). */
const REF = process.env.TSGPU_TEST_DOCKER_REF || "HEAD";
const dockerfile = parseDockerfile(execFileSync("git", ["-C", ROOT, "show", `${REF}:Dockerfile`], { encoding: "utf8" }));
const byStage = stages(dockerfile);
const args = new Map(dockerfile.filter((i) => i.op === "ARG" && i.args.includes("=")).map((i) => {
  const [k, ...v] = i.args.split("=");
  return [k, v.join("=").replace(/^"|"$/g, "")];
}));
for (const i of byStage.get("build") ?? []) if (i.op === "ARG" && i.args.includes("=")) {
  const [k, ...v] = i.args.split("=");
  args.set(k, v.join("=").replace(/^"|"$/g, ""));
}

describe(`the Dockerfile, from the files of \`git archive ${REF}\``, () => {
  const tmp = mkdtempSync(join(tmpdir(), "tsgpu-docker-"));
  const context = join(tmp, "context");
  const image = join(tmp, "image");
  let removed: string[] = [];
  beforeAll(() => {
    mkdirSync(context);
    const tar = join(tmp, "head.tar");
    execFileSync("git", ["-C", ROOT, "archive", "--format=tar", "-o", tar, REF]);
    execFileSync("tar", ["-xf", tar, "-C", context]);
    removed = applyDockerignore(context);
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test("the context leaves out what .dockerignore names and keeps the notebooks", () => {
    expect(removed).toEqual(expect.arrayContaining(["test", "bench"]));
    expect(existsSync(join(context, "notebooks", "quickstart.ipynb"))).toBe(true);
    expect(existsSync(join(context, "native", "generated"))).toBe(false); // git does not hold it: the build makes it
  });

  test("every COPY of every stage finds its sources in the context", () => {
    for (const [stage, list] of byStage) {
      for (const i of list.filter((i) => i.op === "COPY")) {
        const c = parseCopy(i.args);
        if (c.from) continue;
        for (const s of c.sources) expect(`${stage}: COPY ${s} ${existsSync(join(context, s)) ? "found" : "missing"}`).toBe(`${stage}: COPY ${s} found`);
      }
    }
  });

  test("the CMD's checker key is the start-file key of /opt/tsgpu", () => {
    const cmd = byStage.get("kernel")!.find((i) => i.op === "CMD")!;
    const argv: string[] = JSON.parse(cmd.args);
    expect(argv[argv.indexOf("--checker") + 1]).toBe(checkerStartKey("/opt/tsgpu"));
  });

  test("the build stage's COPY and RUN lines build the kernel", () => {
    const build = byStage.get("build")!;
    let workdir = "/";
    const at = (p: string) => join(image, posix.resolve(workdir, p));
    const log: string[] = [];
    for (const i of build) {
      if (i.op === "WORKDIR") { workdir = posix.resolve(workdir, i.args); mkdirSync(at("."), { recursive: true }); continue; }
      if (i.op === "COPY") {
        const c = parseCopy(i.args);
        if (c.from) { log.push(`COPY --from=${c.from}: the Node.js image's files (this machine's Node.js runs instead)`); continue; }
        for (const s of c.sources) {
          // COPY a b ./ puts files into the folder; COPY dir name copies the folder's contents to name.
          const dest = c.dest.endsWith("/") ? join(at(c.dest), posix.basename(s)) : at(c.dest);
          mkdirSync(dirname(dest), { recursive: true });
          cpSync(join(context, s), dest, { recursive: true });
        }
        continue;
      }
      if (i.op !== "RUN") continue;
      for (const raw of commands(i.args)) {
        const command = raw.replace(/\$\{(\w+)\}/g, (_, k) => args.get(k) ?? "");
        const step = kSteps.find((s) => s.match.test(command));
        expect(step ? "known" : `a build step the test does not know: ${command}`).toBe("known");
        const native = /^npx cmake-js/.test(command) && process.env.TSGPU_TEST_DOCKER_NATIVE === "1";
        if (step!.link) {
          checkInstalledAsLocked(at("package-lock.json"), realpathSync(join(ROOT, "node_modules")));
          symlinkSync(realpathSync(join(ROOT, "node_modules")), at("node_modules"));
        }
        if (/^npx cmake-js/.test(command) && !native) symlinkSync(realpathSync(join(ROOT, "build")), at("build"));
        if (step!.skip && !native) { log.push(`skipped: ${command.slice(0, 60)}: ${step!.skip}`); continue; }
        const r = spawnSync("sh", ["-c", command], { cwd: at("."), encoding: "utf8", env: { ...process.env, TSGPU_CHECKER_SNAPSHOT: "0" } });
        log.push(`ran: ${command.slice(0, 60)} (exit ${r.status})`);
        if (/unavailableReason/.test(command)) {
          // The CUDA check: it passes with an addon built with CUDA and refuses one built without.
          const { native: addon } = require(join(at("."), "dist", "native", "addon"));
          if (addon.builtWithCuda) expect(r.status).toBe(0);
          else { expect(r.status).toBe(1); expect(r.stderr).toContain("the addon was built without CUDA"); }
          continue;
        }
        expect(`${command}: exit ${r.status}${r.status ? `\n${r.stdout}${r.stderr}` : ""}`).toBe(`${command}: exit 0`);
      }
    }
    console.log(`the Dockerfile's build stage, step by step:\n  ${log.join("\n  ")}`);
    expect(existsSync(at("native/generated/dtypes.ts"))).toBe(true);
    const version = JSON.parse(readFileSync(at("package.json"), "utf8")).version;
    const r = spawnSync(process.execPath, [at("dist/kernel/cli.js"), "--version"], { encoding: "utf8" });
    expect(r.stdout).toMatch(new RegExp(`^tsgpu ${version.replace(/\./g, "\\.")} `));
    // What the kernel stage starts is there: the launcher and the command line it runs.
    const cmd: string[] = JSON.parse(byStage.get("kernel")!.find((i) => i.op === "CMD")!.args);
    for (const p of cmd.filter((a) => a.startsWith("/opt/tsgpu/"))) expect(`${p} ${existsSync(join(image, p)) ? "exists" : "missing"}`).toBe(`${p} exists`);
  }, 600000);
});
