import { sql, type Kysely } from "kysely";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { BACKUPS_DIR, PRE_MIGRATE_RE, fileStamp } from "../config/layout";
import { engineOf } from "./engine";

/** Pre-migration snapshots kept beside the backups; older ones are removed. */
export const PRE_MIGRATE_KEEP = 3;

/**
 * Before migrations run on a database that has data (at least one applied migration),
 * a full copy goes to <data-dir>/backups/pre-migrate-<time>.db. Returns its path, or null
 * for a fresh or in-memory database, and on PostgreSQL: there a failed migration rolls back
 * whole (DDL is transactional) and copies of the database are the operator's backups'.
 */
export async function snapshotBeforeMigrate(db: Kysely<any>, now = Date.now()): Promise<string | null> {
  if (engineOf(db) === "postgres") return null;
  const list = await sql<{ name: string; file: string }>`PRAGMA database_list`.execute(db);
  const file = list.rows.find((r) => r.name === "main")?.file;
  if (!file) return null;
  const hasHistory = await sql<{
    n: number;
  }>`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'`.execute(db);
  if (!hasHistory.rows[0]?.n) return null;
  const applied = await sql<{ n: number }>`SELECT count(*) AS n FROM kysely_migration`.execute(db);
  if (!applied.rows[0]?.n) return null;
  const dir = join(dirname(file), BACKUPS_DIR);
  mkdirSync(dir, { recursive: true });
  const target = join(dir, `pre-migrate-${fileStamp(now)}.db`);
  await sql`VACUUM INTO ${target}`.execute(db);
  prunePreMigrate(dir);
  return target;
}

function prunePreMigrate(dir: string): void {
  if (!existsSync(dir)) return;
  const old = readdirSync(dir)
    .filter((n) => PRE_MIGRATE_RE.test(n))
    .sort()
    .reverse()
    .slice(PRE_MIGRATE_KEEP);
  for (const name of old) rmSync(join(dir, name), { force: true });
}
