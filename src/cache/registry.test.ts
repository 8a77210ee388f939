import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { migrateToLatest, openStorage } from "../db";
import { CACHES, cacheTable } from "./registry";

const ROOT = join(import.meta.dir, "../..");
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");

describe("the cache registry", () => {
  test("names each cache once, in a file that exists", () => {
    const names = CACHES.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(CACHES.filter((c) => !existsSync(join(ROOT, c.home))).map((c) => c.home)).toEqual([]);
  });

  test("reads each cache from tables of the schema; a stamp's triggers watch every column of its sources it does not ignore", async () => {
    const storage = openStorage(":memory:");
    try {
      await migrateToLatest(storage.db, { snapshot: false });
      const sqlite = storage.sqlite!;
      const tables = new Set((await storage.db.introspection.getTables()).map((t) => t.name));
      const unknown = CACHES.flatMap((c) => c.sources.filter((t) => !tables.has(t)).map((t) => `${c.name}: ${t}`));
      expect(unknown).toEqual([]);
      const stamped = CACHES.filter((c) => c.invalidation === "cache stamp");
      expect(stamped.length).toBeGreaterThan(0);
      const triggers = new Map(
        sqlite
          .query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
          .all()
          .map((t) => [t.name, t.sql]),
      );
      for (const cache of stamped) {
        expect(sqlite.query("SELECT stamp FROM cache_stamps WHERE name = ?").get(cache.name)).toBeTruthy();
        for (const table of cache.sources) {
          const prefix = `cache_stamp_${cache.name.replaceAll("-", "_")}_${table}`;
          for (const event of ["insert", "delete"]) expect(triggers.has(`${prefix}_${event}`)).toBe(true);
          const update = triggers.get(`${prefix}_update`) ?? "";
          const watched = /UPDATE OF ([\w\s,]+?) ON/.exec(update)?.[1]?.split(/\s*,\s*/) ?? [];
          const columns = sqlite
            .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table}')`)
            .all()
            .map((c) => c.name)
            .filter((c) => !(cache.ignores?.[table] ?? []).includes(c));
          expect({ cache: cache.name, table, watched: watched.sort() }).toEqual({
            cache: cache.name,
            table,
            watched: columns.sort(),
          });
        }
      }
    } finally {
      await storage.close();
    }
  });

  test("justifies each cache by rows of scripts/bench.ts", () => {
    // the rows' names as bench.ts writes them, each interpolated count read as N
    const rows = new Set(
      [...read("scripts/bench.ts").matchAll(/name: [`"]([^`"]+)[`"]/g)].map((m) => m[1]!.replace(/\$\{[^}]+\}/g, "N")),
    );
    const missing = CACHES.flatMap((c) => c.bench.filter((row) => !rows.has(row)).map((row) => `${c.name}: ${row}`));
    expect(missing).toEqual([]);
  });

  test("gives a reason for each exception to the default rules, and only for those", () => {
    const sqliteOnly = CACHES.filter((c) => c.invalidation !== "row version" && c.invalidation !== "cache stamp");
    expect(sqliteOnly.filter((c) => !c.exception).map((c) => c.name)).toEqual([]);
    const needless = CACHES.filter((c) => c.exception && !sqliteOnly.includes(c));
    expect(needless.map((c) => c.name)).toEqual([]);
  });

  test("is the table of docs/architecture.md's section Caches", () => {
    const doc = read("docs/architecture.md");
    const shown = /<!-- cache registry: start -->\n([\s\S]*?)\n<!-- cache registry: end -->/.exec(doc)?.[1];
    expect(shown).toBe(cacheTable());
  });
});

if (import.meta.main) console.log(cacheTable());
