import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { botCall, botWorld, createBotViaApi, openChat, waitForMessage, type BotWorld } from "../testing/botapi";
import { quickPerson } from "../testing/fixtures";
import { botApiUserId } from "../domain/bots/ids";

// A bot writing first to people it never met: the hourly budget of new chats and the person's say.
const PER_HOUR = 3;
let world: BotWorld;
let token: string;

beforeAll(async () => {
  world = await botWorld({ "limits.botNewChatsPerHour": PER_HOUR });
  token = await createBotViaApi(world.owner, "mailer_bot", "Mailer");
});
afterAll(() => world.server.stop());

const people = (n: number) => Promise.all(Array.from({ length: n }, () => quickPerson(world.server)));
const send = (chatId: number | string, text = "Hello from a bot") =>
  botCall(world.server.url, token, "sendMessage", { chat_id: chatId, text });

describe("bots writing first", () => {
  test("a bot opens at most limits.botNewChatsPerHour chats an hour, answered with the compatible 429", async () => {
    const targets = await people(PER_HOUR + 2);
    for (const t of targets.slice(0, PER_HOUR)) {
      const sent = await send(botApiUserId(t.user.id));
      expect(sent.status).toBe(200);
      expect(sent.body.ok).toBe(true);
    }
    const refused = await send(botApiUserId(targets[PER_HOUR]!.user.id));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${refused.body.parameters.retry_after}`,
      parameters: { retry_after: expect.any(Number) },
    });
    expect(refused.body.parameters.retry_after).toBeGreaterThan(0);
    expect(refused.body.parameters.retry_after).toBeLessThanOrEqual(3600);
    expect(refused.headers.get("retry-after")).toBe(String(refused.body.parameters.retry_after));
    // by @username too: the same budget
    expect((await send(`@${targets[PER_HOUR + 1]!.user.username}`)).status).toBe(429);

    // chats that exist cost nothing: the bot keeps talking to the people it reached
    expect((await send(botApiUserId(targets[0]!.user.id), "Still here")).status).toBe(200);
    // nor do chats a person opened
    const [visitor] = await people(1);
    const cid = await openChat(visitor!.client, "mailer_bot", "hi");
    await waitForMessage(visitor!.client, cid, (m) => m.content === "/start hi");
    expect((await send(botApiUserId(visitor!.user.id), "Welcome")).status).toBe(200);

    // an hour later the budget is back
    world.server.clock.advance(3_600_000 + 1_000);
    expect((await send(botApiUserId(targets[PER_HOUR]!.user.id))).status).toBe(200);
  });

  test("a person who does not let bots write first is answered with the compatible 403; after they write, the bot may", async () => {
    world.server.clock.advance(3_600_000 + 1_000);
    const [shy] = await people(1);
    const settings = await shy!.client.patch("/api/account/settings", { botsMayWriteFirst: false });
    expect(settings.body.data.settings).toEqual({
      whoCanMessage: "everyone",
      botsMayWriteFirst: false,
      language: null,
    });

    const refused = await send(botApiUserId(shy!.user.id));
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      ok: false,
      error_code: 403,
      description: "Forbidden: bot can't initiate conversation with a user",
    });
    // the refusal used none of the budget
    const others = await people(PER_HOUR);
    for (const o of others) expect((await send(botApiUserId(o.user.id))).status).toBe(200);

    expect((await send(botApiUserId((await people(1))[0]!.user.id))).status).toBe(429);

    // the person opens the chat: the bot answers there, with its budget spent
    const cid = await openChat(shy!.client, "mailer_bot");
    expect((await send(botApiUserId(shy!.user.id), "Thanks for writing")).status).toBe(200);
    await waitForMessage(shy!.client, cid, (m) => m.content === "Thanks for writing");
  });
});
