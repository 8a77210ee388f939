import { sql, type Kysely } from "kysely";

/**
 * cache_stamps: one row per cache kept by stamp (src/cache/stamps.ts), its stamp raised by
 * triggers on every write to the tables the cache is read from, whoever makes it (this process,
 * the CLI, another node, an operator's SQL), so a cached entry kept under an older stamp is not
 * used and no writer has to tell anyone. An UPDATE raises it only when it sets a column the cache
 * shows: the lists below are the tables' columns as of this migration less the ones the cache
 * ignores (src/cache/registry.ts; src/cache/registry.test.ts fails when a column added later is
 * in neither, until a migration extends the trigger).
 */
/** An account's columns but its counters (every post and follow moves those; no cache by stamp shows them). */
export const ACCOUNT_COLUMNS = [
  "id",
  "cuid",
  "email",
  "username",
  "username_lower",
  "display_name",
  "bio",
  "avatar_url",
  "cover_url",
  "cover_video_url",
  "password_hash",
  "is_admin",
  "is_bot",
  "is_system",
  "email_verified_at",
  "disabled_at",
  "posting_blocked_until",
  "two_factor_method",
  "totp_secret",
  "recovery_codes",
  "created_at",
  "updated_at",
  "deleted_at",
  "totp_pending_secret",
  "totp_last_step",
  "profile_version",
];

const STAMPED: Record<string, Record<string, readonly string[]>> = {
  sessions: {
    sessions: [
      "id",
      "cuid",
      "user_id",
      "access_hash",
      "access_expires_at",
      "refresh_hash",
      "prev_refresh_hash",
      "refresh_expires_at",
      "refreshed_at",
      "user_agent",
      "device_id",
      "created_at",
      "revoked_at",
    ],
    users: ACCOUNT_COLUMNS,
    banned_devices: ["id", "device_id", "user_id", "created_at"],
  },
  "send-access": {
    conversations: [
      "id",
      "cuid",
      "type",
      "title",
      "photo_url",
      "private_key",
      "invite_code",
      "created_by",
      "created_at",
      "description",
      "member_count",
      "version",
      "invite_by",
    ],
    conversation_members: [
      "id",
      "conversation_id",
      "user_id",
      "role",
      "rights",
      "joined_at",
      "start_label",
      "promoted_by",
    ],
    users: ACCOUNT_COLUMNS,
    blocks: ["id", "blocker_id", "blocked_id", "created_at"],
  },
  "bot-identities": {
    bots: [
      "id",
      "cuid",
      "user_id",
      "owner_id",
      "token_secret_hash",
      "disabled_at",
      "blocked_at",
      "privacy",
      "description",
      "short_description",
      "commands",
      "allowed_updates",
      "webhook_url",
      "webhook_secret",
      "webhook_last_error_date",
      "webhook_last_error_message",
      "created_at",
      "updated_at",
      "profile_json",
    ],
    users: ACCOUNT_COLUMNS,
  },
};

export const EVENTS = ["insert", "update", "delete"] as const;
export const triggerName = (cache: string, table: string, event: string) =>
  `cache_stamp_${cache.replaceAll("-", "_")}_${table}_${event}`;

/** Triggers raising CACHE's stamp on every insert and deletion in each table of TABLES, and every update of its COLUMNS. */
export async function createStampTriggers(
  db: Kysely<any>,
  cache: string,
  tables: Record<string, readonly string[]>,
): Promise<void> {
  for (const [table, columns] of Object.entries(tables))
    for (const event of EVENTS) {
      const on = event === "update" ? `UPDATE OF ${columns.join(", ")}` : event.toUpperCase();
      await sql
        .raw(
          `CREATE TRIGGER ${triggerName(cache, table, event)} AFTER ${on} ON ${table} BEGIN ` +
            `UPDATE cache_stamps SET stamp = stamp + 1 WHERE name = '${cache}'; END`,
        )
        .execute(db);
    }
}

/** The triggers createStampTriggers made for CACHE on TABLES, dropped. */
export async function dropStampTriggers(db: Kysely<any>, cache: string, tables: readonly string[]): Promise<void> {
  for (const table of tables)
    for (const event of EVENTS) await sql.raw(`DROP TRIGGER IF EXISTS ${triggerName(cache, table, event)}`).execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("cache_stamps")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("stamp", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  for (const [cache, tables] of Object.entries(STAMPED)) {
    await db.insertInto("cache_stamps").values({ name: cache, stamp: 0 }).execute();
    await createStampTriggers(db, cache, tables);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [cache, tables] of Object.entries(STAMPED)) await dropStampTriggers(db, cache, Object.keys(tables));
  await db.schema.dropTable("cache_stamps").execute();
}

/**
 * The migration of a new cache kept by stamp: its row in cache_stamps, at 0, and its triggers on
 * TABLES (each with the columns whose updates raise it); down takes both away.
 */
export function stampMigration(cache: string, tables: Record<string, readonly string[]>) {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.insertInto("cache_stamps").values({ name: cache, stamp: 0 }).execute();
      await createStampTriggers(db, cache, tables);
    },
    async down(db: Kysely<any>): Promise<void> {
      await dropStampTriggers(db, cache, Object.keys(tables));
      await db.deleteFrom("cache_stamps").where("name", "=", cache).execute();
    },
  };
}
