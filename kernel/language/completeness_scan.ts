/**
 * The part of is_complete that needs the TypeScript compiler: whether a
 * cell's text (magic lines already rewritten) parses, and if not, whether
 * something open at its end can still be closed by more lines. Pure; the
 * type checker answers it with the compiler it has loaded (so the kernel's
 * main thread need not load its own copy), and the kernel calls it directly
 * when no checker is there.
 */
import type * as TS from "typescript";

/** is_complete's verdicts; "unknown" when the checker was asked and did not answer in time. */
export type Completeness = { status: "complete" } | { status: "incomplete"; indent: string } | { status: "invalid" } | { status: "unknown" };

const kIndent = "  ";

/** is_complete's answer for a text with no magic or help line left in it. */
export function sourceCompleteness(ts: typeof TS, source: string): Completeness {
  const sf = ts.createSourceFile("cell.ts", source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const diags: readonly TS.Diagnostic[] = (sf as unknown as { parseDiagnostics?: TS.Diagnostic[] }).parseDiagnostics ?? [];
  if (!diags.length) return { status: "complete" };
  const end = source.trimEnd().length;
  if (diags.some((d) => (d.start ?? 0) < end)) return { status: "invalid" };
  const open = openAtEnd(ts, source);
  if (open.unclosed) return { status: "incomplete", indent: kIndent.repeat(open.depth) };
  if (open.awaitsBody) return { status: "incomplete", indent: kIndent.repeat(open.depth + 1) };
  return { status: "invalid" };
}

interface OpenState {
  /** Brackets and template substitutions still open at the end. */
  depth: number;
  /** Something at the end can still be closed by more input. */
  unclosed: boolean;
  /** The code ends in a statement header whose body may follow on the next line. */
  awaitsBody: boolean;
}

/** Keywords whose parenthesized header is followed by a body: `if (…)`, `for (…)`, `while (…)`, `with (…)`. */
const HEADER_KEYWORDS = new Set(["if", "for", "while", "with"]);

/** Scans the code and says what is open where it ends. */
function openAtEnd(ts: typeof TS, code: string): OpenState {
  const K = ts.SyntaxKind;
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, code);
  /** Open brackets: the token that opened each, `${` for a template substitution; for `(`, whether it opens a header. */
  const stack: { kind: TS.SyntaxKind; header: boolean }[] = [];
  let previous: TS.SyntaxKind = K.Unknown;
  let beforePrevious: TS.SyntaxKind = K.Unknown;
  let lastClosedHeader = false;
  let unterminated = false;
  let lastKind: TS.SyntaxKind = K.Unknown;
  for (let k = scanner.scan(); k !== K.EndOfFileToken; k = scanner.scan()) {
    if (k === K.WhitespaceTrivia || k === K.NewLineTrivia || k === K.SingleLineCommentTrivia || k === K.ShebangTrivia) continue;
    if (k === K.MultiLineCommentTrivia) { unterminated = scanner.isUnterminated(); lastKind = k; continue; }
    if ((k === K.SlashToken || k === K.SlashEqualsToken) && startsExpression(ts, previous)) k = scanner.reScanSlashToken();
    if (k === K.CloseBraceToken && stack[stack.length - 1]?.kind === K.TemplateHead) {
      k = scanner.reScanTemplateToken(false);
      if (k === K.TemplateTail) stack.pop();
    } else if (k === K.OpenBraceToken || k === K.OpenBracketToken || k === K.TemplateHead) {
      stack.push({ kind: k, header: false });
    } else if (k === K.OpenParenToken) {
      const keyword = previous === K.AwaitKeyword && beforePrevious === K.ForKeyword ? "for" : ts.tokenToString(previous) ?? "";
      stack.push({ kind: k, header: HEADER_KEYWORDS.has(keyword) });
    } else if (k === K.CloseBraceToken || k === K.CloseParenToken || k === K.CloseBracketToken) {
      lastClosedHeader = stack.pop()?.header ?? false;
    }
    unterminated = scanner.isUnterminated();
    lastKind = k;
    beforePrevious = previous;
    previous = k;
  }
  let unclosed = stack.length > 0;
  if (unterminated) {
    // A quoted string ends at the line's end unless the line ends with `\`; templates and comments go on.
    const quoted = lastKind === K.StringLiteral;
    unclosed = !quoted || /\\$/.test(code);
  }
  const awaitsBody = (previous === K.CloseParenToken && lastClosedHeader)
    || previous === K.ElseKeyword || previous === K.DoKeyword || previous === K.EqualsGreaterThanToken;
  return { depth: stack.length, unclosed, awaitsBody };
}

/** Whether a `/` after this token starts a regular expression (it cannot divide). */
function startsExpression(ts: typeof TS, previous: TS.SyntaxKind): boolean {
  const K = ts.SyntaxKind;
  if (previous === K.Unknown) return true;
  if (previous === K.Identifier || previous === K.NumericLiteral || previous === K.StringLiteral || previous === K.BigIntLiteral
    || previous === K.CloseParenToken || previous === K.CloseBracketToken || previous === K.CloseBraceToken
    || previous === K.NoSubstitutionTemplateLiteral || previous === K.TemplateTail || previous === K.RegularExpressionLiteral
    || previous === K.ThisKeyword || previous === K.TrueKeyword || previous === K.FalseKeyword || previous === K.NullKeyword
    || previous === K.PlusPlusToken || previous === K.MinusMinusToken) return false;
  return true;
}
