/**
 * The log of messages a kernel drops (bad signatures, malformed frames or
 * headers, unknown types), with a rate limit: anyone who can reach a port can
 * send garbage, and one line per message would let them fill the log. The
 * first few drops of each interval are logged in full; the rest are counted
 * and reported as one line per interval, by channel and kind. Pure apart from
 * a timer: the caller gives the function that writes a line.
 */

/** Drops logged in full per interval. */
export const kFullDropsPerInterval = 5;
/** Length of an interval (ms). */
export const kDropIntervalMs = 10_000;

export class DropLog {
  private windowStart = 0;
  private fullInWindow = 0;
  /** "channel: kind" → count, of drops not logged in full this interval. */
  private suppressed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** Every message dropped or refused since start. */
  total = 0;

  constructor(private readonly write: (line: string) => void,
              private readonly fullPerInterval = kFullDropsPerInterval,
              private readonly intervalMs = kDropIntervalMs,
              private readonly now: () => number = Date.now) {}

  /** Records a dropped message: `kind` groups drops in the summary, `detail` is the full reason. */
  drop(channel: string, kind: string, detail: string): void {
    this.record(`${channel}: ${kind}`, `dropped a ${channel} message: ${detail}`);
  }

  /** Records a malformed request that was answered with an error reply (logged under the same limit). */
  reject(channel: string, kind: string, detail: string): void {
    this.record(`${channel}: ${kind} (answered with an error)`, `answered a ${channel} request with an error: ${detail}`);
  }

  private record(key: string, line: string): void {
    this.total++;
    const t = this.now();
    if (t - this.windowStart >= this.intervalMs) {
      this.flush();
      this.windowStart = t;
      this.fullInWindow = 0;
    }
    if (this.fullInWindow < this.fullPerInterval) {
      this.fullInWindow++;
      const last = this.fullInWindow === this.fullPerInterval ? ` (further drops in the next ${this.intervalMs / 1000} s are counted, not shown)` : "";
      this.write(`${line}${last}`);
      return;
    }
    this.suppressed.set(key, (this.suppressed.get(key) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setTimeout(() => { this.timer = undefined; this.flush(); }, Math.max(0, this.windowStart + this.intervalMs - t));
      this.timer.unref?.();
    }
  }

  /** Writes the count of the drops not shown, if any. */
  flush(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (!this.suppressed.size) return;
    const n = [...this.suppressed.values()].reduce((a, b) => a + b, 0);
    const by = [...this.suppressed].sort((a, b) => b[1] - a[1]).map(([k, c]) => `${k} ×${c}`).join(", ");
    this.suppressed.clear();
    this.write(`${n} more messages dropped or refused in ${this.intervalMs / 1000} s, not shown one by one: ${by}`);
  }
}
