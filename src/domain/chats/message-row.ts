import { sql, type AliasableExpression } from "kysely";
import type { Db } from "../../db";
import { precompiled, precompiledNow } from "../../db/compiled";
import { forEngine, type Engine } from "../../db/engine";
import { TurnBatch } from "../../lib/turn-batch";
import type { MessageRow } from "./table";

/** A message row as a send writes it: the seq and what the database makes are not given. */
export type NewMessage = Omit<MessageRow, "id" | "seq" | "pinned" | "edited_at" | "deleted_at" | "version">;

/**
 * What a deleted message keeps of itself (deletion for everyone, an account's removal): its
 * row, seq and time stay for the chat's order and its replies; its text, files, buttons and
 * extras are wiped and it is unpinned. Its invoice is the caller's to keep or wipe (a paid one
 * stays with the payment).
 */
export const wipedMessage = (now: number) =>
  ({
    deleted_at: now,
    content: "",
    entities: null,
    media: null,
    reply_markup: null,
    extra: null,
    link_preview: null,
    pinned: 0,
  }) as const;

/**
 * The storage of a new message: the one place a send's SQL differs by engine (as the search
 * modules' does). Both take the chat's next seq and write the row; the chat's last seq, last
 * message time and activity then follow the row (trigger messages_stored). Undefined when
 * the chat is gone.
 */
export const insertMessageRow = (db: Db, row: NewMessage): Inserted | Promise<Inserted> =>
  forEngine(db, engines)(db, row);

/** The columns a send writes, in one order for both statements. */
const COLUMNS = [
  "cuid",
  "conversation_id",
  "seq",
  "sender_id",
  "kind",
  "content",
  "entities",
  "media",
  "reply_to_seq",
  "reply_markup",
  "invoice",
  "extra",
  "system",
  "forwarded_from",
  "client_message_id",
  "link_preview",
  "created_at",
] as const;
type Column = (typeof COLUMNS)[number];

/** The row's columns in COLUMNS' order as a SELECT's list: the seq and the chat's id from SEQ and CHAT, the rest P's. */
const selectedRow = (p: NewMessage, seq: AliasableExpression<unknown>, chat: AliasableExpression<unknown>) =>
  COLUMNS.map((c) =>
    (c === "seq" ? seq : c === "conversation_id" ? chat : sql.val(p[c as Exclude<Column, "seq">])).as(c),
  );

/**
 * The row with the chat's next seq, read from the chat in the INSERT itself: one statement where
 * an UPDATE … RETURNING of the chat and the INSERT were two; the chat's row is then moved by the
 * message's trigger, once. SQLite has one writer, so nothing can take the seq between the read
 * and the write. PostgreSQL locks the chat's row as it reads it (LOCK_CHAT): the lock orders
 * concurrent sends to a chat, and a send that waited for it reads the chat again once the other
 * has committed, so it takes the next seq.
 */
const insertTakingSeq = (db: Db, p: NewMessage, lockChat: boolean, accessStamp?: unknown) =>
  db
    .insertInto("messages")
    .columns(COLUMNS)
    .expression((eb) => {
      let chat = eb
        .selectFrom("conversations")
        .select((s) => selectedRow(p, s("last_seq", "+", 1), s.ref("id")))
        .where("id", "=", p.conversation_id);
      if (accessStamp !== undefined)
        chat = chat.where(
          (w) => w.selectFrom("cache_stamps").select("stamp").where("name", "=", "send-access"),
          "=",
          accessStamp as number,
        );
      return lockChat ? chat.forUpdate() : chat;
    })
    // the rest of the row is what was just written: reading it back would cost ≈ 20 columns a send
    .returning(["id", "seq"]);

const insertTakingSeqQuery = precompiledNow((db, p: NewMessage) => insertTakingSeq(db, p, false));
const insertTakingSeqPostgresQuery = precompiled((db, p: NewMessage) => insertTakingSeq(db, p, true));
const insertIfAccessKeptQuery = precompiled((db, p: NewMessage & { accessStamp: number }) =>
  insertTakingSeq(db, p, true, p.accessStamp),
);

/**
 * Several rows at once, each with the seq after the last one its chat had (or the row before it
 * in SENT, for one chat): the chats are locked in the order of their ids, so two such
 * statements never deadlock over their chats, and the rows are written in the order sent, so the
 * messages' triggers see each chat's seqs rise. A row whose access stamp (STAMPS, a JSON array
 * beside SENT) is no longer the send-access stamp, or whose chat is gone, is not written. A chat
 * another transaction holds is waited for, not skipped: the sends batched behind wait that long
 * (a send's transaction), but nodes sending to the same chats would otherwise push each other's
 * sends onto the dearer usual way.
 */
