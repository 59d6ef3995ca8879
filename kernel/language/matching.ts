/**
 * Which completion candidates a typed prefix selects, as editors match:
 * names that start with it (same case first, then any case); when none do,
 * camelCase abbreviations (`memS` → `memoryStats`, `memorySummary`); when
 * none match from the name's start, abbreviations from a later word and
 * substrings (`Stats` → `memoryStats`, `resetPeakMemoryStats`).
 */

/** The candidates that `typed` selects, best first; within a tier they keep the order given. */
export function matchNames<T>(candidates: readonly T[], typed: string, nameOf: (c: T) => string): T[] {
  if (!typed) return [...candidates];
  const tiers: ((name: string) => boolean)[] = [
    (n) => n.startsWith(typed),
    (n) => n.toLowerCase().startsWith(typed.toLowerCase()),
    (n) => abbreviates(typed, n, true),
  ];
  for (const tier of tiers) {
    const hits = candidates.filter((c) => tier(nameOf(c)));
    if (hits.length) return hits;
  }
  const lower = typed.toLowerCase();
  const anywhere = candidates.filter((c) => abbreviates(typed, nameOf(c), false));
  const inside = candidates.filter((c) => !anywhere.includes(c) && nameOf(c).toLowerCase().includes(lower));
  return [...anywhere, ...inside];
}

/**
 * Indices where a word of a name starts: its first character, an upper-case
 * letter after a lower-case one or a digit, a letter after `_`, `$` or a
 * digit, and the last capital of a run that a lower-case letter follows
 * (`HTMLElement` → H, E).
 */
export function wordStarts(name: string): number[] {
  const starts: number[] = [];
  for (let i = 0; i < name.length; i++) {
    const c = name[i], p = name[i - 1], n = name[i + 1];
    if (i === 0 || (isUpper(c) && (isLower(p) || isDigit(p))) || (isLetter(c) && (p === "_" || p === "$" || isDigit(p)))
      || (isUpper(c) && isUpper(p) && n !== undefined && isLower(n))) starts.push(i);
  }
  return starts;
}

/**
 * Whether `typed` abbreviates `name`: split into pieces, each piece (any
 * case) begins a word of the name and goes on inside it, the words in order,
 * words may be skipped (`mAl` → `memoryAllocated`). `fromStart`: the first
 * piece begins the name's first word.
 */
export function abbreviates(typed: string, name: string, fromStart: boolean): boolean {
  if (!typed) return true;
  const starts = wordStarts(name);
  const t = typed.toLowerCase(), n = name.toLowerCase();
  const failed = new Set<number>();
  // match(ti, ni): typed[ti..] matches name from ni on, where ni is inside a word (continue) or any later word start (jump).
  const match = (ti: number, ni: number): boolean => {
    if (ti === t.length) return true;
    const key = ti * (n.length + 1) + ni;
    if (failed.has(key)) return false;
    if (ni < n.length && n[ni] === t[ti] && match(ti + 1, ni + 1)) return true;
    for (const s of starts) if (s > ni && n[s] === t[ti] && match(ti + 1, s + 1)) return true;
    failed.add(key);
    return false;
  };
  if (fromStart) return n[0] === t[0] && match(1, 1);
  return starts.some((s) => n[s] === t[0] && match(1, s + 1));
}

function isUpper(c: string | undefined): boolean { return c !== undefined && c !== c.toLowerCase() && c === c.toUpperCase(); }
function isLower(c: string | undefined): boolean { return c !== undefined && c !== c.toUpperCase() && c === c.toLowerCase(); }
function isDigit(c: string | undefined): boolean { return c !== undefined && c >= "0" && c <= "9"; }
function isLetter(c: string | undefined): boolean { return isUpper(c) || isLower(c); }
