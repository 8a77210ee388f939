import type { RealtimeEventName, RealtimeEvents } from "./events";

export interface DeliveredEvent<E extends RealtimeEventName = RealtimeEventName> {
  /** increasing per process; transports use it for resume */
  id: number;
  userId: number;
  event: E;
  data: RealtimeEvents[E];
}

export type EventListener = (event: DeliveredEvent) => void;

/**
 * In-process pub/sub keyed by account. Domain code publishes; transports (WebSocket, SSE)
 * and in-process waiters subscribe. This is the seam where Redis/NATS would go.
 */
export class EventBroker {
  private nextId = 1;
  private readonly listeners = new Map<number, Set<EventListener>>();

  publish<E extends RealtimeEventName>(userIds: number | readonly number[], event: E, data: RealtimeEvents[E]): void {
    const ids = typeof userIds === "number" ? [userIds] : userIds;
    for (const userId of ids) {
      const delivered: DeliveredEvent<E> = { id: this.nextId++, userId, event, data };
      this.afterPublish?.(delivered as DeliveredEvent);
      const set = this.listeners.get(userId);
      if (!set) continue;
      for (const listener of set) listener(delivered as DeliveredEvent);
    }
  }

  /** Called for every published event before listeners; the realtime module keeps its resume log here. */
  afterPublish?: (event: DeliveredEvent) => void;

  subscribe(userId: number, listener: EventListener): () => void {
    let set = this.listeners.get(userId);
    if (!set) this.listeners.set(userId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(userId);
    };
  }

  listenerCount(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }
}
