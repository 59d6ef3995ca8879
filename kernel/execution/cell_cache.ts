/**
 * Cells run again unchanged (the usual way to work in a notebook) skip the
 * work that depends only on their text: stripping types and rewriting
 * declarations (transpileCell). A cell's script does not depend on its
 * execution count or file name, so one result serves every run.
 */
import type { TranspiledCell } from "./transpile";

/** Texts remembered (least recently used ones are dropped). */
const kCachedCells = 64;

export interface CachedCell {
  transpiled: TranspiledCell;
  /** The text as typed (before magics were rewritten), and its lines: shared by the records of its runs. */
  code: string;
  lines: string[];
  /**
   * Arithmetic on number literals (language/trivial_cell.ts), decided once per text: such a cell has no
   * side effect, cannot throw and always gives the same value, so after its first run the value is kept
   * here (`value`) and later runs skip compiling it (new vm.Script: the largest part of such a cell's cost).
   */
  literal?: boolean;
  value?: { result: unknown };
}

export class CellCache {
  private readonly entries = new Map<string, CachedCell>();

  /**
   * The entry for a cell text (kept as the most recently used), made by
   * `make` if there is none. `source` is the text with magics rewritten,
   * `code` the text as typed.
   */
  get(source: string, keepResult: boolean, make: () => TranspiledCell, code = source): CachedCell {
    const key = (keepResult ? "1" : "0") + source;
    let entry = this.entries.get(key);
    if (entry) this.entries.delete(key);
    if (!entry || entry.code !== code) entry = { transpiled: entry?.transpiled ?? make(), code, lines: code.split("\n"), literal: entry?.literal, value: entry?.value };
    this.entries.set(key, entry);
    if (this.entries.size > kCachedCells) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }

  get size(): number { return this.entries.size; }
}
