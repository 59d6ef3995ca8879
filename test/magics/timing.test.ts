/**
 * `%time` and `%timeit` without a kernel (magics/timing.ts): formatTime
 * against IPython's own `_format_time` (the same numbers through both), and
 * `%timeit`'s option parser. The timing itself runs through a kernel
 * (ipython_magics.test.ts).
 */
import { spawnSync } from "child_process";
import { UsageError } from "../../magics/context";
import { formatTime, parseTimeit } from "../../magics/timing";
import { PY } from "../jupyter";
import { testOrSkip } from "../skip";

/** IPython's _format_time of each value, or the reason it cannot be asked. */
function ipythonFormat(values: number[]): { out?: string[]; why: string } {
  const script = "import json, sys\nfrom IPython.core.magics.execution import _format_time\n"
    + "print(json.dumps([_format_time(v) for v in json.load(sys.stdin)]))";
  const r = spawnSync(PY, ["-c", script], { input: JSON.stringify(values), encoding: "utf8", env: { ...process.env, PYTHONIOENCODING: "utf-8" } });
  if (r.status !== 0) {
    const why = `needs IPython for ${PY}: ${(r.stderr || String(r.error)).trim().split("\n").pop()}`;
    if (process.env.CI === "true") throw new Error(why);
    return { why };
  }
  return { out: JSON.parse(r.stdout), why: "" };
}

// From a nanosecond to days: every unit, the edges between them, and the minutes-and-more form.
const VALUES = [
  0, 1e-9, 3.3e-9, 999e-9, 1e-6, 1.23456e-6, 12.5e-6, 999.4e-6, 1e-3, 0.0153, 0.1, 0.5, 0.999,
  1, 1.5, 9.87654, 59.9, 60, 61.5, 75.5, 3599, 3600, 3661.2, 86400, 90061, 200000.7,
];
// Values that round up to 1000 of their unit: IPython's "%.3g" writes them in exponent form.
const ROUND_UP = [999.6e-9, 999.6e-6, 0.9999];

const reference = ipythonFormat([...VALUES, ...ROUND_UP]);

describe("formatTime", () => {
  testOrSkip(reference.why, "gives what IPython's _format_time gives, value for value", () => {
    expect(VALUES.map((v) => [v, formatTime(v)])).toEqual(VALUES.map((v, i) => [v, reference.out![i]]));
  });

  testOrSkip(reference.why, "where IPython writes 1e+03 of a unit (a value that rounds up to 1000), it writes 1000", () => {
    const ipython = reference.out!.slice(VALUES.length);
    expect(ipython).toEqual(["1e+03 ns", "1e+03 µs", "1e+03 ms"]);
    expect(ROUND_UP.map((v) => formatTime(v))).toEqual(ipython.map((s) => s.replace("1e+03", "1000")));
  });
});

describe("parseTimeit", () => {
  test.each([
    ["x += 1", { repeat: 7, quiet: false, code: "x += 1" }],
    ["-n 10 f()", { number: 10, repeat: 7, quiet: false, code: "f()" }],
    ["-n10 -r3 f()", { number: 10, repeat: 3, quiet: false, code: "f()" }],
    ["-q -r 2 f(-n)", { repeat: 2, quiet: true, code: "f(-n)" }],
    ["  -r 1   a - b", { repeat: 1, quiet: false, code: "a - b" }],
    ["", { repeat: 7, quiet: false, code: "" }],
  ])("%j", (text, expected) => {
    expect(parseTimeit(text)).toEqual(expected);
  });

  test("options end at the statement: a -n after it belongs to the statement", () => {
    expect(parseTimeit("g(1) -n 5")).toEqual({ repeat: 7, quiet: false, code: "g(1) -n 5" });
  });

  test.each([["-n 0 f()", "-n", "0"], ["-n -1 f()", "-n", "-1"], ["-r two f()", "-r", "two"], ["-r 2.5 f()", "-r", "2.5"]])(
    "%j is a usage error naming the option and the value", (text, flag, value) => {
      expect(() => parseTimeit(text)).toThrow(new UsageError(`%timeit: expected a positive integer for ${flag}, got ${value}`));
    });
});
