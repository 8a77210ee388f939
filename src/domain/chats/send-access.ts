import { defineService, type App } from "../../app";
import { cacheStampsOf, type CacheStamps } from "../../cache/stamps";
import type { Scope } from "../../db/transaction";

/** Most access checks cached; past it they are all dropped and read again. */
const MAX_CACHED = 10_000;

interface Cached {
  value: object;
  stamp: number;
}

/**
 * Access checks of sends (who sends into which chat: the chat, that the sender is a current
 * member, and in a private chat the other party and a block between the two), by the caller's
 * key: a Client API send's (chatForSend in messages.ts) and a bot's send to a person. Each is
 * kept under the `send-access` cache stamp (src/cache/stamps.ts), which triggers raise on every
 * write to what it is read from but the columns every send moves and an account's counters
 * (src/cache/registry.ts), whoever writes: a sender's next send to the chat reads the stamp, not
 * the chat. The chat's columns every send moves are not part of a cached check (SendChat), so no
 * caller can see them stale.
 *
 * A check is read inside the send's transaction, where earlier sends of the same group may have
 * written (raising the stamp, and maybe rolled back yet): so what was read is cached only once
 * that transaction has committed, under the stamp it was read under.
 */
export class SendAccessCache {
  readonly #cached = new Map<string, Cached>();

  constructor(private readonly stamps: CacheStamps) {}

  /**
   * The check cached for KEY with the stamp it was read under, whether or not the stamp has moved
   * since: for a send that checks the stamp in its own statement (PostgreSQL's sendInOneStatement).
   */
  peek(key: string): { value: object; stamp: number } | undefined {
    return this.#cached.get(key);
  }

  /**
   * The check cached for KEY when nothing it was read from has been written since, else READ's
   * answer in SCOPE (a send's transaction), cached once SCOPE has committed (undefined: nothing
   * is cached). A cached answer and the objects it holds (SHARED) are shared by every send of KEY
   * until the next write to its sources, so they are frozen here: nobody may change them in place.
   */
  async through<T extends object | undefined>(
    scope: Scope,
    key: string,
    read: () => T | Promise<T>,
    shared: (value: NonNullable<T>) => object[],
  ): Promise<T> {
    // read before the check: a write that comes between raises it past what is read
    const stamp = await this.stamps.read("send-access", scope.db);
    const cached = this.#cached.get(key);
    if (cached !== undefined && cached.stamp === stamp) return cached.value as T;
    const value = await read();
    if (value === undefined) return value;
    for (const object of shared(value as NonNullable<T>)) Object.freeze(object);
    Object.freeze(value);
    scope.afterCommit(() => {
      if (this.#cached.size >= MAX_CACHED) this.#cached.clear();
      this.#cached.set(key, { value, stamp });
    });
    return value;
  }
}

const sendAccessCache = defineService("chats:send-access", (app) => new SendAccessCache(cacheStampsOf(app)));

/** The App's cached send access checks. */
export const sendAccessOf = (app: App): SendAccessCache => app.services.get(sendAccessCache);
