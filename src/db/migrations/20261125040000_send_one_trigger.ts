import { sql, type Kysely } from "kysely";

/**
 * What a stored message changes besides its row, in one trigger instead of four. A send to a
 * private chat wrote the chat's row twice (its seq, times and activity before the insert:
 * messages_take_seq; its last message after: messages_last_insert) and the sender's
 * membership three times (the chat's activity and the others' unread counts:
 * messages_unread_insert; the sender's read mark: messages_read_own; the unread recount that
 * the mark's move set off: members_unread_read), each write also moving the row's entry in
 * the chat list's index. Now the chat's row is written once, the other members' once, and the
 * sender's once, with its read mark and an unread count of 0 when the message is the chat's
 * newest; the recount runs only where that is not known (a mark moved to an older seq, or a
 * count left above 0), as a read marker moved by hand still does. Same results whoever
 * inserts (the sends, the CLI, SQL outside the app), on both engines.
 */

/** The unread count of the member row `new`, counted from the rows (as 20261124100100_unread_counter). */
const UNREAD_OF_NEW = sql.raw(`(
  SELECT count(*) FROM messages x
  WHERE x.conversation_id = new.conversation_id AND x.seq > new.last_read_seq
    AND x.sender_id <> new.user_id AND x.deleted_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.message_id = x.id AND h.user_id = new.user_id))`);
const CHAT = (column: string) => sql.raw(`(SELECT c.${column} FROM conversations c WHERE c.id = new.conversation_id)`);

export async function up(db: Kysely<any>): Promise<void> {
  for (const t of ["messages_take_seq", "messages_last_insert", "messages_read_own", "messages_unread_insert"])
    await sql`DROP TRIGGER IF EXISTS ${sql.raw(t)}`.execute(db);
  await sql`DROP TRIGGER IF EXISTS members_unread_read`.execute(db);
  // the condition is in the body: PostgreSQL allows no subquery in a trigger's WHEN
  await sql`CREATE TRIGGER members_unread_read AFTER UPDATE OF last_read_seq ON conversation_members
    WHEN new.last_read_seq <> old.last_read_seq BEGIN
    UPDATE conversation_members SET unread_count = ${UNREAD_OF_NEW}
    WHERE id = new.id AND (new.unread_count <> 0 OR new.last_read_seq < ${CHAT("last_seq")}); END`.execute(db);
  await createMessagesStored(db, { historyVersion: false });
}

/**
 * The trigger messages_stored as this migration makes it; with HISTORYVERSION (from
 * 20261205100400_chat_history_version) the chat's history_version also rises when the message
 * stored is not the chat's newest (an import below it), in the same UPDATE of the chat; with
 * ONEMEMBERUPDATE (from 20261207100000_send_one_member_update) the sender's membership and the
 * others' are written by one UPDATE that joins the chat once, each row as the two UPDATEs wrote it.
 */
export async function createMessagesStored(
  db: Kysely<any>,
  opts: { historyVersion: boolean; oneMemberUpdate?: boolean },
) {
  await sql`CREATE TRIGGER messages_stored AFTER INSERT ON messages BEGIN
    ${storedMessageWrites("new", opts)} END`.execute(db);
}

/**
 * The statements of messages_stored for the stored message ROW (a row variable's name: `new` in
 * the trigger), with the options of createMessagesStored.
 */
export function storedMessageWrites(
  row: string,
  { historyVersion, oneMemberUpdate = false }: { historyVersion: boolean; oneMemberUpdate?: boolean },
) {
  const belowNewest = historyVersion
    ? `,
      history_version = CASE WHEN last_seq >= ${row}.seq THEN history_version + 1 ELSE history_version END`
    : "";
  // in one body, so in this order on both engines: the chat first, whose activity the members copy
  return sql.raw(`UPDATE conversations SET
      last_seq = CASE WHEN last_seq < ${row}.seq THEN ${row}.seq ELSE last_seq END,
      last_message_at = CASE WHEN last_seq < ${row}.seq THEN ${row}.created_at ELSE last_message_at END,
      activity_at = CASE WHEN last_seq < ${row}.seq THEN ${row}.created_at ELSE activity_at END,
      updated_at = CASE WHEN last_seq < ${row}.seq THEN ${row}.created_at ELSE updated_at END,
      last_message_id = CASE WHEN ${row}.deleted_at IS NULL AND (last_message_id IS NULL
        OR ${row}.seq > (SELECT m.seq FROM messages m WHERE m.id = conversations.last_message_id))
        THEN ${row}.id ELSE last_message_id END${belowNewest}
    WHERE id = ${row}.conversation_id;
    ${oneMemberUpdate ? membersInOneUpdate(row) : membersInTwoUpdates(row)}`);
}

