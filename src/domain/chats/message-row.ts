import { sql, type AliasableExpression } from "kysely";
import type { Db } from "../../db";
import { precompiled, precompiledNow } from "../../db/compiled";
import { forEngine, type Engine } from "../../db/engine";
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
 * SQLite: the seq is read from the chat in the INSERT itself (one writer: nothing can take it
 * between the read and the write), one statement where an UPDATE … RETURNING of the chat and
 * the INSERT were two; the chat's row is moved by the message's trigger.
 */
const insertTakingSeqQuery = precompiledNow((db, p: NewMessage) =>
  db
    .insertInto("messages")
    .columns(COLUMNS)
    .expression((eb) =>
      eb
        .selectFrom("conversations")
        .select((s) => selectedRow(p, s("last_seq", "+", 1), s.ref("id")))
        .where("id", "=", p.conversation_id),
    )
    // the rest of the row is what was just written: reading it back would cost ≈ 20 columns a send
    .returning(["id", "seq"]),
);

/**
 * PostgreSQL: as on SQLite, with the chat's row locked (FOR UPDATE) as the seq is read. The lock
 * orders concurrent sends to a chat: a send that waited for it reads the chat again once the
 * other commits, so it takes the next seq. The chat is written once, by the message's trigger;
 * a chat written twice in the transaction would raise its members' chat-list stamps twice and
 * check its foreign keys again.
 */
const insertTakingSeqPostgresQuery = precompiled((db, p: NewMessage) =>
  db
    .insertInto("messages")
    .columns(COLUMNS)
    .expression((eb) =>
      eb
        .selectFrom("conversations")
        .select((s) => selectedRow(p, s("last_seq", "+", 1), s.ref("id")))
        .where("id", "=", p.conversation_id)
        .forUpdate(),
    )
    .returning(["id", "seq"]),
);

type Inserted = { id: number; seq: number } | undefined;

const engines: Record<Engine, (db: Db, row: NewMessage) => Inserted | Promise<Inserted>> = {
  // the id and seq at once where the statement runs straight on SQLite (a send's transaction): no promise
  sqlite: (db: Db, row: NewMessage) => insertTakingSeqQuery(db, row, (rows) => rows[0]),
  postgres: async (db: Db, row: NewMessage) => (await insertTakingSeqPostgresQuery(db, row))[0],
};
