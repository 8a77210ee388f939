import type { Scope } from "../db/transaction";
import type { Logger } from "../lib/log";
import type { DomainEvent } from "./events";

/**
 * In-process domain hooks: one feature reacts to another's changes without importing it
 * (a message in a chat with a bot becomes a bot update; a follow becomes a notification).
 * Each feature declares the hooks it emits here, with their payload, one entry each.
 * What people see live goes by `publish` as a DomainEvent (./events.ts) instead.
 */
export interface DomainHookPayloads {
  /** a new account exists (registration, CLI, bot creation) */
  "user:created": { userId: number };
  /** auth: deliver a sign-in code to USER as a chat message from the system account (two-factor by messenger) */
  "auth:deliver-code": { userId: number; code: string };
  /** account: a person deleted their account (soft delete done, sessions revoked); features drop their content */
  "user:deleted": { userId: number };
  /** chats: a message was posted (after commit) */
  "message:created": { conversationId: number; messageId: number; senderId: number };
  /** chats: USER set the reaction EMOJI on a message (not when taking one back) */
  "message:reacted": { conversationId: number; messageId: number; userId: number; emoji: string };
  /** chats: a message's text or buttons changed */
  "message:edited": { conversationId: number; messageId: number; editorId: number };
  /** chats: members should see this message live (new, or edited / pinned / unpinned); the Client API publishes its shape; message (as just written) and conversation, when the emitter holds them, spare listeners reloading them */
  "message:live": {
    conversationId: number;
    messageId: number;
    event: "message:new" | "message:edited";
    conversation?: Pick<import("./chats/table").ConversationRow, "id" | "cuid">;
    message?: import("./chats/table").MessageRow;
    /** the message's sender, when the emitter holds the row */
    sender?: import("./users/table").UserRow;
    /** the members to show it to, when the emitter read them (a new message: in its own transaction) */
    memberIds?: number[];
  };
  /** chats: someone's membership changed (added, removed, left, promoted); oldRole null = never a member */
  "member:changed": {
    conversationId: number;
    userId: number;
    actorId: number;
    oldRole: string | null;
    newRole: string;
  };
  /** chats: USER opened the private chat with OTHERUSER (startLabel from a bot deep link) */
  "chat:opened": { conversationId: number; userId: number; otherUserId: number; startLabel?: string };
  /** notifications: a notification was stored for RECIPIENT in group GROUPID (the Client API delivers the group live) */
  "notification:created": { recipientId: number; notificationId: number; groupId: number };
  /** bots: PERSON pressed the button with callback DATA under MESSAGE; the bot must get press PRESSID (or the press is cancelled) */
  "button:pressed": {
    pressId: string;
    botId: number;
    personId: number;
    conversationId: number;
    messageId: number;
    data: string;
  };
  /** payments: PAYER pressed Pay on an invoice of BOTUSERID; the bot must get pre_checkout_query QUERYID (or the query is cancelled) */
  "payment:pre-checkout": { queryId: string; botUserId: number; totalAmount: number; payload: string; payerId: number };
  /** payments: a payment was charged and its service message posted; the bot gets successful_payment */
  "payment:succeeded": { paymentId: number; serviceMessageId: number };
  /** stars: SENDER gave RECIPIENT AMOUNT stars (committed) */
  "stars:gifted": { senderId: number; recipientId: number; amount: number; note: string | null };
}

/**
 * Hooks run inside the emitting change's transaction (the listener gets its Scope): what a
 * listener writes commits or rolls back with the change, and a failing listener fails it.
 */
export interface DomainTxHookPayloads {
  /** chats: MESSAGE is being stored in CONVERSATION (the bots' updates are queued in the same transaction) */
  "message:storing": {
    conversation: import("./chats/table").SendChat;
    message: import("./chats/table").MessageRow;
    /** the sender's account, when the sending surface holds it (spares loading it again) */
    sender?: import("./users/table").UserRow;
    /** the chat's current members, read in this transaction (a chat without bots needs no bot query) */
    members: readonly import("./chats/table").ChatMember[];
  };
  /** chats: USER voted for CHOSEN (option indexes; empty: took the vote back) in the poll of MESSAGE (the bot that sent it gets poll_answer / poll) */
  "poll:answered": {
    conversation: import("./chats/table").ConversationRow;
    message: import("./chats/table").MessageRow;
    userId: number;
    chosen: number[];
  };
}

export type DomainHookName = keyof DomainHookPayloads;
export type DomainTxHookName = keyof DomainTxHookPayloads;
type Listener<K extends DomainHookName> = (payload: DomainHookPayloads[K]) => void | Promise<void>;
type TxListener<K extends DomainTxHookName> = (scope: Scope, payload: DomainTxHookPayloads[K]) => void | Promise<void>;
type EventListener = (event: DomainEvent) => void;