const insertManyIfAccessKeptQuery = precompiled((db, p: { sent: string; stamps: string }) =>
  db
    .insertInto("messages")
    .columns(COLUMNS)
    .expression(
      sql`WITH sent AS (SELECT * FROM json_populate_recordset(NULL::messages, ${p.sent}::text::json) WITH ORDINALITY),
        chat AS (SELECT id, last_seq FROM conversations
          WHERE id IN (SELECT conversation_id FROM sent) ORDER BY id FOR UPDATE)
        SELECT ${sql.join(
          COLUMNS.map((c) =>
            c === "seq"
              ? sql`chat.last_seq + row_number() OVER (PARTITION BY chat.id ORDER BY sent.ordinality)`
              : sql.ref(`sent.${c}`),
          ),
        )}
        FROM sent JOIN chat ON chat.id = sent.conversation_id
        WHERE (${p.stamps}::text::json ->> (sent.ordinality::int - 1))::bigint =
          (SELECT stamp FROM cache_stamps WHERE name = 'send-access')
        ORDER BY sent.ordinality`,
    )
    .returning(["cuid", "id", "seq"]),
);

interface QueuedSend {
  row: NewMessage;
  accessStamp: number;
  resolve: (inserted: Inserted) => void;
  reject: (error: unknown) => void;
}

/** The most sends one statement carries: bounds how long it holds its chats' locks. */
const MAX_BATCH = 64;

/**
 * PostgreSQL's group commit of the one-statement sends: what the sends of one turn of the
 * event loop would store in a statement (and a commit) each, one statement stores, while the
 * statement before it runs. A statement's parsing, planning, round trip and commit are then
 * paid once for them all, and the messages' triggers run in one executor. Each send is
 * answered once the statement has committed. When the statement fails (a repeated
 * clientMessageId, a deadlock), each of its sends is stored again on its own, as if it had
 * come alone, and gets its own answer or error.
 */
const sendBatchFor = (db: Db) =>
  new TurnBatch<QueuedSend>(
    async (batch) => {
      if (batch.length === 1) return storeAlone(db, batch[0]!);
      const stored = await insertManyIfAccessKeptQuery(db, {
        sent: JSON.stringify(batch.map((send) => send.row)),
        stamps: JSON.stringify(batch.map((send) => send.accessStamp)),
      });
      const byCuid = new Map(stored.map((r) => [r.cuid, { id: Number(r.id), seq: Number(r.seq) }]));
      for (const send of batch) send.resolve(byCuid.get(send.row.cuid));
    },
    {
      max: MAX_BATCH,
      oneAtATime: true,
      onFailure: (_error, batch) => void Promise.all(batch.map((send) => storeAlone(db, send))),
    },
  );

async function storeAlone(db: Db, send: QueuedSend): Promise<void> {
  try {
    send.resolve((await insertIfAccessKeptQuery(db, { ...send.row, accessStamp: send.accessStamp }))[0]);
  } catch (error) {
    send.reject(error);
  }
}

const sendBatches = new WeakMap<Db, TurnBatch<QueuedSend>>();

/** DB's batch of PostgreSQL sends (tests hold it to gather a moment's sends however slowly they come). */
export function sendBatchOf(db: Db): TurnBatch<QueuedSend> {
  let batch = sendBatches.get(db);
  if (!batch) sendBatches.set(db, (batch = sendBatchFor(db)));
  return batch;
}

/**
 * PostgreSQL: insertMessageRow, in a statement of its own (a transaction of its own, shared with
 * the sends of the same moment: sendBatchFor), only while the send-access cache stamp is still
 * ACCESSSTAMP: the sender's access check kept under it still holds, as the statement reads it.
 * Undefined, with nothing written, when the stamp has moved or the chat is gone.
 */
export const insertMessageRowIfAccessKept = (db: Db, row: NewMessage, accessStamp: number): Promise<Inserted> =>
  new Promise<Inserted>((resolve, reject) => sendBatchOf(db).add({ row, accessStamp, resolve, reject }));

type Inserted = { id: number; seq: number } | undefined;

const engines: Record<Engine, (db: Db, row: NewMessage) => Inserted | Promise<Inserted>> = {
  // the id and seq at once where the statement runs straight on SQLite (a send's transaction): no promise
  sqlite: (db: Db, row: NewMessage) => insertTakingSeqQuery(db, row, (rows) => rows[0]),
  postgres: async (db: Db, row: NewMessage) => (await insertTakingSeqPostgresQuery(db, row))[0],
};
