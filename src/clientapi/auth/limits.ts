import { defineService, type App } from "../../app";
import { rateLimited } from "../../lib/errors";
import { rateLimiter } from "../../cluster/counters";
import { rateLimitKey } from "../../http/client-ip";

const attempts = defineService("auth:login-limiter", (app) => rateLimiter(app, "auth"));

/**
 * Login and password-recovery attempts share one budget per client address (an IPv6 client's
 * /64, see rateLimitKey): limits.loginPer10Min per 10 minutes.
 */
export function loginLimiter(app: App) {
  return {
    async consume(ip: string) {
      const d = await app.services
        .get(attempts)
        .check(`login:${rateLimitKey(ip)}`, app.config["limits.loginPer10Min"], 600_000, app.clock.now());
      if (!d.allowed) throw rateLimited(d.retryAfter);
    },
  };
}