export class DomainHooks {
  private readonly listeners = new Map<DomainHookName, Array<Listener<any>>>();
  private readonly txListeners = new Map<DomainTxHookName, Array<TxListener<any>>>();
  private readonly txWrites = new Map<DomainTxHookName, Array<(payload: never) => boolean>>();
  private readonly eventListeners: EventListener[] = [];

  constructor(private readonly log: Logger) {}

  on<K extends DomainHookName>(name: K, listener: Listener<K>): void {
    const list = this.listeners.get(name) ?? [];
    list.push(listener);
    this.listeners.set(name, list);
  }

  /**
   * Registers a listener that runs inside the emitting change's transaction (see
   * DomainTxHookPayloads). WRITES, when given, tells from a payload whether the listener has
   * anything to write for it (the listener itself then does nothing without it): a change for
   * which no listener writes may be made without a transaction of its own (mayWriteWithin).
   */
  within<K extends DomainTxHookName>(
    name: K,
    listener: TxListener<K>,
    writes?: (payload: DomainTxHookPayloads[K]) => boolean,
  ): void {
    const list = this.txListeners.get(name) ?? [];
    list.push(listener);
    this.txListeners.set(name, list);
    const predicates = this.txWrites.get(name) ?? [];
    predicates.push(writes ?? (() => true));
    this.txWrites.set(name, predicates);
  }

  /** Whether any in-transaction listener of NAME may write for PAYLOAD (one registered without a WRITES may). */
  mayWriteWithin<K extends DomainTxHookName>(name: K, payload: DomainTxHookPayloads[K]): boolean {
    return (this.txWrites.get(name) ?? []).some((writes) => writes(payload as never));
  }

  /**
   * Runs the in-transaction listeners of NAME in SCOPE, in registration order; a failure
   * propagates (the change rolls back). Undefined when every listener finished at once (a
   * listener with nothing to do need not make a promise: every message stored emits this).
   */
  emitWithin<K extends DomainTxHookName>(
    scope: Scope,
    name: K,
    payload: DomainTxHookPayloads[K],
  ): void | Promise<void> {
    const list = this.txListeners.get(name);
    if (!list) return;
    for (let i = 0; i < list.length; i++) {
      const pending = list[i]!(scope, payload as never);
      if (pending) return this.#runWithinFrom(list, i, pending, scope, payload);
    }
  }

  /** The rest of emitWithin once listener I has returned PENDING: each listener after the one before has settled. */
  async #runWithinFrom(
    list: Array<TxListener<any>>,
    i: number,
    pending: Promise<void>,
    scope: Scope,
    payload: unknown,
  ): Promise<void> {
    await pending;
    for (let j = i + 1; j < list.length; j++) await list[j]!(scope, payload as never);
  }

  /**
   * Runs listeners in registration order after the emitting change has committed.
   * A failing listener is logged and does not undo or block the change that happened.
   * Undefined when every listener finished at once (a hook nobody listens to, or whose
   * listeners have nothing to do, costs no promise: every message sent emits two).
   */
  emit<K extends DomainHookName>(name: K, payload: DomainHookPayloads[K]): void | Promise<void> {
    const list = this.listeners.get(name);
    if (!list) return;
    for (let i = 0; i < list.length; i++) {
      let pending: void | Promise<void>;
      try {
        pending = list[i]!(payload);
      } catch (err) {
        this.#failed(name, err);
        continue;
      }
      if (pending) return this.#runFrom(name, list, i, pending, payload);
    }
  }

  /** The rest of emit once listener I has returned PENDING: each listener after the one before has settled. */
  async #runFrom(
    name: DomainHookName,
    list: Array<Listener<any>>,
    i: number,
    pending: Promise<void>,
    payload: unknown,
  ): Promise<void> {
    try {
      await pending;
    } catch (err) {
      this.#failed(name, err);
    }
    for (let j = i + 1; j < list.length; j++) {
      try {
        await list[j]!(payload);
      } catch (err) {
        this.#failed(name, err);
      }
    }
  }

  #failed(name: DomainHookName, err: unknown): void {
    this.log.error("hook listener failed", {
      hook: name,
      error: err instanceof Error ? (err.stack ?? err.message) : String(err),
    });
  }

  /** Registers a listener for every domain event (src/domain/events.ts): a surface's live delivery. */
  onEvent(listener: EventListener): void {
    this.eventListeners.push(listener);
  }

  /**
   * Announces EVENT once its change has committed. Listeners run at once, in registration
   * order, so live events keep the order their changes happened in; a failing listener is
   * logged and the others still run.
   */
  publish(event: DomainEvent): void {
    for (const listener of this.eventListeners) {
      try {
        listener(event);
      } catch (err) {
        this.log.error("event listener failed", {
          event: event.type,
          error: err instanceof Error ? (err.stack ?? err.message) : String(err),
        });
      }
    }
  }
}
