// A token bucket for client-side request rate limits (client-go's QPS and
// burst). Off by default in ksim: kube's 20 QPS default is what makes large
// simulations crawl, so a component turns it on only when asked.

/** Waits so that requests stay under `qps` with bursts of `burst`. */
export class TokenBucket {
  private tokens: number;
  private last = Date.now();

  constructor(
    private readonly qps: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }

  /** Resolves when a request may go. */
  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - this.tokens) / this.qps) * 1000)));
    }
  }
}
