import type { RealtimeEventName, RealtimeEvents } from "./events";

export interface DeliveredEvent<E extends RealtimeEventName = RealtimeEventName> {
  /**
   * increasing across the instance (what clients resume from): ms since the epoch × 1000 + a
   * counter. One per publish: every recipient of one publish gets the same id.
   */
  id: number;
  userId: number;
  event: E;
  data: RealtimeEvents[E];
}

export type EventListener = (event: DeliveredEvent) => void;

/** Payloads whose JSON text their publisher made already (withPayloadJson). */
const payloadTexts = new WeakMap<object, string>();

/**
 * DATA, noted as having JSON text JSON (what JSON.stringify(DATA) gives, which the publisher
 * needed anyway: a send answers with the same message), so carriers and transports write that
 * text instead of serializing the payload again. DATA must not change afterwards.
 */
export function withPayloadJson<T extends object>(data: T, json: string): T {
  payloadTexts.set(data, json);
  return data;
}

/** The JSON text of an event's payload: the publisher's (withPayloadJson), else serialized now. */
export const payloadJsonOf = (data: unknown): string =>
  (typeof data === "object" && data !== null && payloadTexts.get(data)) || JSON.stringify(data);

/** What a resume finds: the events after the client's last id, or why it must refetch instead. */
export type Resumed = { events: DeliveredEvent[] } | { reset: "gap" | "unknown-id"; latestId: number };

/**
 * Events that mean nothing once missed ("is typing" is stale after a reconnect): delivered live,
 * never replayed, so a burst of them cannot push real events out of an account's resume log.
 */
export const TRANSIENT_EVENTS: ReadonlySet<RealtimeEventName> = new Set<RealtimeEventName>(["typing"]);

/**
 * How published events reach the brokers of the instance and where they are kept for resume.
 * The default carries them inside this process; cluster/redis.ts carries them through Redis
 * to every node (each node's broker then delivers them to its own listeners).
 */
export interface EventCarrier {
  /** Assigns the event its id (one for all USERIDS), keeps it for resume (unless transient) and has every node's broker deliver it. */
  carry(userIds: readonly number[], event: RealtimeEventName, data: unknown): void;
  /** The events kept for USER after LASTID (a client's Last-Event-ID). */
  resume(userId: number, lastId: number): Promise<Resumed>;
  /** Forgets events older than the retention window (run by the realtime heartbeat). */
  prune(now: number): void;
  /** USER's connection to this process opened (CONNECTED true) or ended. */
  watch(userId: number, connected: boolean): void;
  /**
   * Whether an event for USERIDS could reach anyone: a connection now, or a resume later. False
   * lets the publisher skip building the event (a message's live shape for people not online).
   */
  wants(userIds: readonly number[]): boolean;
}

/**
 * Pub/sub keyed by account. Domain code publishes; transports (WebSocket, SSE) and in-process
 * waiters subscribe. The carrier decides how far an event travels: this process, or every
 * node of the instance (chosen once at start-up, see wiring.ts).
 */
export class EventBroker {
  private readonly listeners = new Map<number, Set<EventListener>>();
  private carrier: EventCarrier;

  /** MAKECARRIER builds the carrier the broker starts with (the in-process LocalCarrier, resume-log.ts). */
  constructor(makeCarrier: (broker: EventBroker) => EventCarrier) {
    this.carrier = makeCarrier(this);
  }

  /** Replaces the carrier; only at start-up, before anything is published. */
  useCarrier(carrier: EventCarrier): void {
    this.carrier = carrier;
  }

  publish<E extends RealtimeEventName>(userIds: number | readonly number[], event: E, data: RealtimeEvents[E]): void {
    this.carrier.carry(typeof userIds === "number" ? [userIds] : userIds, event, data);
  }

  /** Hands an event the carrier brought to this process's listeners of its account. */
  deliver(event: DeliveredEvent): void {
    const set = this.listeners.get(event.userId);
    if (!set) return;
    for (const listener of set) listener(event);
  }

  /** Whether publishing to USERIDS can reach anyone (EventCarrier.wants); when false, building the event may be skipped. */
  wants(userIds: readonly number[]): boolean {
    return this.carrier.wants(userIds);
  }

  resume(userId: number, lastId: number): Promise<Resumed> {
    return this.carrier.resume(userId, lastId);
  }

  prune(now: number): void {
    this.carrier.prune(now);
  }

  subscribe(userId: number, listener: EventListener): () => void {
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(listener);
    this.carrier.watch(userId, true);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(userId);
      this.carrier.watch(userId, false);
    };
  }

  /** Whether anyone in this process listens to USERID's events now. */
  listens(userId: number): boolean {
    return this.listeners.has(userId);
  }

  listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
