import { defineService, type App } from "../app";
import type { DeliveredEvent, Resumed } from "./broker";

/** What a transport (WebSocket, SSE) gives the hub for one connection. */
export interface StreamSink {
  /** writes one event frame */
  send(event: DeliveredEvent): void;
  /** keeps the connection alive (SSE comment, WebSocket ping) */
  heartbeat(): void;
  /** true when the client fell further behind than the connection may buffer */
  behind(limitEvents: number): boolean;
  /** ends the connection from the server side */
  close(reason: CloseReason): void;
}

/**
 * Why the server ends a stream: its session ended; the client fell too far behind; the server
 * stops; or newer streams of the same session or account went over limits.streamsPerSession /
 * limits.streamsPerAccount, and this was the oldest.
 */
export type CloseReason = "revoked" | "too-slow" | "shutdown" | "too-many-session-streams" | "too-many-account-streams";

export interface Connection {
  readonly userId: number;
  readonly sessionId: number;
  /** unsubscribes; idempotent, called by the transport when the client goes away */
  dispose(): void;
}

/** Sessions are re-checked in chunks of this many ids (SQLite parameter limits). */
const SESSION_CHECK_CHUNK = 500;

interface Live {
  userId: number;
  sessionId: number;
  sessionCuid: string;
  sink: StreamSink;
  unsubscribe: () => void;
  closed: boolean;
}

/**
 * The realtime hub of one App: attaches transports' connections to the broker, replays what
 * a resuming client missed (from the broker's resume log), runs one heartbeat timer for all
 * connections, disconnects clients that fall too far behind, and closes the streams of
 * revoked sessions.
 */
