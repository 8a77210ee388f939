import { sql, type Kysely } from "kysely";

/** Indexes the server's periodic cleanups (src/ops/cleanups.ts) search by, so they never scan whole tables. */
export async function up(db: Kysely<any>): Promise<void> {
  // abandoned uploads: never attached, oldest first
  await sql`CREATE INDEX uploads_unattached ON uploads (created_at) WHERE attached_at IS NULL`.execute(db);
  // deleted stories whose media outlived the retention window
  await sql`CREATE INDEX stories_deleted ON stories (deleted_at) WHERE deleted_at IS NOT NULL`.execute(db);
  // bot updates past their retention, delivered or not
  await db.schema.createIndex("bot_updates_created").on("bot_updates").column("created_at").execute();
  await sql`CREATE INDEX bot_updates_delivered ON bot_updates (delivered_at) WHERE delivered_at IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ["uploads_unattached", "stories_deleted", "bot_updates_created", "bot_updates_delivered"])
    await db.schema.dropIndex(name).ifExists().execute();
}
