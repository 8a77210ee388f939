import { afterEach, expect, test } from "bun:test";
import type { App } from "../app";
import { toIso } from "../lib/clock";
import { createLogger } from "../lib/log";
import { createBotViaApi, openChat } from "../testing/botapi";
import { signedInClient } from "../testing/fixtures";
import { withInsertFault } from "../testing/faults";
import { startTestServer, type TestServer } from "../testing/server";
import { waitFor } from "../testing/wait";
import { requestLineGate } from "./request-log";

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

test("sampled: at most log.requestsPerSecond lines in each second of the clock; the rest are counted when the next second begins", () => {
  let now = 5_000_700;
  const logged: Array<Record<string, unknown>> = [];
  const gate = requestLineGate({
    config: { "log.requests": "sampled", "log.requestsPerSecond": 3 } as App["config"],
    log: createLogger({ level: "info", sink: (line) => logged.push(JSON.parse(line)) }),
    clock: { now: () => now },
  });
  const secondOf = (answers: number) => Array.from({ length: answers }, () => gate(200));
  expect(secondOf(5)).toEqual([true, true, true, false, false]);
  now += 299; // still the same second
  expect(secondOf(2)).toEqual([false, false]);
  expect(logged).toEqual([]);
  now += 1; // the next second: its first answer writes the count of the one before
  expect(secondOf(4)).toEqual([true, true, true, false]);
  expect(logged).toMatchObject([{ msg: "request lines skipped", skipped: 4, second: toIso(5_000_000) }]);
  // an answer of 500 or more is always a line, and takes none of the second's places
  expect(gate(503)).toBe(true);
  now += 3000;
  expect(gate(500)).toBe(true);
  expect(secondOf(4)).toEqual([true, true, true, false]);
  expect(logged.slice(1)).toMatchObject([{ msg: "request lines skipped", skipped: 1, second: toIso(5_001_000) }]);
});

test("sampled, on a server: every request is a line or counted", async () => {
  const { server, client, lines } = await serverLogging({ "log.requests": "sampled", "log.requestsPerSecond": 3 });
  lines.length = 0;
  for (let i = 0; i < 12; i++) expect((await client.get("/api/auth/me")).status).toBe(200);
  // a request in the next second writes the count of the last one
  server.clock.advance(1000);
  expect((await client.get("/api/auth/me")).status).toBe(200);
  await waitFor(() => lines.some((l) => l.msg === "request lines skipped"), 5000, "the skipped count");
  const requestLines = lines.filter((l) => l.msg === "request");
  const skipped = lines
    .filter((l) => l.msg === "request lines skipped")
    .reduce((sum, l) => sum + (l.skipped as number), 0);
  expect(requestLines.length + skipped).toBe(13);
  expect(skipped).toBeGreaterThan(0);
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
