/** Input (and output) history of this kernel session, for history_request. */
export interface HistoryEntry { session: number; line: number; input: string; output?: string }

export class History {
  readonly session = 1;
  private readonly entries: HistoryEntry[] = [];

  add(line: number, input: string): void {
    this.entries.push({ session: this.session, line, input });
  }

  setOutput(line: number, output: string): void {
    const e = this.entries.find((x) => x.line === line);
    if (e) e.output = output;
  }

  /** Answers a history_request's content with the `history` list of the reply. */
  query(c: Record<string, any>): unknown[] {
    const withOutput = Boolean(c.output);
    const shape = (e: HistoryEntry) => [e.session, e.line, withOutput ? [e.input, e.output ?? null] : e.input];
    const n = c.n === undefined || c.n === null ? undefined : Number(c.n);
    switch (c.hist_access_type) {
      case "tail":
        return (n === undefined ? this.entries : this.entries.slice(-n)).map(shape);
      case "range": {
        const session = Number(c.session ?? 0);
        if (session !== 0 && session !== this.session && session !== -1 + this.session + 1) return [];
        const start = Number(c.start ?? 0);
        const stop = c.stop === undefined || c.stop === null ? Infinity : Number(c.stop);
        return this.entries.filter((e) => e.line >= start && e.line < stop).map(shape);
      }
      case "search": {
        const re = globToRegExp(String(c.pattern ?? "*"));
        let hits = this.entries.filter((e) => re.test(e.input));
        if (c.unique) {
          const seen = new Set<string>();
          hits = hits.reverse().filter((e) => !seen.has(e.input) && seen.add(e.input)).reverse();
        }
        return (n === undefined ? hits : hits.slice(-n)).map(shape);
      }
      default:
        return [];
    }
  }
}

/** IPython's history search pattern: a glob where * and ? are wildcards, matched against the whole input. */
function globToRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[\\s\\S]*").replace(/\?/g, "[\\s\\S]");
  return new RegExp(`^${body}$`);
}
