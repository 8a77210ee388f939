import { defineService, type App } from "../app";
import { MemoryCounterStore, RateLimiter, type CounterStore } from "../lib/rate-limit";

/** The rate-limit counters: in memory unless the composition root provided a shared store (Redis). */
export const countersService = defineService<CounterStore>(
  "cluster:counters",
  (app) => new MemoryCounterStore(() => app.config["limits.rateLimitKeys"]),
);

/** A rate limiter on the App's counters; NAMESPACE keeps its keys apart from every other limiter's. */
export const rateLimiter = (app: App, namespace: string): RateLimiter =>
  new RateLimiter(app.services.get(countersService), namespace);
