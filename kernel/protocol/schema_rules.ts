/**
 * Small building blocks for checking JSON values against a schema: each rule
 * looks at one value and reports every problem it finds, with the path of the
 * field, what was expected and what was there. Pure: no messages, no I/O.
 * The message schema (outbound_schema.ts) is written with them.
 */

/** One field that does not fit its rule. */
export interface Problem {
  /** Path of the field, e.g. `content.language_info.codemirror_mode`. */
  field: string;
  /** What the rule wants, in words: "a non-negative integer", "one of "ok", "error", "aborted"". */
  expected: string;
  /** The value found (undefined when the field is missing). */
  value: unknown;
}

/** Checks `value` (found at `path`) and appends what is wrong to `out`. */
export type Rule = (value: unknown, path: string, out: Problem[]) => void;

/** A rule with the words that say what it accepts (used when a choice between rules fails). */
export interface Described { rule: Rule; expected: string }

function simple(expected: string, ok: (v: unknown) => boolean): Rule & Described {
  const rule = ((v: unknown, path: string, out: Problem[]) => { if (!ok(v)) out.push({ field: path, expected, value: v }); }) as Rule & Described;
  rule.rule = rule;
  rule.expected = expected;
  return rule;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

export const str = simple("a string", (v) => typeof v === "string");
export const nonEmptyStr = simple("a non-empty string", (v) => typeof v === "string" && v.length > 0);
export const bool = simple("a boolean", (v) => typeof v === "boolean");
/** JSON numbers that a Rust `usize` (and Python's int) read: integers from 0 up. */
export const uint = simple("a non-negative integer", (v) => typeof v === "number" && Number.isSafeInteger(v) && v >= 0);
/** Any integer JSON carries exactly (negative too: history sessions count back from 0). */
export const int = simple("an integer", (v) => typeof v === "number" && Number.isSafeInteger(v));
export const num = simple("a finite number", (v) => typeof v === "number" && Number.isFinite(v));
/** Any object (a `metadata`, a comm's `data`): keys are free, values any JSON. */
export const anyObject = simple("an object", isObject);
/** Any JSON value (null, booleans, numbers, strings, arrays, objects). */
export const anyJson = simple("a JSON value", () => true);

/** ISO 8601 date and time with a time zone, as RFC 3339 parsers (chrono, dateutil) read it. */
export const isoDate = simple("an ISO 8601 date-time with time zone (e.g. 2026-12-01T08:00:00.000Z)",
  (v) => typeof v === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(v) && !Number.isNaN(Date.parse(v)));

export function oneOf(...choices: string[]): Rule & Described {
  return simple(`one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`, (v) => typeof v === "string" && choices.includes(v));
}

export function matching(re: RegExp, words: string): Rule & Described {
  return simple(words, (v) => typeof v === "string" && re.test(v));
}

export function arrayOf(item: Rule): Rule {
  return (v, path, out) => {
    if (!Array.isArray(v)) { out.push({ field: path, expected: "an array", value: v }); return; }
    v.forEach((x, i) => item(x, `${path}[${i}]`, out));
  };
}

/** An array of exactly these items, in order (a JSON tuple). */
export function tuple(...items: Rule[]): Rule {
  return (v, path, out) => {
    if (!Array.isArray(v) || v.length !== items.length) {
      out.push({ field: path, expected: `an array of ${items.length} items`, value: v });
      return;
    }
    items.forEach((rule, i) => rule(v[i], `${path}[${i}]`, out));
  };
}

/** An object whose every value satisfies `value` (keys are free). */
export function mapOf(value: Rule): Rule {
  return (v, path, out) => {
    if (!isObject(v)) { out.push({ field: path, expected: "an object", value: v }); return; }
    for (const [k, x] of Object.entries(v)) value(x, `${path}.${k}`, out);
  };
}

/** Fields of an object: name → rule. */
export type Fields = Record<string, Rule>;

/**
 * An object with these required and optional fields. Other keys are allowed
 * (the spec lets kernels add fields; strict clients ignore unknown keys).
 * An optional field may be missing, but when present it must satisfy its
 * rule (null included: a client that reads an optional string reads null
 * as missing, but the spec never sends null for these, so neither do we).
 */
export function obj(required: Fields, optional: Fields = {}): Rule {
  return (v, path, out) => {
    if (!isObject(v)) { out.push({ field: path, expected: "an object", value: v }); return; }
    for (const [k, rule] of Object.entries(required)) {
      if (!(k in v)) out.push({ field: `${path}.${k}`, expected: "a field that is present", value: undefined });
      else rule(v[k], `${path}.${k}`, out);
    }
    for (const [k, rule] of Object.entries(optional)) if (k in v) rule(v[k], `${path}.${k}`, out);
  };
}

/** `rule`, or null (fields that clients send as null to mean "not given"). */
export function nullable(rule: Rule): Rule {
  return (v, path, out) => { if (v !== null) rule(v, path, out); };
}

/** The first of `choices` that fits; when none does, one problem saying what each would have wanted. */
export function anyOf(...choices: Described[]): Rule & Described {
  const expected = choices.map((c) => c.expected).join(" or ");
  const rule = ((v: unknown, path: string, out: Problem[]) => {
    for (const c of choices) {
      const probe: Problem[] = [];
      c.rule(v, path, probe);
      if (!probe.length) return;
    }
    out.push({ field: path, expected, value: v });
  }) as Rule & Described;
  rule.rule = rule;
  rule.expected = expected;
  return rule;
}

/** Gives a composite rule the words that describe it, for use in `anyOf`. */
export function described(expected: string, rule: Rule): Described {
  return { rule, expected };
}

/** Runs a rule and returns its problems. */
export function check(rule: Rule, value: unknown, path: string): Problem[] {
  const out: Problem[] = [];
  rule(value, path, out);
  return out;
}

/** A value for an error message: JSON, shortened to `max` characters. */
export function shown(value: unknown, max = 120): string {
  if (value === undefined) return "nothing (the field is missing)";
  let text: string;
  try { text = JSON.stringify(value) ?? String(value); } catch { text = String(value); }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
