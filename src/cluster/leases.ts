import { defineService, type App } from "../app";

/**
 * Short-lived claims shared by every node: one webhook deliverer per bot, one open
 * pre-checkout query answered once, the newest getUpdates call per bot. In memory for one
 * process; in Redis when `pubsub.url` is set (cluster/redis.ts). Lifetimes are real time.
 */
export interface Leases {
  /** Takes KEY for OWNER for TTLMS (or extends OWNER's hold); false while another owner holds it. */
  acquire(key: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Gives KEY up if OWNER holds it. True for exactly one of racing releasers: the one that held it. */
  release(key: string, owner: string): Promise<boolean>;
  /** A new generation of KEY, greater than every earlier one (the newest getUpdates call wins). */
  next(key: string): Promise<number>;
}

export class MemoryLeases implements Leases {
  private readonly held = new Map<string, { owner: string; until: number }>();
  /** one sequence for every key: each key's generations still increase, and no key is remembered */
  private generation = 0;

  async acquire(key: string, owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const h = this.held.get(key);
    if (h && h.until > now && h.owner !== owner) return false;
    this.held.set(key, { owner, until: now + ttlMs });
    if (this.held.size > 10_000) for (const [k, v] of this.held) if (v.until <= now) this.held.delete(k);
    return true;
  }

  async release(key: string, owner: string): Promise<boolean> {
    const h = this.held.get(key);
    if (!h || h.owner !== owner || h.until <= Date.now()) return false;
    this.held.delete(key);
    return true;
  }

  async next(_key: string): Promise<number> {
    return ++this.generation;
  }
}

/** The lease service: in memory unless the composition root provided another (Redis). */
export const leasesService = defineService<Leases>("cluster:leases", () => new MemoryLeases());

export const leases = (app: App): Leases => app.services.get(leasesService);
