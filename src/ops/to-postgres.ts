import { sha256 } from "../lib/crypto";
import { sql, type Kysely } from "kysely";
import { resolve } from "node:path";
import { parseConfigValue, readConfigFile, storeConfigValues } from "../config";
import { dbPath } from "../config/layout";
import { migrateToLatest, openPostgresStorage, openStorage, pendingMigrations } from "../db";
import { catchUpMessageIndex } from "../domain/search/message-index";
import { postgresFtsPostSearch } from "../domain/search/posts";
import { assertNoServerRunning } from "./server-lock";

export interface TableCopy {
  table: string;
  rows: number;
  /** sha256 over the rows in key order, read back from each side */
  sqlite: string;
  postgres: string;
}

export interface MoveResult {
  tables: TableCopy[];
  /** posts put in the PostgreSQL search index */
  indexedPosts: number;
  ms: number;
}

/**
 * Kysely's own tables, SQLite's search indexes and the queue of the messages' (rebuilt on
 * PostgreSQL, not copied) and the cache
 * stamps (PostgreSQL's migrations make its own: a stamp only has to move, its value means nothing
 * to another database).
 */
const NOT_COPIED =
  /^(kysely_migration|kysely_migration_lock|cache_stamps|posts_fts.*|users_fts.*|messages_fts.*|messages_search_changes|sqlite_.*)$/;
const BATCH = 500;

/**
 * Moves every row of the SQLite instance in DATADIR into the empty PostgreSQL database at URL,
 * then points the instance at it (database.url). The server must be stopped. PostgreSQL gets
 * the same migrations first; the rows go over in one transaction, table by table in an order
 * that respects the foreign keys, keys kept (identity sequences moved past them); the posts'
 * search index is rebuilt from the SQLite index's text, the messages' from the copied messages.
 * Nothing is switched unless every table has the same row count and checksum on both sides.
 * The SQLite file stays as it was.
 */
