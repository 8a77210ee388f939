import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

/**
 * SQLite: people search's name index keeps prefixes of 2 to 6 characters, as posts' does
 * (migration 20261129040100_prefix_search). The word typed is a prefix, and without an index
 * of prefixes FTS5 merged the doclist of every word it starts: a prefix most usernames share
 * cost as many doclists as there are people. PostgreSQL's GIN index is not touched.
 */

/**
 * users_fts again with OPTIONS, rebuilt from the users table (FTS5 takes options only at
 * creation). The users table's triggers that keep it name it only in their bodies, which are
 * resolved when they run: they go on writing to the new one.
 */
async function rebuildPeopleIndex(db: Kysely<any>, options: ReturnType<typeof sql>): Promise<void> {
  await sql`DROP TABLE users_fts`.execute(db);
  await sql`CREATE VIRTUAL TABLE users_fts USING fts5(username, display_name, content = 'users', content_rowid = 'id',
    tokenize = "unicode61 remove_diacritics 2"${options})`.execute(db);
  await sql`INSERT INTO users_fts (users_fts) VALUES ('rebuild')`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await rebuildPeopleIndex(db, sql`, prefix = '2 3 4 5 6'`);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") return;
  await rebuildPeopleIndex(db, sql``);
}
