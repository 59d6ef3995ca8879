/**
 * Type diagnostics as the user reads them: the cell, the line, the message,
 * the source line with the span underlined. Warnings go to the cell's stderr;
 * in strict mode they become the cell's error.
 */
import type { CellDiagnostic } from "./cell_language";
import type { ErrorContent } from "./traceback";

/** One diagnostic as a few lines of text. */
export function formatDiagnostic(d: CellDiagnostic, lines: string[], executionCount: number, label: string): string {
  const src = lines[d.line - 1] ?? "";
  const gutter = `${d.line} | `;
  const width = Math.max(1, Math.min(d.length, src.length - (d.column - 1)));
  const [first, ...rest] = d.message.split("\n");
  const head = `Cell In[${executionCount}], line ${d.line}, column ${d.column}: ${label} TS${d.code}: ${first}`;
  return [
    head,
    ...rest.map((r) => "  " + r),
    `  ${gutter}${src}`,
    `  ${" ".repeat(gutter.length + d.column - 1)}${"^".repeat(width)}`,
  ].join("\n");
}

/** The warning text written to a cell's stderr (empty when there is nothing to say). */
export function warningText(diags: CellDiagnostic[], lines: string[], executionCount: number): string {
  const shown = diags.filter((d) => d.category !== "suggestion" && d.category !== "message");
  if (!shown.length) return "";
  return shown.map((d) => formatDiagnostic(d, lines, executionCount, "warning")).join("\n") + "\n";
}

/** The error of a cell stopped by strict type checking. */
export function strictErrorContent(errors: CellDiagnostic[], lines: string[], executionCount: number): ErrorContent {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more type error${errors.length > 2 ? "s" : ""})` : "";
  const evalue = `${first.message.split("\n")[0]} (line ${first.line}, column ${first.column})${more}`;
  return {
    ename: "TSError",
    evalue,
    traceback: [...errors.map((d) => formatDiagnostic(d, lines, executionCount, "error")), `TSError: ${evalue}`],
  };
}
