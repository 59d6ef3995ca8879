/**
 * Compacts the main thread's old generation now and then in a long session.
 * Each cell leaves a little behind for good (its record, its `Out` entry),
 * between objects that lived just long enough to be promoted (a cell that
 * awaits the type checker spans several scavenges) and die in the old
 * generation. V8's full collections move objects off a page only when most
 * of it is free, so the old generation's pages fill with holes: over 5,000
 * cells of bench/soak.ts it grew from 11.5 to 19.0 MiB of pages holding
 * 12.1 MiB, and the kernel's RSS 2.3 KiB a cell. V8's memory reducer
 * compacts when the kernel is idle for some seconds, which a session of
 * cells back to back never is. So every kCompactEveryCells cells, once the
 * cell has been answered, the kernel runs one full collection that
 * compacts every fragmented page (V8's --compact-on-every-full-gc, on for
 * that collection only): the same 5,000 cells ended with 12.5 MiB of pages.
 * Without `gc` (a process not started with --expose-gc) it does nothing.
 */
import { setFlagsFromString } from "v8";

/** Cells between two compacting collections. */
export const kCompactEveryCells = 500;

/** One full collection that compacts the old generation; false where `gc` is not exposed. */
export function compactingCollection(gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc): boolean {
  if (!gc) return false;
  setFlagsFromString("--compact-on-every-full-gc");
  try { gc(); } finally { setFlagsFromString("--no-compact-on-every-full-gc"); }
  return true;
}

export class HeapCompaction {
  private cells = 0;
  private scheduled = false;
  constructor(private readonly every = kCompactEveryCells, private readonly collect: () => void = () => { compactingCollection(); }) {}

  /** Counts a cell that was answered; the collection runs after what is pending now. */
  cellEnded(): void {
    if (++this.cells < this.every || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.cells = 0;
      this.collect();
    }).unref();
  }
}