const chatColumn = (row: string, column: string) =>
  `(SELECT c.${column} FROM conversations c WHERE c.id = ${row}.conversation_id)`;

const membersInTwoUpdates = (
  row: string,
) => `UPDATE conversation_members SET activity_at = ${chatColumn(row, "activity_at")},
      unread_count = unread_count + CASE WHEN ${row}.deleted_at IS NULL AND last_read_seq < ${row}.seq THEN 1 ELSE 0 END
    WHERE conversation_id = ${row}.conversation_id AND user_id <> ${row}.sender_id;
    UPDATE conversation_members SET activity_at = ${chatColumn(row, "activity_at")},
      unread_count = CASE WHEN last_read_seq < ${row}.seq AND ${row}.seq >= ${chatColumn(row, "last_seq")} THEN 0 ELSE unread_count END,
      last_read_seq = CASE WHEN last_read_seq < ${row}.seq THEN ${row}.seq ELSE last_read_seq END
    WHERE conversation_id = ${row}.conversation_id AND user_id = ${row}.sender_id;`;

// the chat is joined once, not read again for each member and column; every SET expression
// reads the member's row as it was, on both engines, as the two UPDATEs' did
const membersInOneUpdate = (row: string) => `UPDATE conversation_members SET activity_at = c.activity_at,
      unread_count = CASE WHEN conversation_members.user_id <> ${row}.sender_id
        THEN conversation_members.unread_count + CASE
          WHEN ${row}.deleted_at IS NULL AND conversation_members.last_read_seq < ${row}.seq THEN 1 ELSE 0 END
        WHEN conversation_members.last_read_seq < ${row}.seq AND ${row}.seq >= c.last_seq THEN 0
        ELSE conversation_members.unread_count END,
      last_read_seq = CASE WHEN conversation_members.user_id = ${row}.sender_id
        AND conversation_members.last_read_seq < ${row}.seq THEN ${row}.seq ELSE conversation_members.last_read_seq END
    FROM conversations c
    WHERE c.id = ${row}.conversation_id AND conversation_members.conversation_id = ${row}.conversation_id;`;

/** The five triggers as 20261125030000, 20261124214100, 20261125001000, 20261125010000 and 20261124100100 made them. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS messages_stored`.execute(db);
  await sql`DROP TRIGGER IF EXISTS members_unread_read`.execute(db);
  await sql`CREATE TRIGGER members_unread_read AFTER UPDATE OF last_read_seq ON conversation_members
    WHEN new.last_read_seq <> old.last_read_seq BEGIN
    UPDATE conversation_members SET unread_count = ${UNREAD_OF_NEW} WHERE id = new.id; END`.execute(db);
  await sql`CREATE TRIGGER messages_take_seq BEFORE INSERT ON messages BEGIN
    UPDATE conversations SET last_seq = new.seq, last_message_at = new.created_at,
      activity_at = new.created_at, updated_at = new.created_at
    WHERE id = new.conversation_id AND last_seq < new.seq; END`.execute(db);
  await sql`CREATE TRIGGER messages_last_insert AFTER INSERT ON messages WHEN new.deleted_at IS NULL BEGIN
    UPDATE conversations SET last_message_id = new.id
    WHERE id = new.conversation_id
      AND (last_message_id IS NULL
           OR new.seq > (SELECT m.seq FROM messages m WHERE m.id = conversations.last_message_id)); END`.execute(db);
  await sql`CREATE TRIGGER messages_read_own AFTER INSERT ON messages BEGIN
    UPDATE conversation_members SET last_read_seq = new.seq
    WHERE conversation_id = new.conversation_id AND user_id = new.sender_id AND last_read_seq < new.seq; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER messages_unread_insert AFTER INSERT ON messages BEGIN
    UPDATE conversation_members SET activity_at = ${CHAT("activity_at")},
      unread_count = unread_count + CASE
        WHEN new.deleted_at IS NULL AND user_id <> new.sender_id AND last_read_seq < new.seq THEN 1 ELSE 0 END
    WHERE conversation_id = new.conversation_id; END`.execute(db);
}
