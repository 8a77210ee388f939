import type { Kysely } from "kysely";

/**
 * notification_counts.seen_at: when the person last opened their notifications. The badge
 * counts unread groups with an event after it, so opening the list clears the badge while each
 * group stays unread (and in the Unread filter) until it is read.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("notification_counts")
    .addColumn("seen_at", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("notification_counts").dropColumn("seen_at").execute();
}
