import { defineService, type App } from "../app";
import type { DeliveredEvent } from "./broker";
import type { RealtimeEventName } from "./events";
import { ResumeLog } from "./resume-log";

/** What a transport (WebSocket, SSE) gives the hub for one connection. */
export interface StreamSink {
  /** writes one event frame */
  send(event: DeliveredEvent): void;
  /** keeps the connection alive (SSE comment, WebSocket ping) */
  heartbeat(): void;
  /** true when the client fell further behind than the connection may buffer */
  behind(limitEvents: number): boolean;
  /** ends the connection from the server side */
  close(reason: "revoked" | "too-slow" | "shutdown"): void;
}

export interface Connection {
  readonly userId: number;
  readonly sessionId: number;
  /** unsubscribes; idempotent, called by the transport when the client goes away */
  dispose(): void;
}

/** Per-account events remembered for resume: enough for a burst, not a backlog store. */
const RING_PER_USER = 500;
/**
 * Events that mean nothing once missed ("is typing" is stale after a reconnect): delivered live,
 * never replayed, so a burst of them cannot push real events out of an account's resume ring.
 */
const TRANSIENT_EVENTS: ReadonlySet<RealtimeEventName> = new Set<RealtimeEventName>(["typing"]);
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
 * The realtime hub of one App: keeps the resume log (through the broker's afterPublish),
 * attaches transports' connections to the broker, runs one heartbeat timer for all of them,
 * disconnects clients that fall too far behind, and closes the streams of revoked sessions.
 */
export class RealtimeHub {
  readonly log: ResumeLog;
  /**
   * Ids on the wire are the broker's ids plus this offset (start time in µs), so an id a client
   * kept from before a restart is recognisably older than anything this process sent.
   */
  private readonly idBase = Date.now() * 1000;
  private readonly live = new Set<Live>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly app: App) {
    this.log = new ResumeLog({
      perUser: RING_PER_USER,
      retentionMs: () => app.config["realtime.retentionSeconds"] * 1000,
    });
    const previous = app.events.afterPublish;
    app.events.afterPublish = (event) => {
      previous?.(event);
      this.log.record(event, app.clock.now(), !TRANSIENT_EVENTS.has(event.event));
    };
    app.onClose(() => this.shutdown());
  }

  connectionCount(): number {
    return this.live.size;
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
    const deliver = (event: DeliveredEvent) => {
      if (entry.closed || event.id <= lastSent) return;
      if (event.event === "session:revoked") {
        if ((event.data as { sessionId: string }).sessionId !== entry.sessionCuid) return;
        lastSent = event.id;
        input.sink.send({ ...event, id: this.idBase + event.id });
        this.close(entry, "revoked");
        return;
      }
      lastSent = event.id;
      input.sink.send({ ...event, id: this.idBase + event.id });
      if (input.sink.behind(this.app.config["realtime.maxBufferedEvents"])) this.close(entry, "too-slow");
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
    if (input.lastEventId != null) {
      const lastId = input.lastEventId - this.idBase;
      const unknown = lastId < 0 || lastId > this.log.latestId;
      const { events, gap } = unknown ? { events: [], gap: true } : this.log.since(input.userId, lastId);
      if (gap) {
        // the client refetches its state; the reset carries the newest id so the next resume starts there
        lastSent = this.log.latestId;
        input.sink.send({
          id: this.idBase + this.log.latestId,
          userId: input.userId,
          event: "stream:reset",
          data: { reason: unknown ? "unknown-id" : "gap" },
        });
      } else {
        for (const e of events) safeDeliver(e);
      }
    }
    this.ensureTimer();
    return { userId: input.userId, sessionId: input.sessionId, dispose: () => this.drop(entry) };
  }

  private drop(entry: Live): void {
    if (!this.live.delete(entry)) return;
    entry.closed = true;
    entry.unsubscribe();
    if (this.live.size === 0) this.stopTimer();
  }

  private close(entry: Live, reason: "revoked" | "too-slow" | "shutdown"): void {
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
    this.log.prune(this.app.clock.now());
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

  /** Ends every stream (at shutdown: streams never finish on their own, so the server could not drain). */
  shutdown(): void {
    for (const entry of [...this.live]) this.close(entry, "shutdown");
    this.stopTimer();
  }
}

/** The realtime hub service: in-process fan-out to this server's connections (a Redis-backed hub can be provided instead). */
export const realtimeHubService = defineService("realtime:hub", (app) => new RealtimeHub(app));

/** The hub of APP, created on first use (the realtime routes create it when the server starts). */
export const realtimeHub = (app: App): RealtimeHub => app.services.get(realtimeHubService);

/** Parses a resume id (Last-Event-ID header or ?lastEventId=); junk is ignored like no id. */
export function parseLastEventId(raw: string | null | undefined): number | null {
  if (!raw || !/^[0-9]{1,16}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}
