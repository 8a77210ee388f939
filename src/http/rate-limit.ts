// The counters are dependency-free and used by domain code too, so they live in src/lib.
export { AbuseGuard, MemoryCounterStore, RateLimiter, type CounterStore, type LimitDecision } from "../lib/rate-limit";
