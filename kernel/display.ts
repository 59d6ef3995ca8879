/**
 * The display API that every cell sees (`display`, `display.html`, …,
 * `updateDisplay`, `clearOutput`) and the building of mime bundles from values.
 */
import { inspect } from "util";
import type { OutputRouter } from "./execution/output";
import { mimeBundle as mimeBundleRule } from "./protocol/outbound_schema";
import { check } from "./protocol/schema_rules";

export type MimeBundle = Record<string, unknown>;

export const MIMEBUNDLE = Symbol.for("Jupyter.mimebundle");

/** text/plain of a value as Node's REPL shows it, without colour codes. */
export function plainText(value: unknown): string {
  return typeof value === "string" ? inspect(value) : inspect(value, { colors: false, depth: 4, maxArrayLength: 100 });
}

/**
 * Checks a mime bundle made by user code before it is sent, by the rule the
 * messaging schema has for bundles: keys are mime types, values strings
 * (base64 for binary images) except for JSON types (application/json,
 * *+json), which hold values that JSON can carry. Throws a TypeError naming
 * the first key or value that does not fit.
 */
export function checkBundle(bundle: MimeBundle, name = "bundle"): MimeBundle {
  const [problem] = check(mimeBundleRule, bundle, name);
  if (problem) {
    const got = typeof problem.value === "string" ? JSON.stringify(problem.value) : problem.value === null ? "null" : typeof problem.value;
    throw new TypeError(`expected ${problem.expected} for ${problem.field}, got ${got}`);
  }
  for (const [key, value] of Object.entries(bundle)) {
    if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint") {
      throw new TypeError(`expected a JSON value for ${name}["${key}"], got ${typeof value}`);
    }
  }
  return bundle;
}

/** A value's mime bundle: its own (Symbol.for("Jupyter.mimebundle")) or text/plain. Throws a TypeError when its own is malformed. */
export function mimeBundle(value: unknown): MimeBundle {
  const own = value !== null && (typeof value === "object" || typeof value === "function")
    ? (value as any)[MIMEBUNDLE] : undefined;
  if (typeof own === "function") {
    const bundle = own.call(value);
    if (bundle && typeof bundle === "object") return checkBundle({ "text/plain": plainText(value), ...bundle }, "the value's mime bundle");
  }
  return { "text/plain": plainText(value) };
}

export interface DisplayOptions { displayId?: string }

export interface DisplayApi {
  (value: unknown, options?: DisplayOptions): void;
  html(s: string, options?: DisplayOptions): void;
  markdown(s: string, options?: DisplayOptions): void;
  svg(s: string, options?: DisplayOptions): void;
  png(bytes: Uint8Array | string, options?: DisplayOptions): void;
  json(v: unknown, options?: DisplayOptions): void;
  mime(bundle: MimeBundle, options?: DisplayOptions): void;
}

function expectString(name: string, v: unknown): string {
  if (typeof v !== "string") throw new TypeError(`expected a string for ${name}, got ${typeof v}`);
  return v;
}

export function makeDisplayApi(router: OutputRouter) {
  const send = (bundle: MimeBundle, options: DisplayOptions = {}, update = false) => {
    const transient = options.displayId !== undefined ? { display_id: String(options.displayId) } : {};
    router.publish(update ? "update_display_data" : "display_data", { data: bundle, metadata: {}, transient });
  };
  const display = ((value: unknown, options?: DisplayOptions) => send(mimeBundle(value), options)) as DisplayApi;
  display.html = (s, o) => send({ "text/html": expectString("html", s), "text/plain": s }, o);
  display.markdown = (s, o) => send({ "text/markdown": expectString("markdown", s), "text/plain": s }, o);
  display.svg = (s, o) => send({ "image/svg+xml": expectString("svg", s), "text/plain": "<svg image>" }, o);
  display.png = (bytes, o) => send({
    "image/png": typeof bytes === "string" ? bytes : Buffer.from(bytes).toString("base64"),
    "text/plain": "<png image>",
  }, o);
  display.json = (v, o) => send({ "application/json": v, "text/plain": plainText(v) }, o);
  display.mime = (bundle, o) => {
    if (!bundle || typeof bundle !== "object") throw new TypeError(`expected a mime bundle object for bundle, got ${typeof bundle}`);
    send(checkBundle(bundle), o);
  };
  const updateDisplay = (displayId: string, value: unknown) => {
    if (displayId === undefined || displayId === null) throw new TypeError("expected a display id for displayId, got " + displayId);
    const bundle = value !== null && typeof value === "object" && !((value as any)[MIMEBUNDLE]) && Object.keys(value as object).some((k) => k.includes("/"))
      ? checkBundle(value as MimeBundle, "value") : mimeBundle(value);
    send(bundle, { displayId }, true);
  };
  const clearOutput = (options: { wait?: boolean } = {}) => router.publish("clear_output", { wait: Boolean(options.wait) });
  return { display, updateDisplay, clearOutput };
}
