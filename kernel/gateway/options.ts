/**
 * What `tsgpu launch` is told by Jupyter Enterprise Gateway: the kernel id,
 * the response address, the gateway's public key and the port range, from
 * the command line (`--kernel-id`, or EG's older `--RemoteProcessProxy.kernel-id`
 * spelling) or, in a Kubernetes pod, from the environment (`KERNEL_ID`,
 * `RESPONSE_ADDRESS`, `PUBLIC_KEY`, `PORT_RANGE`). Every bad value is an
 * error naming the option and the value; an unknown option, a usage error.
 */
import { KeyObject, createPublicKey } from "crypto";
import { UsageError } from "../commands/usage_error";

export interface PortRange {
  /** Lowest port, inclusive; 0 with `hi` 0: any free port. */
  lo: number;
  /** Highest port, inclusive. */
  hi: number;
}

export interface LaunchOptions {
  kernelId: string;
  /** Where the encrypted connection info goes. */
  response: { host: string; port: number };
  /** The gateway's RSA public key. */
  publicKey: KeyObject;
  portRange: PortRange;
  /** How many more candidate ports to try after a port in the range is taken (EG's max_port_range_retries). */
  retries: number;
  /** How long the gateway waits for the connection info (ms); sending gives up after it. */
  launchTimeoutMs: number;
  /** Options given that the launcher does not use (EG passes some meant for Spark), for the log. */
  ignored: string[];
}

/** The launcher's options, with the environment variable that stands in for each in a pod. */
const kOptions: Record<string, { key: "kernelId" | "response" | "publicKey" | "portRange"; env: string[] }> = {
  "kernel-id": { key: "kernelId", env: ["KERNEL_ID"] },
  "response-address": { key: "response", env: ["RESPONSE_ADDRESS", "EG_RESPONSE_ADDRESS"] },
  "public-key": { key: "publicKey", env: ["PUBLIC_KEY", "EG_PUBLIC_KEY"] },
  "port-range": { key: "portRange", env: ["PORT_RANGE", "EG_PORT_RANGE"] },
};

/**
 * Options of EG's kernel launchers (launch_ipykernel.py's) that this one has no use for: given, they are
 * logged and ignored, as is any other of EG's --RemoteProcessProxy.NAME options.
 */
const kForeignEgOptions = ["spark-context-initialization-mode", "cluster-type", "kernel-class-name"];

/** An environment variable as a whole number, or the default. */
function envInt(env: NodeJS.ProcessEnv, names: string[], dflt: number): number {
  for (const n of names) {
    const v = env[n];
    if (v === undefined || v === "") continue;
    if (!/^\d+$/.test(v)) throw new Error(`expected a whole number for ${n}, got "${v}"`);
    return Number(v);
  }
  return dflt;
}

/** A value EG should have filled in but did not (the kernelspec was started by something else). */
function placeholder(v: string): boolean {
  return /^\{[a-z_]+\}$/.test(v);
}

export function parsePortRange(text: string, minSize: number): PortRange {
  const m = /^(\d+)\.\.(\d+)$/.exec(text.trim());
  if (!m) throw new Error(`expected LO..HI for --port-range, got "${text}"`);
  const lo = Number(m[1]), hi = Number(m[2]);
  if (lo > 65535 || hi > 65535) throw new Error(`expected ports up to 65535 for --port-range, got "${text}"`);
  const size = hi - lo;
  if (size !== 0 && size < minSize) {
    throw new Error(`expected a port range of at least ${minSize} ports (EG_MIN_PORT_RANGE_SIZE) for --port-range, got "${text}" (${size})`);
  }
  // LO..LO (EG's default 0..0) means no range: the system picks free ports.
  return size === 0 ? { lo: 0, hi: 0 } : { lo, hi };
}

export function parseResponseAddress(text: string): { host: string; port: number } {
  const parts = text.split(":");
  const port = Number(parts[1]);
  if (parts.length !== 2 || !parts[0] || !/^\d+$/.test(parts[1] ?? "") || port < 1 || port > 65535) {
    throw new Error(`expected HOST:PORT for --response-address, got "${text}"`);
  }
  return { host: parts[0], port };
}

