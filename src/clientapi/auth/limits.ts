import type { App } from "../../app";
import { rateLimited } from "../../lib/errors";
import { RateLimiter } from "../../http/rate-limit";

const limiters = new WeakMap<App, { consume(ip: string): void }>();

/** Login and password-recovery attempts share one budget per IP: limits.loginPer10Min per 10 minutes. */
export function loginLimiter(app: App) {
  let l = limiters.get(app);
  if (!l) {
    const limiter = new RateLimiter();
    l = {
      consume(ip: string) {
        const d = limiter.check(`login:${ip}`, app.config["limits.loginPer10Min"], 600_000, app.clock.now());
        if (!d.allowed) throw rateLimited(d.retryAfter);
      },
    };
    limiters.set(app, l);
  }
  return l;
}
