import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeConfigValues } from "../config";
import { inTransaction } from "../db/transaction";
import { TestClient } from "../testing/client";
import { makeUser } from "../testing/fixtures";
import { freshPostgresDatabase } from "../testing/postgres";
import { startTestServer, type TestServer } from "../testing/server";
import { startTestSmtp } from "../testing/smtp";
import { waitFor } from "../testing/wait";
import { enqueueJob, registerJobHandler } from "./queue";

/*
 * Two nodes of one instance on one PostgreSQL database, both running the job worker: every
 * job runs exactly once, whichever node enqueued it, with both claiming at the same time.
 */

// a PostgreSQL cluster and two servers on a shared, loaded machine
setDefaultTimeout(60_000);

let dataDir: string;
let smtp: Awaited<ReturnType<typeof startTestSmtp>>;
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  smtp = await startTestSmtp({ starttls: false });
  dataDir = mkdtempSync(join(tmpdir(), "socialctl-jobs-two-nodes-"));
  storeConfigValues(dataDir, {
    "database.url": await freshPostgresDatabase(),
    "smtp.host": "127.0.0.1",
    "smtp.port": smtp.port,
  });
  a = await startTestServer({}, { dataDir });
  b = await startTestServer({}, { dataDir });
});

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await smtp?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("jobs enqueued through both nodes each run once, on one node or the other", async () => {
  const runs: Array<{ node: string; n: number }> = [];
  for (const [name, node] of [
    ["a", a],
    ["b", b],
  ] as const)
    registerJobHandler(node.app, {
      kind: "two-nodes-count",
      async handle(payload) {
        // long enough that both nodes' workers are busy at once
        await Bun.sleep(5);
        runs.push({ node: name, n: payload as number });
      },
    });
  const total = 200;
  await Promise.all(
    Array.from({ length: total / 10 }, (_, batch) =>
      inTransaction((batch % 2 ? a : b).app.storage, async (scope) => {
        for (let i = 0; i < 10; i++) await enqueueJob(scope, "two-nodes-count", batch * 10 + i);
      }),
    ),
  );
  await waitFor(() => runs.length >= total, 30_000, "every job to run");
  await Bun.sleep(500);
  expect(runs.map((r) => r.n).sort((x, y) => x - y)).toEqual(Array.from({ length: total }, (_, i) => i));
  // both workers took part
  expect(new Set(runs.map((r) => r.node))).toEqual(new Set(["a", "b"]));
  const states = await a.app.db
    .selectFrom("jobs")
    .select(["state", (eb) => eb.fn.countAll<number>().as("count")])
    .where("kind", "=", "two-nodes-count")
    .groupBy("state")
    .execute();
  expect(states.map((s) => ({ state: s.state, count: Number(s.count) }))).toEqual([{ state: "done", count: total }]);
});

test("password resets asked through either node are mailed once each", async () => {
  const users = await Promise.all(Array.from({ length: 10 }, () => makeUser(a.app)));
  for (const [i, user] of users.entries()) {
    const res = await new TestClient((i % 2 ? a : b).url).post("/api/auth/password/forgot", { email: user.email });
    expect(res.status).toBe(200);
  }
  await smtp.waitFor(users.length, 20_000);
  await Bun.sleep(1_000);
  expect(smtp.received.map((m) => m.to[0]).sort()).toEqual(users.map((u) => u.email!).sort());
});
