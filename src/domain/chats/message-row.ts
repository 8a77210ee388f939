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
        .select((s) =>
          COLUMNS.map((c) =>
            c === "seq"
              ? s("last_seq", "+", 1).as(c)
              : c === "conversation_id"
                ? s.ref("id").as(c)
                : s.val(p[c as Exclude<Column, "seq">]).as(c),
          ),
        )
        .where("id", "=", p.conversation_id),
    )
    // the rest of the row is what was just written: reading it back would cost ≈ 20 columns a send
    .returning(["id", "seq"]),
);

/** PostgreSQL: the UPDATE takes the chat's row lock, which orders concurrent sends to it by seq. */
const takeSeqQuery = precompiled((db, p: { conversationId: number; now: number }) =>
  db
    .updateTable("conversations")
    .set((eb) => ({ last_seq: eb("last_seq", "+", 1), last_message_at: p.now, activity_at: p.now, updated_at: p.now }))
    .where("id", "=", p.conversationId)
    .returning("last_seq"),
);
const insertWithSeqQuery = precompiled((db, p: NewMessage & { seq: number }) =>
  db
    .insertInto("messages")
    // p stands in for the values while compiling: its fields are named one by one
    .values(Object.fromEntries(COLUMNS.map((c) => [c, p[c]])) as NewMessage & { seq: number })
    .returning("id"),
);

type Inserted = { id: number; seq: number } | undefined;

const engines: Record<Engine, (db: Db, row: NewMessage) => Inserted | Promise<Inserted>> = {
  // the id and seq at once where the statement runs straight on SQLite (a send's transaction): no promise
  sqlite: (db: Db, row: NewMessage) => insertTakingSeqQuery(db, row, (rows) => rows[0]),
  postgres: async (db: Db, row: NewMessage) => {
    const [bumped] = await takeSeqQuery(db, { conversationId: row.conversation_id, now: row.created_at });
    if (!bumped) return undefined;
    const seq = bumped.last_seq;
    const [inserted] = await insertWithSeqQuery(db, { ...row, seq });
    return { id: inserted!.id, seq };
  },
};