/** The gateway's key: base64 of a DER SubjectPublicKeyInfo (EG's PEM without its header, footer and newlines). */
export function parsePublicKey(text: string): KeyObject {
  const shown = text.length > 24 ? `${text.slice(0, 24)}… (${text.length} characters)` : text;
  let key: KeyObject;
  try {
    if (!/^[A-Za-z0-9+/=\s]+$/.test(text)) throw new Error("not base64");
    key = createPublicKey({ key: Buffer.from(text, "base64"), format: "der", type: "spki" });
  } catch (e) {
    throw new Error(`expected a base64 DER RSA public key for --public-key, got "${shown}" (${(e as Error).message})`);
  }
  if (key.asymmetricKeyType !== "rsa") throw new Error(`expected an RSA public key for --public-key, got a ${key.asymmetricKeyType} key`);
  return key;
}

/**
 * The launcher's command line, read without the environment: the options
 * given by name (EG's older spellings under their names) and what is
 * ignored (arguments, EG's options for other launchers). An unknown option
 * or one without its value throws a UsageError. `tsgpu launch` checks this
 * before anything starts.
 */
export function scanLaunchArgs(args: string[]): { given: Record<string, string>; ignored: string[] } {
  const given: Record<string, string> = {};
  const ignored: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (/^-[^-]/.test(a)) throw new UsageError(`unknown option ${a}`, "launch");
    if (!a.startsWith("--")) { ignored.push(a); continue; }
    const eq = a.indexOf("=");
    const spelled = eq < 0 ? a.slice(2) : a.slice(2, eq);
    const name = spelled.replace(/^RemoteProcessProxy\./, "");
    const egs = name !== spelled || kForeignEgOptions.includes(name);
    if (!(name in kOptions) && !egs) throw new UsageError(`unknown option --${spelled}`, "launch");
    let value: string | undefined = eq < 0 ? undefined : a.slice(eq + 1);
    if (value === undefined && i + 1 < args.length && !args[i + 1].startsWith("--")) value = args[++i];
    if (!(name in kOptions)) { ignored.push(value === undefined ? a : `${a} ${value}`); continue; }
    if (value === undefined) throw new UsageError(`--${spelled} needs a value`, "launch");
    given[name] = value;
  }
  return { given, ignored };
}

/**
 * Reads the launcher's options from `args` (scanLaunchArgs), then the
 * environment for those not given. A bad or missing value is an Error
 * naming the option.
 */
export function parseLaunchArgs(args: string[], env: NodeJS.ProcessEnv = process.env): LaunchOptions {
  const { given, ignored } = scanLaunchArgs(args);
  const value = (name: string): string | undefined => {
    if (given[name] !== undefined) return given[name];
    for (const e of kOptions[name].env) if (env[e]) return env[e];
    return undefined;
  };
  const required = (name: string, what: string): string => {
    const v = value(name);
    if (v === undefined || v === "") throw new Error(`expected ${what} for --${name} (or $${kOptions[name].env[0]}), got none`);
    if (placeholder(v)) throw new Error(`expected ${what} for --${name}, got the unfilled placeholder "${v}" (Enterprise Gateway fills it in)`);
    return v;
  };
  const minSize = envInt(env, ["MIN_PORT_RANGE_SIZE", "EG_MIN_PORT_RANGE_SIZE"], 1000);
  const kernelId = required("kernel-id", "a kernel id");
  const publicKey = parsePublicKey(required("public-key", "the gateway's public key"));
  const response = parseResponseAddress(required("response-address", "HOST:PORT"));
  const range = value("port-range");
  const portRange = range === undefined || range === "" ? { lo: 0, hi: 0 } : parsePortRange(range, minSize);
  const retries = envInt(env, ["MAX_PORT_RANGE_RETRIES", "EG_MAX_PORT_RANGE_RETRIES"], 5);
  const launchTimeoutMs = 1000 * Number(env.KERNEL_LAUNCH_TIMEOUT && Number(env.KERNEL_LAUNCH_TIMEOUT) > 0 ? env.KERNEL_LAUNCH_TIMEOUT : 30);
  return { kernelId, response, publicKey, portRange, retries, launchTimeoutMs, ignored };
}
