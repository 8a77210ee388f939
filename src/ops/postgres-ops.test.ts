import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setConfigValue } from "../config";
import { isInitialised } from "../config/layout";
import { knownMigrationNames } from "../db";
import { silentLogger } from "../lib/log";
import { openApp } from "../wiring";
import type { App } from "../app";
import { makeUser } from "../testing/fixtures";
import { freshPostgresDatabase } from "../testing/postgres";
import { postgresBinDir } from "./postgres-tools";
import { readEntries } from "../testing/tar";
import { collectStatus } from "./status";
import { PG_DUMP_FILE, createBackup } from "./backup";
import { restoreBackup } from "./restore";
import { readyz } from "./health";
import { runDoctor } from "./doctor";

// the operations of an instance whose database.url names PostgreSQL
let dataDir: string;
let app: App;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "socialctl-pgops-"));
  setConfigValue(dataDir, "database.url", await freshPostgresDatabase({ empty: true }));
  app = await openApp({ dataDir, log: silentLogger });
  await makeUser(app, { username: "pg_person" });
});
afterAll(async () => {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("an instance on PostgreSQL", () => {
  test("is initialised without a SQLite file; /readyz checks PostgreSQL", async () => {
    expect(isInitialised(dataDir)).toBe(true);
    const res = await readyz(app);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ready", checks: { database: "ok" } });
  });

  test("status names the engine and reads the counts and schema from PostgreSQL", async () => {
    const status = await collectStatus(dataDir);
    expect(status.initialised).toBe(true);
    expect(status.database.engine).toBe("postgres");
    expect(status.database.server).toMatch(/^PostgreSQL \d+/);
    expect(status.database.sizeBytes).toBeGreaterThan(0);
    expect(status.counts.accounts).toBe(1);
    expect(status.schema).toEqual({
      version: knownMigrationNames().at(-1)!,
      applied: knownMigrationNames().length,
      pending: [],
      unknown: [],
    });
  });

  test("doctor checks PostgreSQL instead of a database file", async () => {
    const checks = await runDoctor({ dataDir, timeUrl: undefined, timeoutMs: 2_000 });
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName.database).toEqual({
      name: "database",
      status: "ok",
      detail: expect.stringMatching(/^PostgreSQL \d+.* reachable$/),
    });
    expect(byName.migrations!.status).toBe("ok");
  });

  test("backup create holds a pg_dump of the database and says what it covers; restore refuses it by name", async () => {
    const out = join(dataDir, "backups", "pg.tar.gz");
    const result = await createBackup({ dataDir, out });
    expect(result.manifest.database).toEqual({
      engine: "postgres",
      file: PG_DUMP_FILE,
      covers: expect.stringContaining("pg_dump custom format"),
    });
    expect(result.manifest.migrations).toEqual(knownMigrationNames());
    const entries = await readEntries(out);
    const dump = entries.find((e) => e.path === PG_DUMP_FILE)!;
    expect(dump.data.subarray(0, 5).toString()).toBe("PGDMP");
    // pg_restore reads its table of contents: the users table's data is in it
    const dumpFile = join(dataDir, "check.pgdump");
    await Bun.write(dumpFile, dump.data);
    const list = Bun.spawnSync([join(postgresBinDir()!, "pg_restore"), "--list", dumpFile]);
    expect(list.stdout.toString()).toContain("TABLE DATA public users");
    await expect(restoreBackup({ dataDir: join(dataDir, "elsewhere"), file: out })).rejects.toThrow(
      /PostgreSQL instance.*pg_restore/,
    );
  });
});
