import { defineService, type App } from "../../app";
import type { Storage } from "../../db";
import type { Scope } from "../../db/transaction";
import { USER_COUNTER_COLUMNS } from "../users/table";

/**
 * What a send's access check reads (requireChatForSendByCuid), with the columns whose writes
 * cannot change its answer: the ones every send moves (the chat's last message and activity,
 * the members' read marks and unread counts, written by the trigger messages_stored) and an
 * account's counters (every post and follow moves them). Any other write to these tables (a
 * chat renamed or deleted, a member added, removed or promoted, a block, an account edited)
 * is counted.
 */
const SEND_ACCESS_TABLES = {
  conversations: [
    "last_seq",
    "last_message_at",
    "activity_at",
    "updated_at",
    "last_message_id",
    "last_message_version",
  ],
  conversation_members: ["last_read_seq", "unread_count", "activity_at", "has_hidden", "updated_at"],
  users: USER_COUNTER_COLUMNS,
  blocks: [],
} as const satisfies Record<string, readonly string[]>;

/** Most access checks kept (≈ 1 KB each); past it they are all dropped and read again. */
const MAX_KEPT = 10_000;

interface Kept {
  value: object;
  writes: number;
  dataVersion: number;
}

/**
 * Access checks of sends (who sends into which chat: the chat, that the sender is a current
 * member, and in a private chat the other party and a block between the two), by the caller's
 * key: a Client API send's (chatForSend in messages.ts) and a bot's send to a person
 * (findPersonChatKept in src/botapi/chats.ts). Each is reused while none of what it is read from has been written
 * since (the pattern of SessionCache): no commit by another connection (Storage.dataVersion)
 * and no counted write (Storage.writesTo, SEND_ACCESS_TABLES) by this one. A sender's next send
 * to the chat then reads nothing before its INSERT. The chat's columns every send moves are not
 * part of a kept check (SendChat), so no caller can see them stale.
 *
 * A check is read inside the send's transaction, where earlier sends of the same group may
 * have written and may yet be rolled back (their counted writes with them): so what was read is
 * kept only once that transaction has committed, stamped with the counts it was read under. A
 * kept check is used inside a transaction too: an uncommitted counted write moves the count, so
 * it is read again; one rolled back takes its count back, and what was kept before it holds.
 * SQLite only: on PostgreSQL other nodes write without this process seeing a count move.
 */
export class SendAccessCache {
  readonly #kept = new Map<string, Kept>();
  readonly #writesCount: () => number;
  #counting = false;

  constructor(private readonly storage: Pick<Storage, "dataVersion" | "writesTo">) {
    const count = storage.writesTo(SEND_ACCESS_TABLES);
    if (!count) throw new Error("send access checks are kept only where the storage counts writes per table (SQLite)");
    this.#writesCount = count;
  }

  /**
   * Call outside the send's transaction: the write counter's table is made on its first count
   * outside one (Storage.writesTo), and a send counts only inside its own.
   */
  ready(): void {
    if (!this.#counting) this.#counting = !Number.isNaN(this.#writesCount());
  }

  /** The counts now: what a check read now is kept under (keep), and what a kept one must match (get). */
  stamp(): { writes: number; dataVersion: number } {
    return { writes: this.#writesCount(), dataVersion: this.storage.dataVersion() };
  }

  /** The check kept for KEY (as keep was given it) if nothing it was read from has been written since; else undefined. */
  get<T extends object>(key: string): T | undefined {
    const kept = this.#kept.get(key);
    if (kept === undefined || kept.writes !== this.#writesCount() || kept.dataVersion !== this.storage.dataVersion())
      return undefined;
    return kept.value as T;
  }

  /**
   * Keeps VALUE, read in SCOPE under STAMP, once SCOPE has committed (a rolled-back read is
   * never kept). VALUE and the objects it holds (SHARED, named by the caller) are shared by
   * every send of KEY until the next counted write, so they are frozen here: nobody may change
   * them in place.
   */
  keep(
    scope: Scope,
    key: string,
    value: object,
    stamp: { writes: number; dataVersion: number },
    shared: object[],
  ): void {
    for (const object of shared) Object.freeze(object);
    Object.freeze(value);
    scope.afterCommit(() => {
      if (this.#kept.size >= MAX_KEPT) this.#kept.clear();
      this.#kept.set(key, { value, ...stamp });
    });
  }
}

const sendAccessCache = defineService<SendAccessCache | null>("chats:send-access", (app) =>
  app.storage.engine === "sqlite" ? new SendAccessCache(app.storage) : null,
);

/** The App's kept send access checks; null where none are kept (PostgreSQL). */
export const sendAccessOf = (app: App): SendAccessCache | null => app.services.get(sendAccessCache);
