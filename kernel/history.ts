/**
 * Input (and output) history for history_request, numbered like IPython's:
 * every kernel run is a session with a number one above the last one, and
 * every stored cell a line of that session numbered by its execution count.
 *
 * History is kept in memory and, unless turned off, appended to a JSON-lines
 * file so that later sessions (and `jupyter console`'s up-arrow) see earlier
 * ones: `$TSGPU_HISTORY_FILE`, else `$XDG_DATA_HOME/tsgpu/history.jsonl`
 * (~/.local/share/tsgpu/history.jsonl). `TSGPU_HISTORY_FILE=none` keeps it in
 * memory only. Two kernels started at the same moment may take the same
 * session number; their lines then share it.
 */
import { appendFileSync, chmodSync, closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, statSync } from "fs";
import { homedir } from "os";
import { dirname, join } from "path";

export interface HistoryEntry { session: number; line: number; input: string; output?: string | null }

/** The file history persists to, or null when it stays in memory. */
export function historyFile(env: NodeJS.ProcessEnv = process.env): string | null {
  const configured = env.TSGPU_HISTORY_FILE;
  if (configured !== undefined) return configured === "" || configured === "none" ? null : configured;
  return join(env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "tsgpu", "history.jsonl");
}

/** Takes group and other permissions off a file the kernel writes (one made by an earlier, looser version). */
export function ownerOnly(file: string): void {
  try {
    if (statSync(file).mode & 0o077) chmodSync(file, 0o600);
  } catch { /* not ours to change: leave it */ }
}

/** How much of the file's end is read to find the last session number. */
const kTailBytes = 64 * 1024;
/** Distinct recent inputs whose text later entries share. */
const kRecentInputs = 64;
/** tail's `n` when the request gives none (IPython's default). */
const kDefaultTail = 10;

/** One line of the file: an input (`i`) or, later, the output (`o`) of a line. */
interface StoredLine { s: number; l: number; i?: string; o?: string }

export class History {
  private current: HistoryEntry[] = [];
  private sessionNumber: number | undefined;
  private earlier: HistoryEntry[] | undefined;
  private pendingWrites: string[] = [];
  private flushScheduled = false;
  /** The file's folder was made (or found) by an earlier write that succeeded. */
  private folderMade = false;

  constructor(private readonly file: string | null = historyFile(), private readonly log: (text: string) => void = () => undefined) {}

  /** This kernel's session number (fixed on first use). */
  get session(): number {
    if (this.sessionNumber === undefined) this.sessionNumber = this.lastStoredSession() + 1;
    return this.sessionNumber;
  }

  /** Inputs of recent entries by text: a cell run again shares its text with its earlier entries. */
  private readonly recentInputs = new Map<string, string>();

  add(line: number, input: string): void {
    const known = this.recentInputs.get(input);
    if (known !== undefined) { input = known; this.recentInputs.delete(known); }
    this.recentInputs.set(input, input);
    if (this.recentInputs.size > kRecentInputs) this.recentInputs.delete(this.recentInputs.keys().next().value!);
    this.current.push({ session: this.session, line, input });
    this.persist({ s: this.session, l: line, i: input });
  }

  setOutput(line: number, output: string): void {
    for (let i = this.current.length - 1; i >= 0; i--) {
      if (this.current[i].line === line) { this.current[i].output = output; break; }
    }
    this.persist({ s: this.session, l: line, o: output });
  }

  /** Writes what is pending to the file now (at shutdown). */
  flush(): void {
    if (!this.file || !this.pendingWrites.length) return;
    const text = this.pendingWrites.join("");
    this.pendingWrites = [];
    try {
      // Owner only: history holds everything typed into cells (tokens and passwords too).
      if (!this.folderMade) mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      appendFileSync(this.file, text, { mode: 0o600 });
      if (!this.folderMade) ownerOnly(this.file);
      this.folderMade = true;
    } catch (e) {
      this.folderMade = false;
      this.log(`cannot write history to ${this.file}: ${(e as Error).message}`);
    }
  }

