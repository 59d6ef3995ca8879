/**
 * The table of magics (magics/registry.ts) and the built-in magics' argument
 * checks, without a kernel: names, options and help from each magic's usage,
 * how argument text is split, the errors for unknown magics, and the usage
 * errors a magic raises before it touches the kernel (the context given here
 * is empty, so a magic that reached for it would fail with a TypeError).
 */
import { Magic, MagicContext, UsageError } from "../../magics/context";
import { registerBuiltinMagics } from "../../magics/index";
import { MagicRegistry, splitArgs } from "../../magics/registry";

const empty = {} as MagicContext;

function builtins(): MagicRegistry {
  const r = new MagicRegistry();
  registerBuiltinMagics(r);
  return r;
}

/** A magic that records what it was given. */
function recorder(name: string, options: Partial<Magic> = {}): { magic: Magic; calls: unknown[][] } {
  const calls: unknown[][] = [];
  const magic: Magic = {
    name, usage: `%${name} ARGS`,
    run: (args) => { calls.push(["run", args]); return args.length; },
    ...options,
  };
  return { magic, calls };
}

describe("splitArgs", () => {
  test.each([
    ["", []],
    ["   ", []],
    ["a b  c", ["a", "b", "c"]],
    ['--device "cuda:0" x', ["--device", "cuda:0", "x"]],
    ["'two words' \"and three here\"", ["two words", "and three here"]],
    ['"" x', ["", "x"]],
    ["\ta\n b", ["a", "b"]],
  ])("%j splits into %j", (text, expected) => {
    expect(splitArgs(text)).toEqual(expected);
  });
});

describe("MagicRegistry", () => {
  test("lists the built-in magics by name, sorted", () => {
    expect(builtins().names()).toEqual([
      "empty_cache", "env", "lsmagic", "memory", "pinfo", "reset", "reset_selective", "restart", "time", "timeit",
      "typecheck", "who", "whos", "xdel",
    ]);
  });

  test("a magic's options come from its usage and help, each once, in order of first mention", () => {
    const r = builtins();
    expect(r.options("timeit")).toEqual(["-n", "-r", "-q"]);
    expect(r.options("reset")).toEqual(["-f"]);
    const memory = r.options("memory");
    for (const o of ["--summary", "--abbreviated", "--tensors", "--leaks", "--where", "--timeline", "--processes", "--history", "--watch"]) {
      expect(memory).toContain(o);
    }
    expect(new Set(memory).size).toBe(memory.length);
    // Words with dashes inside are not options; an unknown magic has none.
    r.register({ name: "x", usage: "%x [--real-one] read-only non-option -k", run: () => undefined });
    expect(r.options("x")).toEqual(["--real-one", "-k"]);
    expect(r.options("no_such_magic")).toEqual([]);
  });

  test("help is the usage line, then the help text where the magic has one; null for an unknown magic", () => {
    const r = builtins();
    const memory = r.get("memory")!;
    expect(r.help("memory")).toBe(`${memory.usage}\n\n${memory.help}`);
    expect(r.help("who")).toBe(r.get("who")!.usage);
    expect(r.help("nope")).toBeNull();
  });

  test("run splits the argument text for a plain magic and passes it whole to a raw one", async () => {
    const r = new MagicRegistry();
    const plain = recorder("plain");
    const raw = recorder("raw", { raw: true });
    r.register(plain.magic);
    r.register(raw.magic);
    await expect(r.run("plain", ' a "b c" ', empty)).resolves.toBe(2);
    await expect(r.run("raw", ' a "b c" ', empty)).resolves.toBe(1);
    expect(plain.calls).toEqual([["run", ["a", "b c"]]]);
    expect(raw.calls).toEqual([["run", [' a "b c" ']]]);
  });

  test("runCell passes the split arguments and the body", async () => {
    const r = new MagicRegistry();
    const seen: unknown[] = [];
    r.register({ name: "cellish", usage: "%%cellish", run: () => undefined, runCell: (args, body) => { seen.push(args, body); return "done"; } });
    await expect(r.runCell("cellish", "-x 'y z'", "line 1\nline 2", empty)).resolves.toBe("done");
    expect(seen).toEqual([["-x", "y z"], "line 1\nline 2"]);
  });

  test("registering a name again replaces the magic", async () => {
    const r = new MagicRegistry();
    r.register({ name: "m", usage: "%m", run: () => "first" });
    r.register({ name: "m", usage: "%m", run: () => "second" });
    expect(r.names()).toEqual(["m"]);
    await expect(r.run("m", "", empty)).resolves.toBe("second");
  });

  test("an unknown line magic is a usage error that lists the known ones", async () => {
    const r = builtins();
    const err = await r.run("memroy", "", empty).catch((e: Error) => e) as Error;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message).toBe(`Line magic function \`%memroy\` not found. Known magics: ${r.names().map((n) => "%" + n).join(", ")}`);
  });

  test("an unknown cell magic, or a line magic used as one, is a usage error that lists the cell magics", async () => {
    const r = builtins();
    const cellMagics = r.names().filter((n) => r.get(n)!.runCell).map((n) => "%%" + n).join(", ");
    expect(cellMagics).toBe("%%memory, %%time, %%timeit");
    await expect(r.runCell("who", "", "x", empty)).rejects.toThrow(new UsageError(`Cell magic \`%%who\` not found (%who is a line magic). Known cell magics: ${cellMagics}`));
    await expect(r.runCell("nope", "", "x", empty)).rejects.toThrow(new UsageError(`Cell magic \`%%nope\` not found. Known cell magics: ${cellMagics}`));
  });
});

