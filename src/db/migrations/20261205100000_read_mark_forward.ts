import { sql, type Kysely } from "kysely";

/**
 * A read mark that moves forward from a count of 0 leaves the count at 0: the messages above
 * the new mark are among those above the old one, of which none was unread. Every send moves
 * its sender's mark forward (20261125040000_send_one_trigger), almost always from 0, so the
 * recount trigger no longer runs for it at all; a mark moved back, or from a count above 0,
 * is recounted as before. The condition stays in WHEN, which takes no subquery on PostgreSQL.
 */

/** The unread count of the member row `new`, counted from the rows (as 20261125040000_send_one_trigger). */
const UNREAD_OF_NEW = sql.raw(`(
  SELECT count(*) FROM messages x
  WHERE x.conversation_id = new.conversation_id AND x.seq > new.last_read_seq
    AND x.sender_id <> new.user_id AND x.deleted_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM message_hidden h WHERE h.message_id = x.id AND h.user_id = new.user_id))`);
const CHAT_LAST_SEQ = sql.raw(`(SELECT c.last_seq FROM conversations c WHERE c.id = new.conversation_id)`);

async function recountTrigger(db: Kysely<any>, when: string): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS members_unread_read`.execute(db);
  await sql`CREATE TRIGGER members_unread_read AFTER UPDATE OF last_read_seq ON conversation_members
    WHEN ${sql.raw(when)} BEGIN
    UPDATE conversation_members SET unread_count = ${UNREAD_OF_NEW}
    WHERE id = new.id AND (new.unread_count <> 0 OR new.last_read_seq < ${CHAT_LAST_SEQ}); END`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await recountTrigger(
    db,
    `new.last_read_seq <> old.last_read_seq
      AND NOT (new.last_read_seq > old.last_read_seq AND old.unread_count = 0 AND new.unread_count = 0)`,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await recountTrigger(db, "new.last_read_seq <> old.last_read_seq");
}
