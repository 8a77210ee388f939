import { defineService, type App } from "../../app";
import { rateLimited } from "../../lib/errors";
import { RateLimiter } from "../../http/rate-limit";

const attempts = defineService("auth:login-limiter", () => new RateLimiter());

/** Login and password-recovery attempts share one budget per IP: limits.loginPer10Min per 10 minutes. */
export function loginLimiter(app: App) {
  return {
    consume(ip: string) {
      const d = app.services
        .get(attempts)
        .check(`login:${ip}`, app.config["limits.loginPer10Min"], 600_000, app.clock.now());
      if (!d.allowed) throw rateLimited(d.retryAfter);
    },
  };
}
