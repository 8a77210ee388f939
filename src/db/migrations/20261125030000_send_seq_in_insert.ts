import { sql, type Kysely } from "kysely";

/**
 * A message inserted past its chat's last seq moves the chat on: its last seq, last message
 * time and activity become the message's, before the row lands (so the message's own AFTER
 * triggers, which copy the chat's activity to its members, see the new one). On SQLite a send
 * takes its seq in the INSERT itself (`last_seq + 1` read from the chat in the same statement:
 * one writer, one statement) and leaves the rest to this trigger, one statement fewer than an
 * UPDATE … RETURNING of its own; on PostgreSQL a send still takes the seq with that UPDATE (its
 * row lock orders concurrent sends), and the trigger then finds the chat already moved.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TRIGGER messages_take_seq BEFORE INSERT ON messages BEGIN
    UPDATE conversations SET last_seq = new.seq, last_message_at = new.created_at,
      activity_at = new.created_at, updated_at = new.created_at
    WHERE id = new.conversation_id AND last_seq < new.seq; END`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS messages_take_seq`.execute(db);
}
