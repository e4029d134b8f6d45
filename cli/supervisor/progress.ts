// The progress display of `ksim up` while it starts: on a terminal a live
// line per step (rewritten in place until the step is done), otherwise one
// plain line per finished step.

/** Steps on one output stream. */
export class Progress {
  private live = false;
  private readonly started = Date.now();

  constructor(private readonly out: NodeJS.WriteStream) {}

  private get tty(): boolean {
    return this.out.isTTY === true;
  }

  /** Seconds since `ksim up` began, for the lines. */
  elapsed(): string {
    return `${((Date.now() - this.started) / 1000).toFixed(2)}s`;
  }

  /** A step under way (shown on a terminal only). */
  step(text: string): void {
    if (!this.tty) return;
    this.out.write(`\r\x1b[K${text}`);
    this.live = true;
  }

  /** A finished step. */
  done(text: string): void {
    this.out.write(`${this.tty && this.live ? '\r\x1b[K' : ''}${text}\n`);
    this.live = false;
  }

  /** Ends a live line before other output. */
  clear(): void {
    if (this.tty && this.live) this.out.write('\r\x1b[K');
    this.live = false;
  }
}
