import type { Logger } from "../lib/log";

/**
 * In-process domain hooks: one feature reacts to another's changes without importing it
 * (a message in a chat with a bot becomes a bot update; a follow becomes a notification).
 * Each feature declares the hooks it emits here, with their payload, one entry each.
 */
export interface DomainHookPayloads {
  /** a new account exists (registration, CLI, bot creation) */
  "user:created": { userId: number };
}

export type DomainHookName = keyof DomainHookPayloads;
type Listener<K extends DomainHookName> = (payload: DomainHookPayloads[K]) => void | Promise<void>;

export class DomainHooks {
  private readonly listeners = new Map<DomainHookName, Array<Listener<any>>>();

  constructor(private readonly log: Logger) {}

  on<K extends DomainHookName>(name: K, listener: Listener<K>): void {
    const list = this.listeners.get(name) ?? [];
    list.push(listener);
    this.listeners.set(name, list);
  }

  /**
   * Runs listeners in registration order after the emitting change has committed.
   * A failing listener is logged and does not undo or block the change that happened.
   */
  async emit<K extends DomainHookName>(name: K, payload: DomainHookPayloads[K]): Promise<void> {
    const list = this.listeners.get(name);
    if (!list) return;
    for (const listener of list) {
      try {
        await listener(payload);
      } catch (err) {
        this.log.error("hook listener failed", { hook: name, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      }
    }
  }
}
