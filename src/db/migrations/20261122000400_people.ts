import { sql, type Kysely } from "kysely";

/** Follows, blocks, mutes, notifications, per-account settings, stories and story views. */
export async function up(db: Kysely<any>): Promise<void> {
  const pairTable = async (name: string, a: string, b: string) => {
    await db.schema
      .createTable(name)
      .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
      .addColumn(a, "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn(b, "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
      .addColumn("created_at", "integer", (c) => c.notNull())
      .addUniqueConstraint(`${name}_pair`, [a, b])
      .execute();
    // reverse lookups (who follows me, who blocked me) and paging by time
    await db.schema.createIndex(`${name}_${b}`).on(name).columns([b, "created_at", "id"]).execute();
  };
  await pairTable("follows", "follower_id", "followee_id");
  await db.schema
    .createIndex("follows_follower_time")
    .on("follows")
    .columns(["follower_id", "created_at", "id"])
    .execute();
  await pairTable("blocks", "blocker_id", "blocked_id");
  await pairTable("mutes", "muter_id", "muted_id");

  await db.schema
    .createTable("notifications")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("recipient_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("actor_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("post_id", "integer")
    .addColumn("comment_id", "integer")
    .addColumn("read_at", "integer")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("notifications_recipient")
    .on("notifications")
    .columns(["recipient_id", "created_at", "id"])
    .execute();
  await sql`CREATE INDEX notifications_unread ON notifications (recipient_id) WHERE read_at IS NULL`.execute(db);

  await db.schema
    .createTable("user_settings")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id").onDelete("cascade"))
    .addColumn("who_can_message", "text", (c) => c.notNull().defaultTo("everyone"))
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("stories")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("author_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("media_url", "text", (c) => c.notNull())
    .addColumn("media_kind", "text", (c) => c.notNull())
    .addColumn("thumb_url", "text")
    .addColumn("caption", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("deleted_at", "integer")
    .execute();
  await db.schema.createIndex("stories_author_time").on("stories").columns(["author_id", "created_at", "id"]).execute();
  await db.schema.createIndex("stories_time").on("stories").columns(["created_at"]).execute();

  await db.schema
    .createTable("story_views")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("story_id", "integer", (c) => c.notNull().references("stories.id").onDelete("cascade"))
    .addColumn("viewer_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("viewed_at", "integer", (c) => c.notNull())
    .addUniqueConstraint("story_views_pair", ["story_id", "viewer_id"])
    .execute();
  await db.schema.createIndex("story_views_viewer").on("story_views").columns(["viewer_id"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["story_views", "stories", "user_settings", "notifications", "mutes", "blocks", "follows"]) {
    await db.schema.dropTable(table).execute();
  }
}
