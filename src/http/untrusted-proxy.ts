import { defineService, type App } from "../app";

/** How often the log repeats its warning while such requests keep arriving. */
const WARN_EVERY_MS = 3600_000;

/**
 * Requests that carry X-Forwarded-For while `trustProxy` is off: the server is behind a proxy
 * it does not believe, so every visitor comes from the proxy's address and shares that one
 * address's rate limits (a busy evening of ordinary people turns into 429s). The log warns at
 * the first such request and hourly after; the node heartbeat records the last sighting so
 * `socialctl doctor` can say it too.
 */
export class UntrustedProxyWatch {
  lastSeenAt: number | null = null;
  private warnedAt = -Infinity;
  private listeners: Array<() => void> = [];

  constructor(private readonly app: App) {}

  /** Notes REQUEST if it came through a proxy this server does not trust. */
  check(request: Request, now: number): void {
    if (this.app.config.trustProxy || !request.headers.has("x-forwarded-for")) return;
    this.lastSeenAt = now;
    if (now - this.warnedAt < WARN_EVERY_MS) return;
    this.warnedAt = now;
    this.app.log.warn(UNTRUSTED_PROXY_WARNING, { fix: UNTRUSTED_PROXY_FIX });
    for (const listener of this.listeners) listener();
  }

  /** LISTENER runs whenever the log warns (the first sighting, then hourly). */
  onWarning(listener: () => void): void {
    this.listeners.push(listener);
  }
}

export const UNTRUSTED_PROXY_WARNING =
  "requests arrive with X-Forwarded-For but trustProxy is off: every visitor behind the proxy shares one address's rate limits";
export const UNTRUSTED_PROXY_FIX =
  "if a reverse proxy you run sets X-Forwarded-For, `socialctl config set trustProxy true` and restart";

const watchKey = defineService("untrusted proxy watch", (app) => new UntrustedProxyWatch(app));
export const untrustedProxyWatch = (app: App): UntrustedProxyWatch => app.services.get(watchKey);
