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

describe("a late event loop", () => {
  test("makes the node unready while it runs late, and ready again once it has run on time for a while", async () => {
    const server = await startTestServer({ "readiness.maxEventLoopLagMs": 500 });
    try {
      // a stall, as a stopped or CPU-starved process has: nothing else runs meanwhile
      const until = performance.now() + 1500;
      while (performance.now() < until);
      const late = await fetch(`${server.url}/readyz`);
      expect(late.status).toBe(503);
      const body = (await late.json()) as { status: string; checks: Record<string, string> };
      expect(body.status).toBe("unavailable");
      expect(body.checks.database).toBe("ok");
      expect(body.checks.eventLoop).toContain("readiness.maxEventLoopLagMs");
      // the process is alive all along
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const t0 = performance.now();
      while ((await fetch(`${server.url}/readyz`)).status !== 200) {
        expect(performance.now() - t0).toBeLessThan(20_000);
        await Bun.sleep(250);
      }
    } finally {
      await server.stop();
    }
  });
});

describe("an engine that does not answer", () => {
  test("is reported as such in time, and the node stays ready", async () => {
    // a bucket endpoint that takes connections and never answers, as behind a dropped link
    const held: Array<{ end(): void }> = [];
    const silent = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { open: (socket) => void held.push(socket), data() {} },
    });
    const server = await startTestServer({
      "files.s3.endpoint": `http://127.0.0.1:${silent.port}`,
      "files.s3.bucket": "media",
      "files.s3.region": "us-east-1",
      "files.s3.accessKeyId": "key",
      "files.s3.secretAccessKey": "secret",
    });
    try {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/readyz`);
      expect(performance.now() - t0).toBeLessThan(10_000);
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; checks: Record<string, string>; engines: any };
      expect(body).toMatchObject({ status: "degraded", checks: { database: "ok" } });
      expect(body.engines.files).toMatch(/^s3: no answer within \d+ ms$/);
    } finally {
      await server.stop();
      for (const socket of held) socket.end();
      silent.stop(true);
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
