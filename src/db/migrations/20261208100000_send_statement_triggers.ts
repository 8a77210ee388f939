import { sql, type Kysely } from "kysely";
import { currentSchemaOf, engineOf } from "../engine";
import { createMessageSent } from "./20261202100000_messages_fts_queue";
import { createMessagesStored, storedMessageWrites } from "./20261125040000_send_one_trigger";

/**
 * PostgreSQL: what a stored message changes besides its row (messages_stored) and its place in
 * the full-text queue (messages_fts_sent) are done once per INSERT statement, over the rows it
 * stored, where they were done once per row. A moment's sends are one statement there
 * (src/domain/chats/message-row.ts), and a statement run by a trigger has a cost of its own
 * whatever it touches: now the chats of a batch are written by one UPDATE, their memberships
 * by another (each membership once, however many of the batch's messages its chat got), and
 * the queue by one INSERT. A statement that stored one row (a send in a transaction of its own:
 * a bot's, a reply, the first to a chat) runs the row trigger's statements instead, on that row:
 * the set's statement costs more to run than they do for a single row.
 *
 * The results are those of the row trigger (20261125040000_send_one_trigger, as
 * 20261207100000_send_one_member_update left it) run on the rows in seq order within each chat,
 * which is the order every writer of the app inserts them in: the chat takes the newest row's
 * seq and time, and its newest undeleted row as last message; history_version rises by the
 * number of rows stored at or below the chat's last seq; a member who sent some of the rows
 * reads up to the newest of them and counts as unread the undeleted rows of others above it
 * (when that row was stored below the chat's newest, the recount that the mark's move sets off
 * counts, as before); any other member adds the undeleted rows above its mark. SQLite has no
 * statement triggers and keeps the row trigger.
 */

/** The newest seq of the stored rows of member row `m`'s chat that `m` sent, or NULL. */
const OWN_TOP = `(x.tops ->> m.user_id::text)::bigint`;
/**
 * How many of the stored undeleted rows of `m`'s chat are above the seq ABOVE: the number of
 * seqs in the sorted array less those at or below (width_bucket), with no sub-select per member.
 */
const LIVE_ABOVE = (above: string) => `(cardinality(x.live_seqs) - width_bucket(${above}, x.live_seqs))`;

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== "postgres") return;
  const schema = await currentSchemaOf(db);
  await sql`DROP TRIGGER IF EXISTS messages_stored`.execute(db);
  // named as the row trigger's function was, so an older migration's DROP TRIGGER drops it too
  await sql`CREATE FUNCTION messages_stored_fn() RETURNS trigger LANGUAGE plpgsql AS $fn$
  DECLARE one ${schema}.messages;
  BEGIN
    -- one row: the row trigger's statements, cheaper than the set's for it
    IF (SELECT count(*) FROM stored) = 1 THEN
      SELECT * INTO one FROM stored;
      ${storedMessageWrites("one", { historyVersion: true, oneMemberUpdate: true })}
      RETURN NULL;
    END IF;
    WITH b AS (
      SELECT conversation_id, max(seq) AS top_seq, min(seq) AS low_seq,
        (array_agg(created_at ORDER BY seq DESC))[1] AS top_at,
        (array_agg(id ORDER BY seq DESC) FILTER (WHERE deleted_at IS NULL))[1] AS live_id,
        max(seq) FILTER (WHERE deleted_at IS NULL) AS live_seq,
        array_agg(seq ORDER BY seq) AS seqs,
        coalesce(array_agg(seq ORDER BY seq) FILTER (WHERE deleted_at IS NULL), '{}') AS live_seqs
      FROM stored GROUP BY conversation_id),
    -- per chat, each sender's newest seq, by the sender's id
    tops AS (
      SELECT conversation_id, jsonb_object_agg(sender_id, top) AS tops
      FROM (SELECT conversation_id, sender_id, max(seq) AS top FROM stored GROUP BY conversation_id, sender_id) s
      GROUP BY conversation_id),
    chat AS (
      UPDATE ${schema}.conversations c SET
        last_seq = CASE WHEN c.last_seq < b.top_seq THEN b.top_seq ELSE c.last_seq END,
        last_message_at = CASE WHEN c.last_seq < b.top_seq THEN b.top_at ELSE c.last_message_at END,
        activity_at = CASE WHEN c.last_seq < b.top_seq THEN b.top_at ELSE c.activity_at END,
        updated_at = CASE WHEN c.last_seq < b.top_seq THEN b.top_at ELSE c.updated_at END,
        last_message_id = CASE WHEN b.live_seq IS NOT NULL AND (c.last_message_id IS NULL
          OR b.live_seq > (SELECT m.seq FROM ${schema}.messages m WHERE m.id = c.last_message_id))
          THEN b.live_id ELSE c.last_message_id END,
        history_version = c.history_version + width_bucket(c.last_seq, b.seqs)
      FROM b WHERE c.id = b.conversation_id)
    -- the chat as it was before this statement (the UPDATE above is seen only once it ends), so
    -- the members' activity is computed as the chat's new one is. A member who sent a row
    -- stored below the chat's newest may be counted its own rows too: its mark moved, so the
    -- recount trigger (members_unread_read) counts again from the rows
    UPDATE ${schema}.conversation_members m SET
      activity_at = x.activity_at,
      unread_count = CASE WHEN ${sql.raw(OWN_TOP)} > m.last_read_seq AND ${sql.raw(OWN_TOP)} >= x.old_last_seq
        THEN ${sql.raw(LIVE_ABOVE(OWN_TOP))}
        ELSE m.unread_count + ${sql.raw(LIVE_ABOVE("m.last_read_seq"))} END,
      last_read_seq = CASE WHEN ${sql.raw(OWN_TOP)} > m.last_read_seq THEN ${sql.raw(OWN_TOP)} ELSE m.last_read_seq END
    FROM (SELECT b.conversation_id, b.live_seqs, t.tops, c.last_seq AS old_last_seq,
            CASE WHEN c.last_seq < b.top_seq THEN b.top_at ELSE c.activity_at END AS activity_at
          FROM b JOIN tops t ON t.conversation_id = b.conversation_id
          JOIN ${schema}.conversations c ON c.id = b.conversation_id) x
    WHERE m.conversation_id = x.conversation_id;
    RETURN NULL; END $fn$`.execute(db);
  await sql`CREATE TRIGGER messages_stored AFTER INSERT ON messages REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION messages_stored_fn()`.execute(db);
  // the function keeps its name, which 20261202100000_messages_fts_queue's down drops
  await sql`DROP TRIGGER messages_fts_sent ON messages`.execute(db);
  await sql`CREATE OR REPLACE FUNCTION social_message_sent() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
      INSERT INTO ${schema}.messages_fts_queue (message_id)
        SELECT id FROM stored WHERE kind = 'user' AND deleted_at IS NULL ON CONFLICT DO NOTHING;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER messages_fts_sent AFTER INSERT ON messages REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION social_message_sent()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== "postgres") return;
  const schema = await currentSchemaOf(db);
  await sql`DROP TRIGGER IF EXISTS messages_stored`.execute(db);
  await createMessagesStored(db, { historyVersion: true, oneMemberUpdate: true });
  await sql`DROP TRIGGER messages_fts_sent ON messages`.execute(db);
  await createMessageSent(db, schema);
}
