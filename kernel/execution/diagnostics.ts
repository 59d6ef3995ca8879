/**
 * Type diagnostics as the user reads them: the cell, the line, the message,
 * the source line with the span underlined. Warnings go to the cell's stderr;
 * in strict mode they become the cell's error.
 */
import type { CellDiagnostic } from "../language/cell_language";
import type { ErrorContent } from "./traceback";

/**
 * One diagnostic as a few lines of text, its kind first, as compilers and
 * Python's warnings print theirs: "warning TS2322 at Cell In[3], line 1,
 * column 7: Type 'string' is not assignable to type 'number'.", then the
 * source line with the span underlined.
 */
export function formatDiagnostic(d: CellDiagnostic, lines: string[], executionCount: number, label: string): string {
  const src = lines[d.line - 1] ?? "";
  const gutter = `${d.line} | `;
  const width = Math.max(1, Math.min(d.length, src.length - (d.column - 1)));
  const [first, ...rest] = d.message.split("\n");
  const head = `${label} TS${d.code} at Cell In[${executionCount}], line ${d.line}, column ${d.column}: ${first}`;
  return [
    head,
    ...rest.map((r) => "  " + r),
    `  ${gutter}${src}`,
    `  ${" ".repeat(gutter.length + d.column - 1)}${"^".repeat(width)}`,
  ].join("\n");
}

/** The name of a "Cannot find name 'x'" diagnostic (TS2304, TS2552 with its "Did you mean"), or undefined. */
function missingName(d: CellDiagnostic): string | undefined {
  return d.code === 2304 || d.code === 2552 ? /^Cannot find name '([^']+)'/.exec(d.message)?.[1] : undefined;
}

/**
 * The warning text written to a cell's stderr (empty when there is nothing
 * to say). When the cell failed with "NAME is not defined" (a name `%reset`
 * removed, or one never declared), the warnings that the checker cannot find
 * NAME are left out: the error says it once.
 */
export function warningText(diags: CellDiagnostic[], lines: string[], executionCount: number, error?: ErrorContent): string {
  const undefinedName = error?.ename === "ReferenceError" ? /^(\S+) is not defined$/.exec(error.evalue)?.[1] : undefined;
  const shown = diags.filter((d) => d.category !== "suggestion" && d.category !== "message" && (undefinedName === undefined || missingName(d) !== undefinedName));
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
