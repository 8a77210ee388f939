import { defineService, type App } from "../../app";
import { listHistory, listHistoryAround, type Membership } from "../../domain/chats";
import { requireMembershipWithOtherByCuid } from "../../domain/chats/access";
import { pollOf } from "../../domain/chats/polls";
import type { MessageRow } from "../../domain/chats/table";
import type { UserRow } from "../../domain/users/table";
import { VersionedCache } from "../../cache/by-version";
import { answerKey, MAX_KEPT_ANSWERS, MAX_KEPT_TEXT } from "../../cache/stamped-answers";
import { jsonText, type SetHeaders } from "../../http/envelope";
import { fieldError } from "../../lib/errors";
import { flat } from "../../lib/flat-string";
import { parseLimit } from "../../lib/paging";
import { conversationWithOther, serializeMessages } from "./serialize";

/** What GET /api/social/messages/{cid} takes: a page's length, and where it is (newest, before, after, around). */
export interface HistoryQuery {
  limit?: string;
  before?: string;
  after?: string;
  around?: string;
}

/** A page of a chat's history as JSON text, the chat itself apart (read for each answer). */
interface KeptHistory {
  messages: string;
  pageInfo: string;
  /** when the page's first poll with a closing time closes (it then shows closed): kept until then */
  until: number;
}

/**
 * The App's kept history pages, by reader, chat, limit and cursor, and the versions that name
 * everything a page shows (src/cache/registry.ts): the chat's version (its members' profiles: the
 * senders), last_seq (a new newest message), last_message_version (any message's change,
 * reaction, vote or removal) and history_version (a message stored below the newest), raised by
 * triggers whoever writes. Kept only for a reader who hid none of the chat's messages
 * (conversation_members.has_hidden), whose pages are then the chat's own.
 */
const pagesService = defineService(
  "chats:kept-history",
  () => new VersionedCache<KeptHistory, string, string>(MAX_KEPT_ANSWERS),
);

/** The page QUERY asks for, of MEMBERSHIP's chat, as READER sees it, read afresh (see listHistory). */
async function readHistoryPage(app: App, reader: UserRow, membership: Membership, query: HistoryQuery, limit: number) {
  return query.around !== undefined
    ? listHistoryAround(app, membership, reader.id, query.around, limit)
    : listHistory(app, membership, reader.id, query.before, limit, query.after);
}

/** When the first of ROWS' polls with a closing time closes, as NOW shows them (Infinity: none). */
function pollsCloseAt(rows: readonly MessageRow[], now: number): number {
  let until = Infinity;
  for (const row of rows) {
    const poll = pollOf(row, now);
    if (poll && !poll.is_closed && poll.close_date !== undefined) until = Math.min(until, poll.close_date * 1000);
  }
  return until;
}

/**
 * `{conversation, messages, pageInfo}` of the chat CID and a page of its history as READER
 * sees them, as JSON text: the chat with the reader's membership and, in a private chat, the
 * other party (one statement) read for each answer, the page kept when the versions read with
 * the chat name it (a change made after that read raises them past the ones kept under, which
 * then miss).
 */
export function historyResponse(
  app: App,
  set: SetHeaders,
  reader: UserRow,
  cid: string,
  query: HistoryQuery,
): Promise<string> {
  return historyAnswer(app, set, reader, cid, query, app.services.get(pagesService));
}

/** historyResponse's answer read afresh, nothing kept or used. */
export const readHistory = (app: App, reader: UserRow, cid: string, query: HistoryQuery): Promise<string> =>
  historyAnswer(app, { headers: {} }, reader, cid, query, null);

async function historyAnswer(
  app: App,
  set: SetHeaders,
  reader: UserRow,
  cid: string,
  query: HistoryQuery,
  pages: VersionedCache<KeptHistory, string, string> | null,
): Promise<string> {
  const limit = parseLimit(query.limit, 30, 100);
  // the chat with the reader's membership and, in a private chat, the other party: one statement
  const membership = await requireMembershipWithOtherByCuid(app.db, cid, reader.id);
  if (query.around !== undefined && (query.before || query.after))
    throw fieldError("around", "cannot be combined with before or after");
  const c = membership.conversation;
  const keepable = pages !== null && query.around === undefined && membership.member.has_hidden === 0;
  const key = answerKey(reader.id, cid, limit, query.before ?? "", query.after ?? "");
  const version = `${c.version}:${c.last_seq}:${c.last_message_version}:${c.history_version}`;
  const now = app.clock.now();
  let page = keepable ? pages.get(key, version) : undefined;
  if (page !== undefined && now >= page.until) page = undefined;
  const { conversation, other } = await conversationWithOther(app.db, c, reader.id, membership.member, membership);
  if (page === undefined) {
    const read = await readHistoryPage(app, reader, membership, query, limit);
    const messages = await serializeMessages(app.db, c, read.items, {
      viewerId: reader.id,
      now,
      // the reader and a private chat's other party are every sender there: none is read again
      known: other ? [reader, other] : [reader],
    });
    page = {
      messages: flat(JSON.stringify(messages)),
      pageInfo: JSON.stringify({
        oldestCursor: read.olderCursor,
        newestCursor: read.newerCursor,
        nextCursor: read.olderCursor,
      }),
      until: pollsCloseAt(read.items, now),
    };
    if (keepable && page.messages.length <= MAX_KEPT_TEXT) pages.keep(key, version, page);
  }
  return jsonText(
    set,
    `{"success":true,"data":{"conversation":${JSON.stringify(conversation)},"messages":${page.messages},"pageInfo":${page.pageInfo}}}`,
  );
}
