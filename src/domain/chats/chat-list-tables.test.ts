import { expect, test } from "bun:test";
import { migrateToLatest } from "../../db";
import { tempStorages } from "../../testing/temp-storage";
import { CHAT_LIST_TABLES } from "../../cache/registry";
import { USER_COUNTER_COLUMNS } from "../users/table";

/*
 * A statement writing a table outside CHAT_LIST_TABLES is told to the write epoch as changing
 * no chat list (sqlite-dialect.ts), its triggers' and cascades' rows included. That holds only
 * if no trigger or cascade carries a write from such a table into one of them: this test reads
 * the migrated schema's triggers and foreign keys and names any table that would.
 */

const openStorage = tempStorages("chat-list-tables");

/** The part of SQL at bracket depth 0 (a subquery's WHERE is not the statement's). */
function topLevel(sql: string): string {
  let depth = 0;
  let out = "";
  for (const ch of sql) {
    if (ch === "(") depth++;
    if (depth === 0) out += ch;
    else out += " ";
    if (ch === ")") depth--;
  }
  return out;
}

/** The writes in a trigger's body: each statement's kind, table and, for an UPDATE, the columns it may set (over-counted, never under). */
function writesOf(triggerSql: string): Array<{ kind: string; table: string; sets: string[] }> {
  const body = triggerSql.slice(triggerSql.search(/\bBEGIN\b/i) + 5);
  const writes: Array<{ kind: string; table: string; sets: string[] }> = [];
  for (const statement of body.split(";")) {
    const found = /^\s*(UPDATE|INSERT\s+(?:OR\s+\w+\s+)?INTO|REPLACE\s+INTO|DELETE\s+FROM)\s+"?(\w+)"?/i.exec(
      statement,
    );
    if (!found) continue;
    const kind = found[1]!.split(/\s+/)[0]!.toUpperCase();
    let sets: string[] = [];
    if (kind === "UPDATE") {
      const flat = topLevel(statement);
      const setAt = flat.search(/\bSET\b/i);
      const whereAt = flat.slice(setAt).search(/\bWHERE\b/i);
      const clause = flat.slice(setAt + 3, whereAt === -1 ? undefined : setAt + whereAt);
      sets = [...clause.matchAll(/"?(\w+)"?\s*=(?!=)/g)].map((m) => m[1]!);
    }
    writes.push({ kind, table: found[2]!, sets });
  }
  return writes;
}

test("no trigger or cascade carries a write from another table into a table the chat list is read from", async () => {
  const { storage } = openStorage();
  await migrateToLatest(storage.db, { snapshot: false });
  const sqlite = storage.sqlite!;
  const listed = new Set<string>(CHAT_LIST_TABLES);
  const notShown = new Set<string>(USER_COUNTER_COLUMNS);
  const triggers = sqlite
    .query<{ name: string; tbl_name: string; sql: string }, []>(
      "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger'",
    )
    .all();
  expect(triggers.length).toBeGreaterThan(20);
  const reaching: string[] = [];
  for (const trigger of triggers) {
    if (listed.has(trigger.tbl_name)) continue;
    for (const write of writesOf(trigger.sql)) {
      if (!listed.has(write.table)) continue;
      const onlyCounters =
        write.table === "users" && write.kind === "UPDATE" && write.sets.every((c) => notShown.has(c));
      if (!onlyCounters) reaching.push(`${trigger.tbl_name} (trigger ${trigger.name} writes ${write.table})`);
    }
  }
  for (const table of CHAT_LIST_TABLES) {
    const keys = sqlite
      .query<{ table: string; on_delete: string; on_update: string }, []>(
        `SELECT "table", on_delete, on_update FROM pragma_foreign_key_list('${table}')`,
      )
      .all();
    for (const key of keys)
      if (!listed.has(key.table) && /CASCADE|SET/.test(`${key.on_delete} ${key.on_update}`))
        reaching.push(`${key.table} (a cascade into ${table})`);
  }
  expect(reaching).toEqual([]);
  // the counters really are written by triggers of other tables (so the exception is needed and exercised)
  const counterTriggers = triggers.filter(
    (t) => !listed.has(t.tbl_name) && writesOf(t.sql).some((w) => w.table === "users"),
  );
  expect(counterTriggers.length).toBeGreaterThan(0);
  // and every table named exists
  for (const table of CHAT_LIST_TABLES)
    expect([table, sqlite.query(`SELECT count(*) AS n FROM sqlite_master WHERE name = ?`).get(table)]).toEqual([
      table,
      { n: 1 },
    ]);
});

test("the reading of a trigger's writes sees an assignment after a subquery's WHERE, and the statement's own WHERE apart", () => {
  expect(
    writesOf(
      "CREATE TRIGGER t AFTER INSERT ON x BEGIN UPDATE users SET posts_count = (SELECT count(*) FROM posts p WHERE p.id = 1), display_name = 'a' WHERE id = new.id; DELETE FROM messages WHERE id = 1; END",
    ),
  ).toEqual([
    { kind: "UPDATE", table: "users", sets: ["posts_count", "display_name"] },
    { kind: "DELETE", table: "messages", sets: [] },
  ]);
});