describe("usage errors of the built-in magics, raised before the kernel is touched", () => {
  const r = builtins();

  test.each([
    ["memory", "--bogus", "%memory: unknown option --bogus. Usage: "],
    ["memory", "--history maybe", "%memory: expected on or off for --history, got maybe. Usage: "],
    ["memory", "--watch", "%memory: expected on or off for --watch, got nothing. Usage: "],
    ["memory", "cpu cuda:0", "%memory: unknown option cuda:0. Usage: "],
    ["reset", "-f everything", "%reset: expected -f and/or out, got everything. Usage: "],
    ["reset", "out out", "%reset: expected -f and/or out, got out out. Usage: "],
    ["reset_selective", "-f", "%reset_selective: expected one regular expression, got nothing. Usage: "],
    ["reset_selective", "(", "%reset_selective: expected a regular expression for REGEX, got ( ("],
    ["xdel", "", "%xdel: expected one variable name, got nothing. Usage: "],
    ["xdel", "a b", "%xdel: expected one variable name, got a b. Usage: "],
    ["pinfo", "", "%pinfo: expected one name, got nothing"],
    ["restart", "now", "%restart: expected no arguments, got now"],
    ["env", "1abc=2", "%env: expected a variable name of letters, digits and _ for NAME, got 1abc"],
    ["env", "no-such-var", "%env: expected a variable name, got no-such-var"],
    ["timeit", "-n 0 x", "%timeit: expected a positive integer for -n, got 0"],
    ["timeit", "-r 1.5 x", "%timeit: expected a positive integer for -r, got 1.5"],
    ["timeit", "-n 5", "%timeit: expected a statement to time, got nothing"],
    ["time", "   ", "%time: expected a statement to time, got nothing"],
    ["typecheck", "on", "%typecheck: this kernel has no type checker"],
  ])("%%%s %s", async (name, args, message) => {
    const err = await r.run(name, args, empty).catch((e: Error) => e) as Error;
    expect(err).toBeInstanceOf(UsageError);
    expect(err.message.startsWith(message)).toBe(true);
    if (message.endsWith("Usage: ")) expect(err.message).toBe(message + r.get(name)!.usage);
  });

  test.each([["memory"], ["time"]])("%%%%%s takes no arguments", async (name) => {
    await expect(r.runCell(name, "x", "1", empty)).rejects.toThrow(new UsageError(`%%${name}: expected no arguments, got x`));
  });

  test("%typecheck takes one of its modes and nothing else; a good one reaches the checker", async () => {
    const set: string[] = [];
    const shown: unknown[] = [];
    const ctx = {
      typecheck: { mode: () => "strict", setMode: (m: string) => set.push(m), unavailable: () => undefined },
      output: { display: (b: unknown) => shown.push(b), print: () => undefined },
    } as unknown as MagicContext;
    for (const args of ["loose", "on off"]) {
      await expect(r.run("typecheck", args, ctx)).rejects.toThrow(
        new UsageError(`%typecheck: expected one of on, strict, off for the mode, got ${args}. Usage: ${r.get("typecheck")!.usage}`));
    }
    expect(set).toEqual([]);
    await r.run("typecheck", "strict", ctx);
    expect(set).toEqual(["strict"]);
    expect(shown).toHaveLength(1);
  });
});
