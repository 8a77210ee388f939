import { defineService, type App } from "../../app";
import { readChatList } from "../../domain/chats/chat-list";
import { VersionedCache } from "../../cache/by-version";
import { chatListStamp } from "../../cache/chat-list-stamps";
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
 * chat-list stamp they were made under (chatListStamp: raised by triggers on whatever the list
 * shows): while it stays, a page asked again is that text, with nothing made (the stamp is read
 * with no statement on SQLite, one on PostgreSQL), and the same bytes are written each time
 * (flattened by its first write, then sent as they are: a page of 50 chats is large, and joining
 * it again costs more than reading its page). Once the stamp moved the page is read again; when
 * it shows the same chats as the kept answer (each chat's text the same), that answer is kept
 * under the new stamp and written again.
 */
export class ChatListAnswers {
  readonly #kept: VersionedCache<KeptAnswer, number, string>;

  constructor(max = MAX_CACHED_ANSWERS) {
    this.#kept = new VersionedCache(max);
  }

  /** The answer kept under KEY at STAMP. */
  get(key: string, stamp: number): string | Uint8Array | undefined {
    const kept = this.#kept.get(key, stamp);
    return kept && bytesOf(kept);
  }

  /**
   * The answer of chats TEXTS and cursor NEXT, read after STAMP was: the kept one for KEY when
   * it was made of the same texts and cursor, else made; kept under STAMP (not when null).
   */
  answer(key: string, stamp: number | null, texts: readonly string[], next: string | null): string | Uint8Array {
    const kept = this.#kept.peek(key)?.value;
    if (kept && kept.next === next && sameTexts(kept.texts, texts)) {
      if (stamp !== null) this.#kept.keep(key, stamp, kept);
      return bytesOf(kept);
    }
    const answer = made(texts, next);
    if (stamp !== null) this.#kept.keep(key, stamp, answer);
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

const chatListAnswersService = defineService("clientapi:chat-list-answers", () => new ChatListAnswers());

/** The App's kept chat-list answers. */
export const chatListAnswersOf = (app: App): ChatListAnswers => app.services.get(chatListAnswersService);

/**
 * VIEWER's chat list from CURSOR (raw, as given), LIMIT chats, as the Client API's whole
 * answer (JSON text): kept while their chat-list stamp stays (ChatListAnswers), else read in
 * one statement (two when the viewer hid messages of some chats) from kept chats' JSON.
 */
export async function chatListAnswer(
  app: App,
  viewer: number,
  cursor: string | undefined,
  limit: number,
): Promise<string | Uint8Array> {
  const answers = chatListAnswersOf(app);
  const key = `${viewer}:${limit}:${cursor ?? ""}`;
  // read before the page: a write that comes between raises it, so what was read is never kept as newer than it is
  const stamp = await chatListStamp(app, viewer);
  const kept = answers.get(key, stamp);
  if (kept !== undefined) return kept;
  const committed = committedRead(app);
  const page = await readChatList(app.db, viewer, cursor, limit);
  const texts = await chatListTexts(app.db, chatListCacheOf(app), viewer, page);
  return answers.answer(key, committed && committedRead(app) ? stamp : null, texts, page.nextCursor);
}

/**
 * Whether what was just read on APP's database was committed, so it may be kept: not while a
 * transaction is open on the SQLite connection outside Kysely (the storage module's own), whose
 * writes a read shows and whose rollback would take back the stamp it raised with them (an
 * answer kept under that stamp would be taken for the next write's). At worst, a write group
 * begun meanwhile leaves one answer unkept.
 */
const committedRead = (app: App): boolean => app.storage.sqlite?.inTransaction !== true;
