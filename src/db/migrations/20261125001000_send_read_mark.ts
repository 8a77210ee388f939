import { sql, type Kysely } from "kysely";

/**
 * One's own message is read by oneself: the sender's read marker moves to a message in the
 * statement that stores it (a trigger), instead of an UPDATE of its own after every send. The
 * marker never moves back (a message inserted with an older seq, an import, leaves it), and a
 * sender who is not a member (a system message) has no marker to move. Moving it recounts the
 * sender's unread messages as before (members_unread_read).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TRIGGER messages_read_own AFTER INSERT ON messages BEGIN
    UPDATE conversation_members SET last_read_seq = new.seq
    WHERE conversation_id = new.conversation_id AND user_id = new.sender_id AND last_read_seq < new.seq; END`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS messages_read_own`.execute(db);
}
