import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cliHarness, startServeProcess } from "../../src/testing/cli";
import { TestClient } from "../../src/testing/client";

const { dataDir, run, runJson, cleanup } = cliHarness();
afterAll(cleanup);
// several server starts and kills; a loaded machine makes each start slow
setDefaultTimeout(120_000);

const SENDERS = 16;
const KILLS = 6;

/** `socialctl serve` in its own process on a free loopback port, once it listens. */
async function startServe(): Promise<{ proc: ReturnType<typeof Bun.spawn>; url: string }> {
  const { proc, listening } = await startServeProcess(dataDir);
  return { proc, url: listening.url };
}

/** A client for URL carrying the session (cookies and CSRF token) of FROM: sessions outlive the process. */
function sameSession(from: TestClient, url: string): TestClient {
  const client = new TestClient(url);
  for (const [k, v] of from.cookies) client.cookies.set(k, v);
  client.csrf = from.csrf;
  return client;
}

describe("SIGKILL under load", () => {
  test("no acknowledged message, and no bot update of one, is lost or duplicated across kills", async () => {
    expect((await run("init", "--yes", "--registration", "open")).code).toBe(0);
    for (const [key, value] of [
      ["limits.messagesPerMinute", "1000000"],
      ["limits.clientRps", "1000000"],
      ["limits.blockAfterRejections", "100000000"],
    ]) {
      expect((await run("config", "set", key, value)).code).toBe(0);
    }
    expect(
      (
        await run(
          "user",
          "create",
          "--email",
          "ann@example.test",
          "--username",
          "ann",
          "--password",
          "ann password",
          "--verified",
        )
      ).code,
    ).toBe(0);
    const bot = await runJson("bot", "create", "--owner", "ann", "--username", "sink_bot", "--name", "Sink");
    expect(bot.code).toBe(0);
    const token = bot.json.token as string;

    let server = await startServe();
    let client = new TestClient(server.url);
    expect((await client.login("ann@example.test", "ann password")).status).toBe(200);
    const opened = await client.post("/api/social/users/sink_bot/message", {});
    expect(opened.status).toBe(200);
    const cid = opened.body.data.conversationId as string;

    const acknowledged = new Set<number>();
    const unanswered = new Set<number>();
    let next = 0;
    const send = async (c: TestClient, i: number): Promise<boolean> => {
      try {
        const res = await c.post(`/api/social/messages/${cid}`, { content: `m${i}`, clientMessageId: `k${i}` });
        if (res.status === 200) {
          acknowledged.add(i);
          unanswered.delete(i);
          return true;
        }
        unanswered.add(i);
        return false;
      } catch {
        // the connection died with the server: whether it was stored is unknown until the retry
        unanswered.add(i);
        return false;
      }
    };

    for (let round = 0; round < KILLS; round++) {
      const c = client;
      let alive = true;
      const senders = Array.from({ length: SENDERS }, async () => {
        // bounded: each sender stops at the kill, or after 200 sends at most
        for (let n = 0; alive && n < 200; n++) if (!(await send(c, next++))) return;
      });
      await Bun.sleep(300 + Math.floor(Math.random() * 500));
      server.proc.kill("SIGKILL");
      alive = false;
      await server.proc.exited;
      await Promise.all(senders);
      server = await startServe();
      client = sameSession(client, server.url);
    }
    // the person retries what got no answer, with the same clientMessageId
    for (const i of [...unanswered]) expect(await send(client, i)).toBe(true);
    expect(acknowledged.size).toBeGreaterThan(SENDERS);

    // every acknowledged message is in the chat exactly once
    const contents: string[] = [];
    let before: string | null = null;
    for (let page = 0; page < 1_000; page++) {
      const res: { status: number; body: any } = await client.get(
        `/api/social/messages/${cid}?limit=100${before ? `&before=${before}` : ""}`,
      );
      expect(res.status).toBe(200);
      contents.push(...res.body.data.messages.map((m: { content: string }) => m.content));
      before = res.body.data.pageInfo.nextCursor;
      if (!before) break;
    }
    const stored = contents.filter((c) => /^m\d+$/.test(c));
    expect(new Set(stored).size).toBe(stored.length);
    expect(new Set(stored)).toEqual(new Set([...acknowledged].map((i) => `m${i}`)));

    // and the bot gets exactly one update for each
    const texts: string[] = [];
    let offset = 0;
    for (let page = 0; page < 1_000; page++) {
      const res = await fetch(`${server.url}/bot${token}/getUpdates`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ offset, timeout: 0, limit: 100 }),
      });
      const updates = ((await res.json()) as { result: Array<{ update_id: number; message?: { text?: string } }> })
        .result;
      if (!updates.length) break;
      texts.push(...updates.map((u) => u.message?.text ?? ""));
      offset = updates.at(-1)!.update_id + 1;
    }
    const delivered = texts.filter((t) => /^m\d+$/.test(t));
    expect(delivered.length).toBe(acknowledged.size);
    expect(new Set(delivered)).toEqual(new Set(stored));

    server.proc.kill("SIGTERM");
    await server.proc.exited;
  });
});
