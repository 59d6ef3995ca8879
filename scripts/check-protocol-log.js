#!/usr/bin/env node
// Checks a protocol log (written by kernels run with TSGPU_PROTOCOL_LOG=FILE)
// against the outbound schema of the messaging spec (dist/kernel/protocol/
// outbound_schema.js): every message every kernel sent during the tests.
//
//   node scripts/check-protocol-log.js FILE [--require-all]
//
// Prints one line per violation (channel, msg_type, field, expected, value)
// and the counts by type. Exits 1 when a message breaks the schema, when the
// log is empty, or (with --require-all) when some type the schema knows was
// never sent, so that a run that checked nothing cannot pass.
"use strict";
const { existsSync } = require("fs");
const { join } = require("path");

const root = join(__dirname, "..");
const { checkLog, formatReport } = require(join(root, "dist", "kernel", "protocol", "outbound_log.js"));
const { knownTypes } = require(join(root, "dist", "kernel", "protocol", "outbound_schema.js"));

function main(argv) {
  const file = argv.find((a) => !a.startsWith("--"));
  if (!file) { console.error("usage: check-protocol-log.js FILE [--require-all]"); return 2; }
  if (!existsSync(file)) { console.error(`FAIL: no protocol log at ${file}: no kernel recorded a message (is TSGPU_PROTOCOL_LOG passed to the kernels?)`); return 1; }
  const report = checkLog(file);
  console.log(formatReport(file, report));
  let failed = report.violations.length > 0 || report.unreadable.length > 0;
  if (report.messages === 0) { console.error("FAIL: the protocol log holds no messages"); failed = true; }
  if (argv.includes("--require-all")) {
    // shell and control share the reply table: a reply counts when seen on either.
    const seen = new Set([...report.seen.keys()].map((k) => k.replace(/^control /, "shell ")));
    const missing = ["shell", "iopub", "stdin"].flatMap((c) => knownTypes(c).map((t) => `${c} ${t}`)).filter((k) => !seen.has(k));
    if (missing.length) { console.error(`FAIL: the tests never made the kernel send: ${missing.join(", ")}`); failed = true; }
  }
  console.log(failed ? "FAIL: protocol log check" : "protocol log check passed: every message sent fits the schema");
  return failed ? 1 : 0;
}

process.exit(main(process.argv.slice(2)));
