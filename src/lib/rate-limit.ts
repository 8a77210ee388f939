/**
 * Fixed-window counters kept in memory. The interface is the seam for a shared store
 * (Redis) when an instance runs on several machines.
 */
export interface CounterStore {
  /** Adds one hit to KEY's current window and returns the window's count and its end (ms). */
  hit(key: string, windowMs: number, now: number): { count: number; resetAt: number };
}

export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  hit(key: string, windowMs: number, now: number) {
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return w;
  }

  /** Drops ended windows at most once a second, so memory follows live keys only. */
  private sweep(now: number) {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

export interface LimitDecision {
  allowed: boolean;
  /** whole seconds until the window ends (≥ 1) */
  retryAfter: number;
}

export class RateLimiter {
  constructor(private readonly store: CounterStore = new MemoryCounterStore()) {}

  /** Counts one attempt under KEY; allowed while at most LIMIT attempts fall in the window. */
  check(key: string, limit: number, windowMs: number, now: number): LimitDecision {
    const w = this.store.hit(key, windowMs, now);
    return { allowed: w.count <= limit, retryAfter: Math.max(1, Math.ceil((w.resetAt - now) / 1000)) };
  }
}

/**
 * Addresses that keep hammering after being limited are blocked for a while:
 * too many rejected requests within a minute → every request refused until the block ends.
 */
export class AbuseGuard {
  private readonly blockedUntil = new Map<string, number>();
  private readonly rejections = new RateLimiter();

  constructor(
    private readonly threshold: () => number,
    private readonly blockMs: () => number,
  ) {}

  blockedFor(ip: string, now: number): number {
    const until = this.blockedUntil.get(ip);
    if (until === undefined) return 0;
    if (until <= now) {
      this.blockedUntil.delete(ip);
      return 0;
    }
    return Math.ceil((until - now) / 1000);
  }

  noteRejection(ip: string, now: number): void {
    const d = this.rejections.check(ip, this.threshold(), 60_000, now);
    if (!d.allowed) this.blockedUntil.set(ip, now + this.blockMs());
  }
}
