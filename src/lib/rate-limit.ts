import { forgetOldest } from "./bounded";

/**
 * Fixed-window counters: in memory for one process, in Redis (cluster/redis.ts) when every
 * node of an instance must count against the same limits.
 */
export interface CounterStore {
  /** Adds one hit to KEY's current window and returns the window's count and its end (ms). */
  hit(key: string, windowMs: number, now: number): Promise<{ count: number; resetAt: number }>;
  /** KEY's open window without counting a hit; null when none is open. */
  peek(key: string, now: number): Promise<{ count: number; resetAt: number } | null>;
  /** hit without a promise, where the store can answer at once (in memory) */
  hitNow?(key: string, windowMs: number, now: number): { count: number; resetAt: number };
}

/** Windows a MemoryCounterStore keeps open when its owner names no bound. */
const MAX_KEYS = 100_000;

/**
 * Counters in this process's memory: one window per key while it lasts, at most MAXKEYS at a
 * time. Past that (a flood of addresses), the window opened longest ago is forgotten: that
 * key starts counting again, rather than memory growing with every address ever seen.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  constructor(private readonly maxKeys: () => number = () => MAX_KEYS) {}

  async hit(key: string, windowMs: number, now: number) {
    return this.hitNow(key, windowMs, now);
  }

  hitNow(key: string, windowMs: number, now: number) {
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      // a new window goes last: the map's order is the order windows opened
      this.windows.delete(key);
      this.windows.set(key, w);
      forgetOldest(this.windows, this.maxKeys());
    }
    w.count++;
    return w;
  }

  async peek(key: string, now: number) {
    const w = this.windows.get(key);
    return w && w.resetAt > now ? w : null;
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

const decide = (w: { count: number; resetAt: number }, limit: number, now: number): LimitDecision => ({
  allowed: w.count <= limit,
  retryAfter: Math.max(1, Math.ceil((w.resetAt - now) / 1000)),
});

export class RateLimiter {
  /** NAMESPACE keeps this limiter's keys apart from other limiters' in a shared STORE. */
  constructor(
    private readonly store: CounterStore = new MemoryCounterStore(),
    private readonly namespace = "",
  ) {}

  /** Counts one attempt under KEY; allowed while at most LIMIT attempts fall in the window. */
  async check(key: string, limit: number, windowMs: number, now: number): Promise<LimitDecision> {
    return this.checkNow(key, limit, windowMs, now);
  }

  /** check, answered without a promise when the store counts in memory (a limit every request passes). */
  checkNow(key: string, limit: number, windowMs: number, now: number): LimitDecision | Promise<LimitDecision> {
    const name = this.namespace ? `${this.namespace}:${key}` : key;
    if (this.store.hitNow) return decide(this.store.hitNow(name, windowMs, now), limit, now);
    return this.store.hit(name, windowMs, now).then((w) => decide(w, limit, now));
  }

  /** Whether KEY still has room below LIMIT in its window, without counting an attempt. */
  async exhausted(key: string, limit: number, now: number): Promise<LimitDecision> {
    const w = await this.store.peek(this.namespace ? `${this.namespace}:${key}` : key, now);
    if (!w || w.count < limit) return { allowed: true, retryAfter: 0 };
    return { allowed: false, retryAfter: Math.max(1, Math.ceil((w.resetAt - now) / 1000)) };
  }
}

/**
 * Addresses that keep hammering after being limited are blocked for a while:
 * too many rejected requests within a minute → every request refused until the block ends.
 */
export class AbuseGuard {
  /** per node: each node blocks an address once the rejections counted by all nodes cross the threshold */
  private readonly blockedUntil = new Map<string, number>();

  constructor(
    private readonly threshold: () => number,
    private readonly blockMs: () => number,
    private readonly rejections: RateLimiter = new RateLimiter(),
    /** addresses blocked at a time; past it, the block set longest ago ends early */
    private readonly maxBlocked: () => number = () => MAX_KEYS,
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

  async noteRejection(ip: string, now: number): Promise<void> {
    const d = await this.rejections.check(ip, this.threshold(), 60_000, now);
    if (!d.allowed) {
      this.blockedUntil.delete(ip);
      this.blockedUntil.set(ip, now + this.blockMs());
      forgetOldest(this.blockedUntil, this.maxBlocked());
    }
  }
}
