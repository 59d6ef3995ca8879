/**
 * Cells whose type check is known without a program: arithmetic on number
 * literals (`1+1`, `(2 + 3) * 4;`). Such a cell declares nothing, imports
 * nothing and cannot have a type diagnostic, so the main thread answers it
 * with none and the checker never sees it (checker.ts `analyze`). Building
 * a program for it cost the checker 0.1-0.4 s of CPU on a loaded machine:
 * more than the kernel spent on 100 such cells.
 *
 * The grammar accepted is deliberately small; anything outside it goes to
 * the checker as before:
 *
 *   cell    := expr ";"?
 *   expr    := unary (("+" | "-" | "*" | "/" | "%") unary)*
 *   unary   := ("+" | "-") unary | primary
 *   primary := NUMBER | "(" expr ")"
 *   NUMBER  := decimal digits (no leading zero), an optional fraction and
 *              exponent; at most 15 digits, so every one is exact
 *
 * with whitespace between tokens. Left out on purpose: `++`/`--` (an error
 * on a literal), `**` (a unary operand on its left is an error), comments,
 * calls (`(1)(2)` is an error), numeric separators, octal-looking literals.
 */

type Token = { kind: "num" } | { kind: "op"; text: string };

const kMaxChars = 200;
const kNumber = /^(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;

function tokens(code: string): Token[] | null {
  const out: Token[] = [];
  let i = 0;
  while (i < code.length) {
    const c = code[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r") { i++; continue; }
    const n = kNumber.exec(code.slice(i));
    if (n) {
      if (n[0].replace(/\D/g, "").length > 15) return null;
      // A digit, letter, `_`, `.` or `$` right after the number is something else (`1_0`, `1.5.2`, `0x1`, `07`).
      if (/[\w.$]/.test(code[i + n[0].length] ?? "")) return null;
      out.push({ kind: "num" });
      i += n[0].length;
      continue;
    }
    if ("+-*/%()".includes(c)) {
      const pair = code.slice(i, i + 2);
      if (pair === "++" || pair === "--" || pair === "**" || pair === "//" || pair === "/*") return null;
      out.push({ kind: "op", text: c });
      i++;
      continue;
    }
    if (c === ";" && code.slice(i + 1).trim() === "") { i = code.length; continue; }
    return null;
  }
  return out;
}

/** Whether a cell is arithmetic on number literals only (see above): no declarations, no diagnostics. */
export function isLiteralArithmetic(code: string): boolean {
  if (code.length > kMaxChars) return false;
  const t = tokens(code);
  if (!t || !t.length) return false;
  let at = 0;
  const op = (text: string) => { const k = t[at]; return k?.kind === "op" && k.text === text; };
  const primary = (): boolean => {
    if (t[at]?.kind === "num") { at++; return true; }
    if (op("(")) { at++; if (!expr() || !op(")")) return false; at++; return true; }
    return false;
  };
  const unary = (): boolean => {
    if (op("+") || op("-")) { at++; return unary(); }
    return primary();
  };
  const expr = (): boolean => {
    if (!unary()) return false;
    while (op("+") || op("-") || op("*") || op("/") || op("%")) { at++; if (!unary()) return false; }
    return true;
  };
  return expr() && at === t.length;
}