export async function moveToPostgres(
  dataDirInput: string,
  url: string,
  onProgress?: (p: { table: string; done: number; total: number }) => void,
): Promise<MoveResult> {
  const t0 = performance.now();
  const dataDir = resolve(dataDirInput);
  parseConfigValue("database.url", url);
  if (!url) throw new Error("give the PostgreSQL database's URL: postgres://user:pass@host:port/db");
  if (readConfigFile(dataDir)["database.url"]) throw new Error(`${dataDir} is already on PostgreSQL (database.url)`);
  assertNoServerRunning(dataDir, "moving its data");
  const lite = openStorage(dbPath(dataDir));
  const pg = openPostgresStorage(url);
  try {
    const pending = await pendingMigrations(lite.db);
    if (pending.length) throw new Error(`the SQLite database has pending migrations: run 'socialctl migrate' first`);
    await migrateToLatest(pg.db);
    const tables = await copyOrder(lite.db as Kysely<any>, pg.db as Kysely<any>);
    for (const t of tables) {
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(t.name)}`.execute(pg.db);
      if (Number(rows[0]!.n) > 0) throw new Error(`the PostgreSQL database is not empty (table ${t.name} has rows)`);
    }
    let indexedPosts = 0;
    await pg.db.transaction().execute(async (trx) => {
      // the copied rows carry their counter columns (likes, followers, unread, members) already:
      // the triggers that keep them would count every copied child row a second time
      for (const t of tables) await sql`ALTER TABLE ${sql.table(t.name)} DISABLE TRIGGER USER`.execute(trx);
      for (const t of tables) {
        const total = await countRows(lite.db as Kysely<any>, t.name);
        let done = 0;
        for await (const batch of readBatches(lite.db as Kysely<any>, t.name, t.key)) {
          await (trx as Kysely<any>).insertInto(t.name).values(batch).execute();
          done += batch.length;
          onProgress?.({ table: t.name, done, total });
        }
        if (t.identity)
          await sql`SELECT setval(pg_get_serial_sequence(${t.name}, 'id'), coalesce(max(id), 0) + 1, false) FROM ${sql.table(t.name)}`.execute(
            trx,
          );
      }
      // the text SQLite indexed (normalised as the search module left it), indexed the PostgreSQL way
      const { rows } = await sql<{ id: number; body: string }>`SELECT rowid AS id, body FROM posts_fts`.execute(
        lite.db,
      );
      for (const r of rows) await postgresFtsPostSearch.indexPost(trx, r.id, r.body);
      indexedPosts = rows.length;
      for (const t of tables) await sql`ALTER TABLE ${sql.table(t.name)} ENABLE TRIGGER USER`.execute(trx);
      // the copy passed the triggers that queue messages for the search index
      await sql`INSERT INTO messages_fts_queue (message_id)
        SELECT id FROM messages WHERE kind = 'user' AND deleted_at IS NULL`.execute(trx);
    });
    await catchUpMessageIndex(pg);
    const copies: TableCopy[] = [];
    for (const t of tables) {
      const [a, b] = [await checksum(lite.db as Kysely<any>, t), await checksum(pg.db as Kysely<any>, t)];
      copies.push({ table: t.name, rows: a.rows, sqlite: a.sha256, postgres: b.sha256 });
      if (a.rows !== b.rows || a.sha256 !== b.sha256)
        throw new Error(
          `table ${t.name} differs after the copy (${a.rows} rows, ${a.sha256.slice(0, 12)} on SQLite; ${b.rows} rows, ${b.sha256.slice(0, 12)} on PostgreSQL): the instance stays on SQLite`,
        );
    }
    storeConfigValues(dataDir, { "database.url": url });
    return { tables: copies, indexedPosts, ms: performance.now() - t0 };
  } finally {
    await Promise.all([lite.close(), pg.close()]);
  }
}

interface CopiedTable {
  name: string;
  /** the primary key's columns: the order rows are read and compared in */
  key: string[];
  /** an `id` identity column whose sequence must move past the copied ids */
  identity: boolean;
}

/** The tables to copy, each after the tables its foreign keys point at (PostgreSQL's catalog says which). */
async function copyOrder(lite: Kysely<any>, pg: Kysely<any>): Promise<CopiedTable[]> {
  const names = (await lite.introspection.getTables()).map((t) => t.name).filter((n) => !NOT_COPIED.test(n));
  const { rows: refs } = await sql<{ child: string; parent: string }>`
    SELECT c.conrelid::regclass::text AS child, c.confrelid::regclass::text AS parent
    FROM pg_constraint c WHERE c.contype = 'f'`.execute(pg);
  const { rows: identities } = await sql<{ table: string }>`
    SELECT table_name AS table FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'id' AND is_identity = 'YES'`.execute(pg);
  const identity = new Set(identities.map((r) => r.table));
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    for (const r of refs) if (r.child === name && r.parent !== name) visit(r.parent, path);
    ordered.push(name);
  };
  for (const name of names.sort()) visit(name, new Set());
  const out: CopiedTable[] = [];
  for (const name of ordered.filter((n) => names.includes(n))) {
    const { rows } = await sql<{ name: string; pk: number }>`SELECT name, pk FROM pragma_table_info(${name})`.execute(
      lite,
    );
    const key = rows
      .filter((r) => r.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((r) => r.name);
    out.push({ name, key: key.length ? key : ["rowid"], identity: identity.has(name) });
  }
  return out;
}

async function countRows(db: Kysely<any>, table: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db);
  return Number(rows[0]!.n);
}

/** TABLE's rows in KEY order, BATCH at a time. */
async function* readBatches(db: Kysely<any>, table: string, key: string[]): AsyncGenerator<Record<string, unknown>[]> {
  let offset = 0;
  for (;;) {
    // a self-reference (a repost, a reply) points at an older, smaller key: key order keeps it valid
    let q = db.selectFrom(table).selectAll();
    for (const k of key) q = q.orderBy(k);
    const rows = await q.limit(BATCH).offset(offset).execute();
    if (rows.length) yield rows;
    if (rows.length < BATCH) return;
    offset += rows.length;
  }
}

/**
 * Row count and sha256 of TABLE: each row hashed as its values in column-name order, the row
 * hashes sorted (the engines order text keys by different collations) and hashed together.
 */
async function checksum(db: Kysely<any>, t: CopiedTable): Promise<{ rows: number; sha256: string }> {
  const rowHashes: string[] = [];
  for await (const batch of readBatches(db, t.name, t.key))
    for (const row of batch)
      rowHashes.push(
        sha256()
          .update(
            JSON.stringify(
              Object.keys(row)
                .sort()
                .map((k) => row[k] ?? null),
            ),
          )
          .digest("hex"),
      );
  const hash = sha256();
  for (const h of rowHashes.sort()) hash.update(h);
  return { rows: rowHashes.length, sha256: hash.digest("hex") };
}
