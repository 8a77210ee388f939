import type { Kysely } from "kysely";

/**
 * Runs CHANGE (an older migration's down and up) with the stamps' triggers lifted: they name the
 * columns they watch (of posts, chats, accounts…), PostgreSQL refuses to drop a column a trigger
 * names, and SQLite's rebuild of a table trips over a trigger whose table is gone.
 */
export async function withoutCacheStamps(tx: Kysely<any>, change: () => Promise<void>): Promise<void> {
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
