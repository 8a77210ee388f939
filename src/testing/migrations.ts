import type { Kysely } from "kysely";

/**
 * Runs CHANGE (an older migration's down and up) with the stamps' triggers lifted: they name the
 * columns they watch (of posts, chats, accounts…), PostgreSQL refuses to drop a column a trigger
 * names, and SQLite's rebuild of a table trips over a trigger whose table is gone.
 */
async function withoutCacheStamps(tx: Kysely<any>, change: () => Promise<void>): Promise<void> {
  const { migrations } = await import("../db/migrations");
  // every migration that makes stamps or their triggers (the cache stamps, the chat list's), newest first
  const stamps = Object.keys(migrations)
    .filter((name) => name.includes("stamp"))
    .sort()
    .reverse()
    .map((name) => migrations[name]!);
  for (const migration of stamps) await migration.down!(tx);
  await change();
  for (const migration of stamps.reverse()) await migration.up(tx);
}

/**
 * Runs the down of the migrations NAMES, newest first, then their up, oldest first, in one
 * transaction on DB with the stamps' triggers lifted: how a test checks one migration's backfill.
 * It names with it every later migration that must step aside: a later column of the same table
 * (dropped first, it comes back after, in its order: PostgreSQL's cached plans of `SELECT *`
 * refuse another order) or a later trigger that reads the column.
 */
export async function rerunMigrations(db: Kysely<any>, names: string[]): Promise<void> {
  const { migrations } = await import("../db/migrations");
  // a name starts with its time, so sorted is oldest first
  const oldestFirst = [...names].sort().map((name) => {
    const migration = migrations[name];
    if (!migration) throw new Error(`no migration ${name}`);
    return migration;
  });
  await db.transaction().execute((tx) =>
    withoutCacheStamps(tx, async () => {
      for (const migration of [...oldestFirst].reverse()) await migration.down!(tx);
      for (const migration of oldestFirst) await migration.up(tx);
    }),
  );
}
