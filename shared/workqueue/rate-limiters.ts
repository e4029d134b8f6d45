// Retry delays for a work queue, as client-go's DefaultControllerRateLimiter
// computes them: per-item exponential backoff (5 ms doubling to 1000 s) and
// an overall token bucket (10 qps, burst 100), whichever asks for longer.
import type { Clock } from '../clock/clock.ts';

/** Decides how long a key waits before its next retry. */
export interface RateLimiter {
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per-key exponential backoff: base * 2^failures, capped at max. */
export class ItemExponentialLimiter implements RateLimiter {
  private readonly failures = new Map<string, number>();
  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1000_000,
  ) {}
  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.baseMs * 2 ** n, this.maxMs);
  }
  forget(key: string): void {
    this.failures.delete(key);
  }
  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** An overall token bucket: the delay until a token is free, reserving it. */
export class BucketLimiter implements RateLimiter {
  private tokens: number;
  private last: number;
  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly clock: Clock,
  ) {
    this.tokens = burst;
    this.last = clock.now();
  }
  when(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }
  forget(): void {}
  retries(): number {
    return 0;
  }
}

/** The longest delay of several limiters. */
export class MaxOfLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }
  when(key: string): number {
    return Math.max(...this.limiters.map((l) => l.when(key)));
  }
  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }
  retries(key: string): number {
    return Math.max(...this.limiters.map((l) => l.retries(key)));
  }
}

/** client-go's default controller rate limiter. */
export function defaultControllerRateLimiter(clock: Clock): RateLimiter {
  return new MaxOfLimiter(new ItemExponentialLimiter(5, 1000_000), new BucketLimiter(10, 100, clock));
}
