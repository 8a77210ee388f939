import { createSession } from "../src/domain/sessions/service";
import { assertUsable } from "../src/domain/sessions/service";
import { requireUserByUsername } from "../src/domain/users/service";
import { ACCESS_COOKIE, CSRF_COOKIE, REFRESH_COOKIE } from "../src/http/cookies";
import { issueCsrfToken } from "../src/http/csrf";
import { resolveDataDir } from "../src/config";
import { readServerLock } from "../src/ops/server-lock";
import { withApp } from "./context";
import { CliError, type GlobalOptions } from "./output";

/** How long the session of one `socialctl as` lives: a `read --follow` may run for a whole CI job. */
const SESSION_TTL_MS = 12 * 3600_000;
/** Refusals for too many requests a command waits out before giving up. */
const MAX_RATE_RETRIES = 20;

/**
 * A person's side of the Client API for `socialctl as`: a session minted for USERNAME through
 * the data dir (the CLI beside the server may write its database; nothing else can ask for
 * one), then plain HTTP to the serving instance, as the web app speaks it. The session is
 * signed out over the API when the command ends.
 */
export class PersonClient {
  private constructor(
    readonly url: string,
    readonly username: string,
    private readonly cookie: string,
    private readonly csrf: string,
  ) {}

  /** Signs USERNAME in on the server running on the data dir (or at URL). */
  static async open(opts: GlobalOptions, username: string, url?: string): Promise<PersonClient> {
    const dataDir = resolveDataDir(opts.dataDir);
    const base = (url ?? readServerLock(dataDir)?.url)?.replace(/\/+$/, "");
    if (!base)
      throw new CliError(
        `no server is running on ${dataDir}: start one (socialctl dev, or serve), or give the address it answers at with --url`,
      );
    const minted = await withApp(opts, async (app) => {
      const user = await requireUserByUsername(app.db, username);
      if (user.is_bot) throw new CliError(`${username} is a bot; 'as' speaks for a person`);
      assertUsable(user);
      const { tokens } = await createSession(
        app.db,
        app.clock.now(),
        { accessTtlMs: SESSION_TTL_MS, refreshTtlMs: SESSION_TTL_MS },
        { userId: user.id, userAgent: "socialctl as", ip: "127.0.0.1" },
      );
      return { tokens, csrf: issueCsrfToken(app.secret), username: user.username };
    });
    const cookie = [
      `${ACCESS_COOKIE}=${encodeURIComponent(minted.tokens.accessToken)}`,
      `${REFRESH_COOKIE}=${encodeURIComponent(minted.tokens.refreshToken)}`,
      `${CSRF_COOKIE}=${encodeURIComponent(minted.csrf)}`,
    ].join("; ");
    return new PersonClient(base, minted.username, cookie, minted.csrf);
  }

  /** A Client API call (PATH under /api): its `data`, or a CliError with the server's message. */
  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(`${this.url}/api${path}`, {
          method,
          headers: this.headers(body === undefined ? {} : { "content-type": "application/json" }),
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        throw new CliError(`cannot reach ${this.url}: ${(err as Error).message}`);
      }
      const envelope = (await res.json().catch(() => null)) as {
        success?: boolean;
        data?: T;
        error?: { code?: string; message?: string };
      } | null;
      if (res.status === 429 && attempt < MAX_RATE_RETRIES) {
        await Bun.sleep(Number(res.headers.get("retry-after") ?? 1) * 1000);
        continue;
      }
      if (res.ok && envelope?.success) return envelope.data as T;
      throw new CliError(envelope?.error?.message ?? `the server answered ${res.status} to ${method} /api${path}`);
    }
  }

  /** The realtime event stream (SSE) of this person, for `read --follow`. */
  async events(signal: AbortSignal): Promise<Response> {
    const res = await fetch(`${this.url}/api/realtime/events`, {
      headers: this.headers({ accept: "text/event-stream" }),
      signal,
    }).catch((err: Error) => {
      throw new CliError(`cannot reach ${this.url}: ${err.message}`);
    });
    if (!res.ok || !res.body) throw new CliError(`the server refused the event stream (${res.status})`);
    return res;
  }

  /** Signs this command's session out; a server already gone has nothing left to sign out. */
  async close(): Promise<void> {
    await fetch(`${this.url}/api/auth/logout`, { method: "POST", headers: this.headers({}) }).catch(() => undefined);
  }

  private headers(extra: Record<string, string>): Record<string, string> {
    return { cookie: this.cookie, "x-csrf-token": this.csrf, "user-agent": "socialctl as", ...extra };
  }
}
