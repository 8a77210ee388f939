import {
  payloadJsonOf,
  TRANSIENT_EVENTS,
  withPayloadJson,
  type DeliveredEvent,
  type EventBroker,
  type EventCarrier,
  type Resumed,
} from "./broker";
import type { RealtimeEventName } from "./events";

const PRUNE_EVERY_MS = 10_000;

/**
 * An event as a ring keeps it: its payload as JSON text (one string for all the recipients of a
 * publish), not the payload object, which holds its shaped parts and, once delivered, the frames
 * written from it (transports.ts): a resume is rare, the retention window long.
 */
interface KeptEvent {
  at: number;
  id: number;
  event: RealtimeEventName;
  json: string;
}

interface Ring {
  events: KeptEvent[];
  /** highest event id this ring has forgotten (by size or age); resuming from below it has a gap */
  forgottenUpTo: number;
  /** the account's connections to this process now */
  connections: number;
  /** when its last connection ended (while none is open): the ring goes once the retention window has passed */
  idleSince: number;
}

/**
 * Recent events per account, so a client that reconnects with its last seen id misses
 * nothing within the retention window. Only accounts that have a connection, or had one within
 * the window, have a ring (a resume can only come from a client that was connected): an event
 * for anyone else is not kept, and nobody need build it (`wants`). Bounded per account (count)
 * and in time.
 */
export class ResumeLog {
  private readonly rings = new Map<number, Ring>();
  private lastPrune = 0;
  /** highest id recorded by this process */
  latestId = 0;

  constructor(
    private readonly opts: {
      perUser: number;
      retentionMs: () => number;
      /** rings kept at most (limits.resumeAccounts): past it disconnected accounts' go first, oldest first */
      maxRings?: () => number;
    },
  ) {}

  /**
   * USER connected (CONNECTED true) or a connection of theirs ended. A new ring knows nothing
   * before now: resuming from an older id (a client of another account's) is a gap.
   */
  watch(userId: number, connected: boolean, now: number): void {
    let ring = this.rings.get(userId);
    if (!ring) {
      if (!connected) return;
      this.rings.set(userId, (ring = { events: [], forgottenUpTo: this.latestId, connections: 0, idleSince: now }));
      this.forgetIdleOver(this.opts.maxRings?.() ?? Infinity);
    }
    ring.connections = Math.max(0, ring.connections + (connected ? 1 : -1));
    if (ring.connections === 0) ring.idleSince = now;
  }

  /**
   * Forgets the rings of accounts with no connection, made longest ago first, while there are
   * more than MAX: their next resume is a gap, and the client refetches its state.
   */
  private forgetIdleOver(max: number): void {
    for (const [userId, ring] of this.rings) {
      if (this.rings.size <= max) return;
      if (ring.connections === 0) this.rings.delete(userId);
    }
  }

  /** Whether an event for any of USERIDS would be kept (someone of them is or was lately connected). */
  wants(userIds: readonly number[]): boolean {
    for (const userId of userIds) if (this.rings.has(userId)) return true;
    return false;
  }

  /**
   * Remembers EVENT (its payload as the JSON text JSON gives, asked only when it is kept) for
   * resume; with KEEP false only its id counts as sent (live-only events).
   */
  record(event: DeliveredEvent, json: () => string, now: number, keep = true): void {
    // pruning also runs here, so rings of accounts that went away stay within the window
    if (now - this.lastPrune > PRUNE_EVERY_MS) this.prune(now);
    this.latestId = Math.max(this.latestId, event.id);
    if (!keep) return;
    const ring = this.rings.get(event.userId);
    if (!ring) return;
    ring.events.push({ at: now, id: event.id, event: event.event, json: json() });
    if (ring.events.length > this.opts.perUser) ring.forgottenUpTo = ring.events.shift()!.id;
  }

  /**
   * Events of USER after LASTID. `gap` is true when some may have been forgotten (too old or
   * too many, or not kept: no ring): the client must refetch its state.
   */
  since(userId: number, lastId: number): { events: DeliveredEvent[]; gap: boolean } {
    const ring = this.rings.get(userId);
    if (!ring) return { events: [], gap: lastId < this.latestId };
    const events = ring.events
      .filter((e) => e.id > lastId)
      .map(
        (e) =>
          ({ id: e.id, userId, event: e.event, data: withPayloadJson(JSON.parse(e.json), e.json) }) as DeliveredEvent,
      );
    return { events, gap: lastId < ring.forgottenUpTo };
  }

  /** Forgets events older than the retention window, and the rings of accounts gone longer than it. */
  prune(now: number): void {
    this.lastPrune = now;
    const cutoff = now - this.opts.retentionMs();
    for (const [userId, ring] of this.rings) {
      while (ring.events.length && ring.events[0]!.at < cutoff) ring.forgottenUpTo = ring.events.shift()!.id;
      if (ring.connections === 0 && ring.idleSince < cutoff) this.rings.delete(userId);
    }
  }

  size(): number {
    let n = 0;
    for (const ring of this.rings.values()) n += ring.events.length;
    return n;
  }

  /** accounts with a ring (tests watch that it stays bounded) */
  accounts(): number {
    return this.rings.size;
  }
}

/** Per-account events remembered for resume: enough for a burst, not a backlog store. */
export const RESUME_PER_USER = 500;

/**
 * The in-process carrier: ids from this process (its start time in µs plus a counter, so an id
 * a client kept from before a restart is recognisably older), the resume log in memory.
 */
export class LocalCarrier implements EventCarrier {
  private readonly idBase = Date.now() * 1000;
  private nextId = this.idBase + 1;
  private readonly log: ResumeLog;

  constructor(
    private readonly broker: EventBroker,
    private readonly opts: { retentionMs: () => number; now: () => number; maxAccounts?: () => number },
  ) {
    this.log = new ResumeLog({ perUser: RESUME_PER_USER, retentionMs: opts.retentionMs, maxRings: opts.maxAccounts });
  }

  carry(userIds: readonly number[], event: RealtimeEventName, data: unknown): void {
    if (userIds.length === 0) return;
    const keep = !TRANSIENT_EVENTS.has(event);
    const now = this.opts.now();
    // one publish is one event: its recipients share the id, so its frames are written once
    const id = this.nextId++;
    // made once a recipient keeps the event, and noted on the payload: the transports write it too
    let text: string | undefined;
    const json = () => {
      if (text !== undefined) return text;
      text = payloadJsonOf(data);
      if (typeof data === "object" && data !== null) withPayloadJson(data, text);
      return text;
    };
    for (const userId of userIds) {
      const delivered = { id, userId, event, data } as DeliveredEvent;
      this.log.record(delivered, json, now, keep);
      this.broker.deliver(delivered);
    }
  }

  watch(userId: number, connected: boolean): void {
    this.log.watch(userId, connected, this.opts.now());
  }

  wants(userIds: readonly number[]): boolean {
    return this.log.wants(userIds);
  }

  async resume(userId: number, lastId: number): Promise<Resumed> {
    const latestId = Math.max(this.idBase, this.log.latestId);
    if (lastId < this.idBase || lastId > latestId) return { reset: "unknown-id", latestId };
    const { events, gap } = this.log.since(userId, lastId);
    return gap ? { reset: "gap", latestId } : { events };
  }

  prune(now: number): void {
    this.log.prune(now);
  }

  /** events held for resume (tests and the realtime benchmark watch memory with it) */
  size(): number {
    return this.log.size();
  }

  /** accounts whose events are kept (connected now or within the retention window) */
  accounts(): number {
    return this.log.accounts();
  }
}
