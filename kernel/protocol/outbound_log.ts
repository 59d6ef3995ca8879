/**
 * The record of every message a kernel sends, for checking against the
 * schema (outbound_schema.ts) after a test run. Off unless the environment
 * variable TSGPU_PROTOCOL_LOG names a file: then each message sent, on every
 * channel and from every thread, is appended to it as one JSON line
 * `{channel, pid, header, parent_header, metadata, content, buffers}` (buffers
 * as a count). Appends are single writes to a file opened for appending, so
 * lines of several kernels (and of both threads of one) do not mix.
 */
import { appendFileSync, readFileSync } from "fs";
import type { Message } from "./message";
import { describeViolation, OutboundChannel, OutboundMessage, validateOutbound, Violation } from "./outbound_schema";

export const PROTOCOL_LOG_ENV = "TSGPU_PROTOCOL_LOG";

const logFile = process.env[PROTOCOL_LOG_ENV] || "";

/** Whether sent messages are recorded (TSGPU_PROTOCOL_LOG is set). */
export const recording = logFile !== "";

/** Appends a sent message to the log, when recording. Never throws: a failed write is reported once on stderr. */
export function recordOutbound(channel: OutboundChannel, msg: Message): void {
  if (!recording) return;
  const line = JSON.stringify({
    channel, pid: process.pid, header: msg.header, parent_header: msg.parent_header,
    metadata: msg.metadata, content: msg.content, buffers: msg.buffers?.length ?? 0,
  });
  try {
    appendFileSync(logFile, line + "\n", { mode: 0o600 });
  } catch (e) {
    if (!warned) { warned = true; process.stderr.write(`[tsgpu] cannot write ${PROTOCOL_LOG_ENV}=${logFile}: ${(e as Error).message}\n`); }
  }
}
let warned = false;

/** What a log holds: how many messages of each channel and type, and every violation with its line number. */
export interface LogReport {
  messages: number;
  /** "channel msg_type" → count. */
  seen: Map<string, number>;
  violations: { line: number; violation: Violation }[];
  /** Lines that are not JSON (a kernel killed mid-write leaves at most one). */
  unreadable: number[];
}

/** Reads a log written by `recordOutbound` and checks every message in it. */
export function checkLog(file: string): LogReport {
  const report: LogReport = { messages: 0, seen: new Map(), violations: [], unreadable: [] };
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    let m: OutboundMessage;
    try { m = JSON.parse(text); } catch { report.unreadable.push(i + 1); return; }
    report.messages++;
    const type = (m.header as { msg_type?: string } | undefined)?.msg_type ?? "(no msg_type)";
    const key = `${m.channel} ${type}`;
    report.seen.set(key, (report.seen.get(key) ?? 0) + 1);
    for (const violation of validateOutbound(m)) report.violations.push({ line: i + 1, violation });
  });
  return report;
}

/** The report as lines of text: one per violation (at most `max`), then the counts by type. */
export function formatReport(file: string, r: LogReport, max = 50): string {
  const lines = [`${file}: ${r.messages} messages sent by kernels, ${r.violations.length} schema violations`];
  for (const { line, violation } of r.violations.slice(0, max)) lines.push(`  line ${line}: ${describeViolation(violation)}`);
  if (r.violations.length > max) lines.push(`  … and ${r.violations.length - max} more`);
  if (r.unreadable.length) lines.push(`  unreadable lines: ${r.unreadable.join(", ")}`);
  lines.push(`  by type: ${[...r.seen].sort().map(([k, n]) => `${k} ×${n}`).join(", ")}`);
  return lines.join("\n");
}
