// A token bucket (client-go's flowcontrol.TokenBucketRateLimiter): for
// client-side request rate limits (QPS and burst; off by default in ksim:
// kube's 20 QPS default is what makes large simulations crawl, so a component
// turns it on only when asked) and for the event spam filter.

/** Lets through `burst` at once, refilled at `qps` per second. */
export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes a token if one is there now (TryAccept). */
  tryAccept(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Resolves when a request may go. */
  async take(): Promise<void> {
    for (;;) {
      if (this.tryAccept()) return;
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - this.tokens) / this.qps) * 1000)));
    }
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
  }
}
