import { afterEach, expect, test } from "bun:test";
import { createLogger } from "../lib/log";
import { createBotViaApi, openChat } from "../testing/botapi";
import { signedInClient } from "../testing/fixtures";
import { withInsertFault } from "../testing/faults";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";

const running: TestServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});

/** A server whose log lines land in LINES, with the request-log keys given. */
async function serverLogging(keys: Record<string, unknown>) {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: "info", sink: (line) => lines.push(JSON.parse(line)) });
  const server = await startTestServer(keys, { log });
  running.push(server);
  const { client } = await signedInClient(server);
  return { server, client, lines };
}

test("sampled: at most log.requestsPerSecond lines a second; the requests beyond are counted in a line of their own", async () => {
  const { server, client, lines } = await serverLogging({ "log.requests": "sampled", "log.requestsPerSecond": 3 });
  lines.length = 0;
  for (let i = 0; i < 12; i++) expect((await client.get("/api/auth/me")).status).toBe(200);
  // a request in the next second writes the count of the last one
  server.clock.advance(1000);
  expect((await client.get("/api/auth/me")).status).toBe(200);
  await waitFor(() => lines.some((l) => l.msg === "request lines skipped"), 5000, "the skipped count");
  const requestLines = lines.filter((l) => l.msg === "request");
  const counts = lines.filter((l) => l.msg === "request lines skipped");
  const skipped = counts.reduce((sum, l) => sum + (l.skipped as number), 0);
  // every request is either a line or counted, and no second has more lines than the key allows
  expect(requestLines.length + skipped).toBe(13);
  expect(skipped).toBeGreaterThan(0);
  const perSecond = Map.groupBy(requestLines, (l) => String(l.time).slice(0, 19));
  for (const inSecond of perSecond.values()) expect(inSecond.length).toBeLessThanOrEqual(3);
});

test("all: a line for every request", async () => {
  const { client, lines } = await serverLogging({ "log.requests": "all", "log.requestsPerSecond": 1 });
  lines.length = 0;
  for (let i = 0; i < 8; i++) await client.get("/api/auth/me");
  await waitFor(() => lines.filter((l) => l.msg === "request").length === 8, 5000, "eight request lines");
  expect(lines.some((l) => l.msg === "request lines skipped")).toBe(false);
});

test("errors: no line for requests answered well, and an answer of 500 is always logged", async () => {
  const { server, client, lines } = await serverLogging({ "log.requests": "errors" });
  await createBotViaApi(client, "log_errors_bot");
  const chat = await openChat(client, "log_errors_bot");
  lines.length = 0;
  expect((await client.get("/api/auth/me")).status).toBe(200);
  const failed = await withInsertFault(server.app.db, "messages", () =>
    client.post(`/api/social/messages/${chat}`, { content: "lost", clientMessageId: "log-errors-1" }),
  );
  expect(failed.status).toBe(500);
  await waitFor(() => lines.some((l) => l.msg === "request"), 5000, "the failed request's line");
  const requestLines = lines.filter((l) => l.msg === "request");
  expect(requestLines.map((l) => [l.method, l.status])).toEqual([["POST", 500]]);
});