export class RealtimeHub {
  private readonly live = new Set<Live>();
  /** the live streams of each session and of each account, oldest first (a Set keeps insertion order) */
  private readonly ofSession = new Map<number, Set<Live>>();
  private readonly ofAccount = new Map<number, Set<Live>>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly app: App) {
    app.onClose(() => this.shutdown());
  }

  connectionCount(): number {
    return this.live.size;
  }

  /** Whether this server holds limits.streams streams already: a new one is refused, and its client retries later. */
  full(): boolean {
    return this.live.size >= this.app.config["limits.streams"];
  }

  /**
   * Attaches a connection for USER's SESSION. Events after LASTEVENTID are replayed first
   * (or `stream:reset` is sent when some were forgotten), then live ones follow in order
   * with no duplicates.
   */
  connect(input: {
    userId: number;
    sessionId: number;
    sessionCuid: string;
    sink: StreamSink;
    lastEventId?: number | null;
  }): Connection {
    const entry: Live = {
      userId: input.userId,
      sessionId: input.sessionId,
      sessionCuid: input.sessionCuid,
      sink: input.sink,
      unsubscribe: () => {},
      closed: false,
    };
    let lastSent = 0;
    const maxBuffered = this.app.config["realtime.maxBufferedEvents"];
    // live events arriving while the missed ones are looked up wait here, then follow them
    let held: DeliveredEvent[] | null = input.lastEventId != null ? [] : null;
    const deliver = (event: DeliveredEvent) => {
      if (held) return void held.push(event);
      if (entry.closed || event.id <= lastSent) return;
      if (event.event === "session:revoked") {
        if ((event.data as { sessionId: string }).sessionId !== entry.sessionCuid) return;
        lastSent = event.id;
        input.sink.send(event);
        this.close(entry, "revoked");
        return;
      }
      lastSent = event.id;
      input.sink.send(event);
      if (input.sink.behind(maxBuffered)) this.close(entry, "too-slow");
    };
    // a broken connection must never fail the publisher (publish runs inside domain calls)
    const safeDeliver = (event: DeliveredEvent) => {
      try {
        deliver(event);
      } catch {
        this.close(entry, "too-slow");
      }
    };
    entry.unsubscribe = this.app.events.subscribe(input.userId, safeDeliver);
    this.live.add(entry);
    this.index(entry);
    this.closeOldestOver(
      this.ofSession.get(entry.sessionId)!,
      this.app.config["limits.streamsPerSession"],
      "too-many-session-streams",
    );
    this.closeOldestOver(
      this.ofAccount.get(entry.userId)!,
      this.app.config["limits.streamsPerAccount"],
      "too-many-account-streams",
    );
    if (input.lastEventId != null) {
      const replay = (found: Resumed) => {
        const live = held ?? [];
        held = null;
        if (entry.closed) return;
        if ("reset" in found) {
          // the client refetches its state; the reset carries the newest id so the next resume starts there
          lastSent = found.latestId;
          input.sink.send({
            id: found.latestId,
            userId: input.userId,
            event: "stream:reset",
            data: { reason: found.reset },
          });
        } else {
          for (const e of found.events) safeDeliver(e);
        }
        for (const e of live) safeDeliver(e);
      };
      this.app.events.resume(input.userId, input.lastEventId).then(replay, (err) => {
        // the shared log is unreachable: the client retries later rather than silently missing events
        this.app.log.warn("realtime resume failed", { error: err instanceof Error ? err.message : String(err) });
        held = null;
        this.close(entry, "too-slow");
      });
    }
    this.ensureTimer();
    return { userId: input.userId, sessionId: input.sessionId, dispose: () => this.drop(entry) };
  }

  private index(entry: Live): void {
    let session = this.ofSession.get(entry.sessionId);
    if (!session) this.ofSession.set(entry.sessionId, (session = new Set()));
    session.add(entry);
    let account = this.ofAccount.get(entry.userId);
    if (!account) this.ofAccount.set(entry.userId, (account = new Set()));
    account.add(entry);
  }

  private unindex(entry: Live): void {
    const session = this.ofSession.get(entry.sessionId);
    if (session?.delete(entry) && session.size === 0) this.ofSession.delete(entry.sessionId);
    const account = this.ofAccount.get(entry.userId);
    if (account?.delete(entry) && account.size === 0) this.ofAccount.delete(entry.userId);
  }

  /**
   * Closes the oldest of STREAMS while there are more than LIMIT: one cookie could otherwise
   * hold any number of streams, each a socket and a subscription on this server. The newest
   * stays, as it is the window the person just opened.
   */
  private closeOldestOver(streams: Set<Live>, limit: number, reason: CloseReason): void {
    while (streams.size > limit) {
      const oldest = streams.values().next().value!;
      this.close(oldest, reason);
    }
  }

  private drop(entry: Live): void {
    if (!this.live.delete(entry)) return;
    this.unindex(entry);
    entry.closed = true;
    entry.unsubscribe();
    if (this.live.size === 0) this.stopTimer();
  }

  private close(entry: Live, reason: CloseReason): void {
    if (entry.closed) return;
    this.drop(entry);
    try {
      entry.sink.close(reason);
    } catch {
      // the socket may already be gone
    }
  }

  private ensureTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      // a failed session check (database closing, busy) waits for the next beat; it never crashes the process
      this.tick().catch((err) =>
        this.app.log.warn("realtime heartbeat failed", { error: err instanceof Error ? err.message : String(err) }),
      );
    }, this.app.config["realtime.heartbeatSeconds"] * 1000);
    (this.timer as { unref?: () => void }).unref?.();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Heartbeats, resume-log pruning, and closing streams whose session ended by other means. */
  private async tick(): Promise<void> {
    this.app.events.prune(this.app.clock.now());
    for (const entry of this.live) {
      try {
        entry.sink.heartbeat();
      } catch {
        this.close(entry, "too-slow");
      }
    }
    await this.closeRevoked();
  }

  /**
   * Closes every stream whose session may no longer be used: signed out or expired, its
   * account disabled or deleted, its device banned. Run by the heartbeat, and at once when
   * another process (the CLI) reports a change.
   */
  async closeRevoked(): Promise<void> {
    const now = this.app.clock.now();
    const bySession = new Map<number, Live[]>();
    for (const entry of this.live) bySession.set(entry.sessionId, [...(bySession.get(entry.sessionId) ?? []), entry]);
    const ids = [...bySession.keys()];
    for (let i = 0; i < ids.length; i += SESSION_CHECK_CHUNK) {
      const chunk = ids.slice(i, i + SESSION_CHECK_CHUNK);
      const rows = await this.app.db
        .selectFrom("sessions")
        .innerJoin("users", "users.id", "sessions.user_id")
        .leftJoin("banned_devices", "banned_devices.device_id", "sessions.device_id")
        .select([
          "sessions.id",
          "sessions.revoked_at",
          "sessions.refresh_expires_at",
          "users.disabled_at",
          "users.deleted_at",
          "banned_devices.id as banned",
        ])
        .where("sessions.id", "in", chunk)
        .execute();
      const usable = rows.filter(
        (r) =>
          r.revoked_at === null &&
          r.refresh_expires_at > now &&
          r.disabled_at === null &&
          r.deleted_at === null &&
          r.banned === null,
      );
      const alive = new Set(usable.map((r) => r.id));
      for (const id of chunk)
        if (!alive.has(id)) for (const entry of bySession.get(id) ?? []) this.close(entry, "revoked");
    }
  }

  /**
   * Disconnects every stream so its client resumes from the shared log: events may have been
   * lost on the way to this node (its connection to Redis dropped and came back).
   */
  resync(): void {
    for (const entry of [...this.live]) this.close(entry, "too-slow");
  }

  /** Ends every stream (at shutdown: streams never finish on their own, so the server could not drain). */
  shutdown(): void {
    for (const entry of [...this.live]) this.close(entry, "shutdown");
    this.stopTimer();
  }
}

/** The realtime hub service: fan-out to this server's connections (the broker's carrier reaches the other nodes). */
export const realtimeHubService = defineService("realtime:hub", (app) => new RealtimeHub(app));

/** The hub of APP, created on first use (the realtime routes create it when the server starts). */
export const realtimeHub = (app: App): RealtimeHub => app.services.get(realtimeHubService);

/** Parses a resume id (Last-Event-ID header or ?lastEventId=); junk is ignored like no id. */
export function parseLastEventId(raw: string | null | undefined): number | null {
  if (!raw || !/^[0-9]{1,16}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}
