/**
 * The cells the main thread answers without the checker (trivial_cell.ts):
 * arithmetic on number literals. Each accepted cell is checked against the
 * compiler itself (no diagnostics, nothing declared), and the look-alikes
 * that the compiler does flag are refused, so they still reach it.
 */
import { isLiteralArithmetic } from "../../../kernel/language/trivial_cell";
import { cellLanguageForFile } from "../engine_helpers";

jest.setTimeout(60000);

const ACCEPTED = ["1+1", "1 + 1", "  (2 + 3) * 4;\n", "-1", "- -1", "+ +2", "10 % 3 / 2", "1.5e3 - 2E-2", "((1))", "1 +\n-1", "0", "123456789012345"];
/** Refused: the compiler flags the first group; the rest are outside the grammar (names, comments, other literals, an unfinished expression). */
const FLAGGED = ["--1", "1--1", "(1)(2)", "1 2", "-1 ** 2", "07", "()"];
const OUTSIDE = ["1 +", "x + 1", "1 + 'a'", "2 ** 3", "1 // c", "1 /* c */ + 2", "0x10", "1_000", ".5", "1.", "1;2", "1; // c", "", "   ", "1234567890123456", "Math.PI", "1 + 1 ;;"];

const fixture = cellLanguageForFile();
let seq = 0;


test("arithmetic on number literals is recognized", () => {
  for (const code of ACCEPTED) expect([code, isLiteralArithmetic(code)]).toEqual([code, true]);
});

test("what the compiler would flag, and anything beyond literal arithmetic, is left to the checker", () => {
  for (const code of [...FLAGGED, ...OUTSIDE]) expect([code, isLiteralArithmetic(code)]).toEqual([code, false]);
  expect(isLiteralArithmetic("1+" + "1+".repeat(200) + "1")).toBe(false); // longer than the checker is skipped for
});

test("the compiler agrees: every accepted cell has no diagnostics and declares nothing", () => {
  for (const code of ACCEPTED) {
    expect([code, fixture.language().analyze(code, ++seq, true)]).toEqual([code, []]);
    expect([code, fixture.language().pendingIsPure()]).toEqual([code, true]);
  }
});

test("the compiler flags the look-alikes that are refused", () => {
  for (const code of FLAGGED) expect([code, fixture.language().analyze(code, ++seq, true).length > 0]).toEqual([code, true]);
});
