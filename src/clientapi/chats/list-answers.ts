import { defineService, type App } from "../../app";
import type { Storage } from "../../db";
import type { WriteEpoch } from "../../cache/write-epoch";
import { CHAT_LIST_TABLES } from "../../cache/registry";
import { readChatList } from "../../domain/chats/chat-list";
import { VersionedCache } from "../../cache/by-version";
import { chatListCacheOf, chatListTexts, jsonArrayOf } from "./serialize";

/** Most chat-list answers kept per App (≈ 1 KB a chat: 50 chats ≈ 50 KB). */
const MAX_CACHED_ANSWERS = 64;

/**
 * An answer with what it was made of: its chats' texts (the kept strings themselves) and its
 * cursor. BODY: its JSON text as made, then its UTF-8 bytes once it is asked for again.
 */
interface KeptAnswer {
  texts: readonly string[];
  next: string | null;
  body: string | Uint8Array;
}

/**
 * Whole chat-list answers (the envelope's text), kept per reader and page by the reader's
 * write epoch they were made in (WriteEpoch): while nothing the reader may be shown is
 * written, a page asked again is that text, with no statement and nothing made, and the same
 * string object is written each time (flattened by its first write, then sent as it is: a
 * page of 50 chats is large, and joining it again costs more than its statement). A send moves the
 * epoch of its chat's members only, a write to a table no chat list is read from
 * (CHAT_LIST_TABLES) nobody's; any other write that says nothing of whom it concerns moves
 * everyone's. Then the page is read again; when it shows the same chats as the kept answer
 * (each chat's text the same), that answer's string is kept under the new epoch and written
 * again. SQLite only (see WriteEpoch): on PostgreSQL every page is read.
 */
export class ChatListAnswers {
  readonly #epoch: WriteEpoch | null;
  readonly #kept: VersionedCache<KeptAnswer, number, string>;

  constructor(storage: Pick<Storage, "writeEpoch">, max = MAX_CACHED_ANSWERS) {
    this.#epoch = storage.writeEpoch;
    // from now on a write to any other table (a like, a post, a session's last-seen) keeps every list
    this.#epoch?.watch(CHAT_LIST_TABLES);
    this.#kept = new VersionedCache(max);
  }

  /** VIEWER's epoch now (WriteEpoch.now); null when no answer may be used or kept (a transaction open, PostgreSQL). */
  epoch(viewer: number): number | null {
    return this.#epoch ? this.#epoch.now(viewer) : null;
  }

  /** The answer kept under KEY in EPOCH. */
  get(key: string, epoch: number): string | Uint8Array | undefined {
    const kept = this.#kept.get(key, epoch);
    return kept && bytesOf(kept);
  }

  /**
   * The answer of chats TEXTS and cursor NEXT, read after EPOCH was taken: the kept one for
   * KEY when it was made of the same texts and cursor, else made; kept under EPOCH (not when
   * null).
   */
  answer(key: string, epoch: number | null, texts: readonly string[], next: string | null): string | Uint8Array {
    const kept = this.#kept.peek(key)?.value;
    if (kept && kept.next === next && sameTexts(kept.texts, texts)) {
      if (epoch !== null) this.#kept.keep(key, epoch, kept);
      return bytesOf(kept);
    }
    const answer = made(texts, next);
    if (epoch !== null) this.#kept.keep(key, epoch, answer);
    return answer.body;
  }

  get size(): number {
    return this.#kept.size;
  }
}

const sameTexts = (a: readonly string[], b: readonly string[]): boolean => {
  if (a.length !== b.length) return false;
  for (let n = 0; n < a.length; n++) if (a[n] !== b[n]) return false;
  return true;
};

/** ok() around the chats' kept JSON, as text: JSON.stringify would make the ≈ 1 KB a chat again. */
function made(texts: readonly string[], next: string | null): KeptAnswer {
  const cursor = next === null ? "null" : JSON.stringify(next);
  const body = `{"success":true,"data":{"conversations":${jsonArrayOf(texts)},"pageInfo":{"nextCursor":${cursor}},"nextCursor":${cursor}}}`;
  return { texts, next, body };
}

/**
 * An answer asked for again, as UTF-8 bytes from now on: made once, written as they are (a
 * string with any character past Latin-1, an emoji, is encoded again on every write, a cost that
 * grows with the page), while a first answer is written as its string (encoding it into bytes once
 * more would cost as much).
 */
const bytesOf = (kept: KeptAnswer): Uint8Array =>
  typeof kept.body === "string" ? (kept.body = Buffer.from(kept.body)) : kept.body;

const chatListAnswersService = defineService("clientapi:chat-list-answers", (app) => new ChatListAnswers(app.storage));

/** The App's kept chat-list answers. */
export const chatListAnswersOf = (app: App): ChatListAnswers => app.services.get(chatListAnswersService);

/**
 * VIEWER's chat list from CURSOR (raw, as given), LIMIT chats, as the Client API's whole
 * answer (JSON text): kept while nothing they may be shown is written (ChatListAnswers), else read in one
 * statement (two when the viewer hid messages of some chats) from kept chats' JSON.
 */
export async function chatListAnswer(
  app: App,
  viewer: number,
  cursor: string | undefined,
  limit: number,
): Promise<string | Uint8Array> {
  const answers = chatListAnswersOf(app);
  const key = `${viewer}:${limit}:${cursor ?? ""}`;
  // taken before the page is read: a write that comes between moves it, so what was read is never kept as newer than it is
  const epoch = answers.epoch(viewer);
  const kept = epoch === null ? undefined : answers.get(key, epoch);
  if (kept !== undefined) return kept;
  const page = await readChatList(app.db, viewer, cursor, limit);
  const texts = await chatListTexts(app.db, chatListCacheOf(app), viewer, page);
  return answers.answer(key, epoch, texts, page.nextCursor);
}
