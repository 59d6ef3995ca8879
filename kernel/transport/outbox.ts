/** Serializes sends on one zeromq socket (a socket takes one send at a time). */
export class Outbox {
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly sendFrames: (frames: Buffer[]) => Promise<void>,
              private readonly onError: (e: Error) => void) {}

  push(frames: Buffer[]): void {
    this.tail = this.tail.then(() => this.sendFrames(frames)).catch((e) => this.onError(e));
  }

  /** Resolves when everything pushed so far has been handed to zeromq. */
  drain(): Promise<void> {
    return this.tail;
  }
}