  /** Answers a history_request's content with the `history` list of the reply. */
  query(c: Record<string, any>): unknown[] {
    const withOutput = Boolean(c.output);
    // A line without output gives "" (not null): strict clients read the output as a string.
    const shape = (e: HistoryEntry) => [e.session, e.line, withOutput ? [e.input, e.output ?? ""] : e.input];
    const n = c.n === undefined || c.n === null ? undefined : Number(c.n);
    switch (c.hist_access_type) {
      case "tail": {
        const count = n ?? kDefaultTail;
        const all = this.current.length >= count ? this.current : [...this.stored(), ...this.current];
        return (count > 0 ? all.slice(-count) : []).map(shape);
      }
      case "range": {
        // 0 is this session, -1 the one before, …; positive numbers are absolute.
        const asked = Number(c.session ?? 0);
        const session = asked <= 0 ? this.session + asked : asked;
        const entries = session === this.session ? this.current : this.stored().filter((e) => e.session === session);
        const start = Number(c.start ?? 0);
        const stop = c.stop === undefined || c.stop === null ? Infinity : Number(c.stop);
        return entries.filter((e) => e.line >= start && e.line < stop).map(shape);
      }
      case "search": {
        const re = globToRegExp(String(c.pattern ?? "*"));
        let hits = [...this.stored(), ...this.current].filter((e) => re.test(e.input));
        if (c.unique) {
          const seen = new Set<string>();
          hits = hits.reverse().filter((e) => !seen.has(e.input) && seen.add(e.input)).reverse();
        }
        return (n === undefined ? hits : hits.slice(-n)).map(shape);
      }
      default:
        throw new Error(`expected hist_access_type "tail", "range" or "search", got ${JSON.stringify(c.hist_access_type)}`);
    }
  }

  private persist(r: StoredLine): void {
    if (!this.file) return;
    this.pendingWrites.push(JSON.stringify(r) + "\n");
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // Written after the reply has gone out, in one append per burst of cells.
    setTimeout(() => { this.flushScheduled = false; this.flush(); }, 20).unref();
  }

  /** The highest session number in the file (read from its end), or 0. */
  private lastStoredSession(): number {
    if (!this.file) return 0;
    let fd: number | undefined;
    try {
      fd = openSync(this.file, "r");
      const size = fstatSync(fd).size;
      const length = Math.min(size, kTailBytes);
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, size - length);
      let last = 0;
      for (const line of buf.toString("utf8").split("\n")) {
        try { last = Math.max(last, Number(JSON.parse(line).s) || 0); } catch { /* a partial first line */ }
      }
      return last;
    } catch {
      return 0;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  /** Entries of earlier sessions, read from the file once. */
  private stored(): HistoryEntry[] {
    if (this.earlier) return this.earlier;
    this.earlier = [];
    if (!this.file) return this.earlier;
    let text = "";
    try { text = readFileSync(this.file, "utf8"); } catch { return this.earlier; }
    const byKey = new Map<string, HistoryEntry>();
    const mine = this.session;
    for (const line of text.split("\n")) {
      let r: StoredLine;
      try { r = JSON.parse(line); } catch { continue; }
      if (typeof r.s !== "number" || typeof r.l !== "number" || r.s >= mine) continue;
      const key = `${r.s}:${r.l}`;
      if (typeof r.i === "string") {
        const e: HistoryEntry = { session: r.s, line: r.l, input: r.i };
        byKey.set(key, e);
        this.earlier.push(e);
      } else if (typeof r.o === "string") {
        const e = byKey.get(key);
        if (e) e.output = r.o;
      }
    }
    return this.earlier;
  }
}

/** IPython's history search pattern: a glob where * and ? are wildcards, matched against the whole input. */
function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*").replace(/\?/g, "[\\s\\S]");
  return new RegExp(`^${body}$`);
}
