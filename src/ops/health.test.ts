import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { dbPath } from "../config/layout";
import { testsOnPostgres } from "../testing/postgres";
import { startTestServer } from "../testing/server";

describe("GET /readyz", () => {
  test("ready while the database answers; 503 naming the cause once it does not", async () => {
    const server = await startTestServer();
    try {
      const ok = await fetch(`${server.url}/readyz`);
      expect(ok.status).toBe(200);
      expect(await ok.json()).toEqual({ status: "ready", checks: { database: "ok" } });
      // the connection going away (as after a failed disk or a shutdown) makes the process unready
      await server.app.storage.close();
      const down = await fetch(`${server.url}/readyz`);
      expect(down.status).toBe(503);
      const body = (await down.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe("unavailable");
      expect(body.checks.database).not.toBe("ok");
      // liveness is another question: the process still answers
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop().catch(() => undefined);
    }
  });
});

describe("database files", () => {
  // PostgreSQL's files are its server's
  test.skipIf(testsOnPostgres())("social.db and its WAL are created owner-only (0600)", async () => {
    const server = await startTestServer();
    try {
      const db = dbPath(server.dataDir);
      expect(statSync(db).mode & 0o777).toBe(0o600);
      expect(statSync(`${db}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      await server.stop();
    }
  });
});
