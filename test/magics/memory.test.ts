/**
 * `%memory`'s argument parser (magics/memory.ts parseMemoryArgs) on its own:
 * the view each option picks, on/off values written apart or with `=`, the
 * device, and the usage errors. What each view shows is tested through a
 * kernel (magics.test.ts, views.test.ts, where.test.ts).
 */
import { UsageError } from "../../magics/context";
import { parseMemoryArgs } from "../../magics/memory";

const defaults = { view: "overview", abbreviated: false, history: undefined, watch: undefined, device: undefined };

describe("parseMemoryArgs", () => {
  test("no arguments: the overview of every device", () => {
    expect(parseMemoryArgs([])).toEqual(defaults);
  });

  test.each([
    ["--summary", "summary"], ["-s", "summary"], ["--tensors", "tensors"], ["--leaks", "tensors"],
    ["--where", "where"], ["-w", "where"], ["--timeline", "timeline"], ["--processes", "processes"],
  ])("%s shows the %s view", (flag, view) => {
    expect(parseMemoryArgs([flag])).toEqual({ ...defaults, view });
  });

  test("a device by position or by --device=, with a view or alone", () => {
    expect(parseMemoryArgs(["cuda:0"])).toEqual({ ...defaults, device: "cuda:0" });
    expect(parseMemoryArgs(["--summary", "--abbreviated", "cpu"])).toEqual({ ...defaults, view: "summary", abbreviated: true, device: "cpu" });
    expect(parseMemoryArgs(["--device=all", "--where"])).toEqual({ ...defaults, view: "where", device: "all" });
  });

  test("the last view named wins", () => {
    expect(parseMemoryArgs(["--summary", "--tensors"]).view).toBe("tensors");
  });

  test.each([
    [["--history", "on"], { history: true }],
    [["--history=off"], { history: false }],
    [["--watch", "off"], { watch: false }],
    [["--watch=on"], { watch: true }],
    [["--history", "on", "cuda:0"], { history: true, device: "cuda:0" }],
  ])("%j", (args, expected) => {
    expect(parseMemoryArgs(args)).toEqual({ ...defaults, ...expected });
  });

  test.each([
    [["--history"], "expected on or off for --history, got nothing"],
    [["--history", "yes"], "expected on or off for --history, got yes"],
    [["--watch="], "expected on or off for --watch, got "],
    [["--frobnicate"], "unknown option --frobnicate"],
    [["cpu", "cuda:0"], "unknown option cuda:0"],
    [["-x"], "unknown option -x"],
  ])("%j is a usage error: %s", (args, problem) => {
    let err: unknown;
    try { parseMemoryArgs(args); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(new RegExp(`^%memory: ${problem.replace(/[-]/g, "\\-")}\\. Usage: %memory \\[DEVICE\\|all\\]`));
  });
});
