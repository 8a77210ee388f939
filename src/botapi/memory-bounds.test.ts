import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { App } from "../app";
import { MemoryLeases } from "../cluster/leases";
import { botLogOf } from "../domain/bots/log";
import { accountIdOf, botApiUserId } from "../domain/bots/ids";
import { findBotByUserId } from "../domain/bots/service";
import { botRuntime, refusalHoldMs } from "../domain/bots/updates";
import { answerQuery, openQuery } from "../domain/payments/checkout";
import {
  botCall,
  botWorld,
  createBotViaApi,
  openChat,
  waitFor,
  waitForLongPoll,
  type BotWorld,
} from "../testing/botapi";

/*
 * Every in-process collection of the Bot API that grows with use has a bound (limits.*):
 * each test fills one past it and checks what went, that nothing acknowledged was lost (updates
 * are rows until a bot acknowledges them), and that the service still answers.
 */

let world: BotWorld;
beforeAll(
  async () =>
    void (world = await botWorld({
      "bot.allowPrivateWebhooks": true,
      "limits.longPolls": 2,
      "limits.pollingBots": 2,
      "limits.botAnswerWaits": 1,
      "limits.botLogBots": 2,
      "limits.webhookDeliveries": 1,
    })),
);
afterAll(() => world.server.stop());

const botIdOf = async (app: App, token: string): Promise<number> =>
  (await findBotByUserId(app.db, accountIdOf(Number(token.split(":")[0]))))!.bot.id;

const getUpdates = (token: string, params: Record<string, unknown>) =>
  botCall(world.server.url, token, "getUpdates", params);

describe("limits.longPolls", () => {
  test("past the bound the call parked longest answers at once with nothing; the others wait on and get their updates", async () => {
    const { app } = world.server;
    const tokens = [];
    for (const name of ["parked_a_bot", "parked_b_bot", "parked_c_bot"])
      tokens.push(await createBotViaApi(world.owner, name));
    const [a, b, c] = tokens as [string, string, string];
    const pollA = getUpdates(a, { timeout: 25 });
    await waitForLongPoll(app, a);
    const pollB = getUpdates(b, { timeout: 25 });
    await waitForLongPoll(app, b);
    const started = performance.now();
    const pollC = getUpdates(c, { timeout: 25 });
    await waitForLongPoll(app, c);

    const first = await pollA;
    expect(first.status).toBe(200);
    expect(first.body.result).toEqual([]);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect([...botRuntime(app).waiters.keys()]).toEqual([await botIdOf(app, b), await botIdOf(app, c)]);

    // a message to the bot still parked reaches it
    await openChat(world.person, "parked_b_bot", "hello");
    const second = await pollB;
    expect(second.status).toBe(200);
    expect(second.body.result[0].message.text).toBe("/start hello");

    // a newer call for C ends its parked one (409) and is answered
    const again = await getUpdates(c, { timeout: 0 });
    expect(again.status).toBe(200);
    expect((await pollC).status).toBe(409);
    // A's updates were never lost: what was queued while it was cut short is there
    await openChat(world.person, "parked_a_bot", "later");
    expect((await getUpdates(a, { timeout: 0 })).body.result[0].message.text).toBe("/start later");
  }, 30_000);
});

describe("limits.pollingBots", () => {
  test("the newest getUpdates call and held conflicts are remembered for the bots heard from last", async () => {
    const { app } = world.server;
    const tokens = [];
    for (const name of ["seen_a_bot", "seen_b_bot", "seen_c_bot"])
      tokens.push(await createBotViaApi(world.owner, name));
    for (const token of tokens) expect((await getUpdates(token, { timeout: 0 })).status).toBe(200);
    const ids = await Promise.all(tokens.map((token) => botIdOf(app, token)));
    const rt = botRuntime(app);
    expect([...rt.newest.keys()]).toEqual(ids.slice(1));

    // a conflict is answered at once the first time within the hold, then held
    for (const id of ids) expect(refusalHoldMs(app, id, "poll-conflict")).toBe(0);
    expect([...rt.conflictsHeldUntil.keys()]).toEqual(ids.slice(1));
    expect(refusalHoldMs(app, ids[2]!, "poll-conflict")).toBeGreaterThan(0);
    // the forgotten bot's next conflict is answered at once, as after its hold ran out
    expect(refusalHoldMs(app, ids[0]!, "poll-conflict")).toBe(0);

    // the forgotten bot still polls as before
    expect((await getUpdates(tokens[0]!, { timeout: 0 })).status).toBe(200);
  });
});

describe("limits.botAnswerWaits", () => {
  test("a second button press ends the first one's wait without an answer; the second gets its answer", async () => {
    const { server, person, personUser } = world;
    const token = await createBotViaApi(world.owner, "buttons_bot");
    const cid = await openChat(person, "buttons_bot");
    const chatId = botApiUserId(personUser.id);
    const menus = [];
    for (const data of ["one", "two"]) {
      const sent = await botCall(server.url, token, "sendMessage", {
        chat_id: chatId,
        text: data,
        reply_markup: { inline_keyboard: [[{ text: data, callback_data: data }]] },
      });
      expect(sent.status).toBe(200);
      menus.push(sent.body.result.message_id as number);
    }
    const pressOne = person.post(`/api/social/messages/${cid}/${menus[0]}/callback`, { data: "one" });
    const one = await getUpdates(token, { timeout: 10 });
    expect(one.body.result[0].callback_query.data).toBe("one");

    const pressTwo = person.post(`/api/social/messages/${cid}/${menus[1]}/callback`, { data: "two" });
    const first = await pressOne;
    expect(first.status).toBe(200);
    expect(first.body.data.answer).toBeNull();

    const two = await getUpdates(token, { offset: one.body.result[0].update_id + 1, timeout: 10 });
    const query = two.body.result[0].callback_query;
    expect(query.data).toBe("two");
    const answered = await botCall(server.url, token, "answerCallbackQuery", {
      callback_query_id: query.id,
      text: "2",
    });
    expect(answered.status).toBe(200);
    const second = await pressTwo;
    expect(second.status).toBe(200);
    expect(second.body.data.answer.text).toBe("2");
  }, 30_000);

  test("a second pre-checkout query ends the first as at its timeout (a late answer is refused); the second is answered", async () => {
    const { app } = world.server;
    const botId = await botIdOf(app, await createBotViaApi(world.owner, "checkout_bot"));
    const first = await openQuery(app, botId, 20_000);
    const second = await openQuery(app, botId, 20_000);
    expect(await first.answer).toBeNull();
    expect(await answerQuery(app, botId, first.id, { ok: true, errorMessage: null })).toBe(false);
    expect(await answerQuery(app, botId, second.id, { ok: true, errorMessage: null })).toBe(true);
    expect(await second.answer).toEqual({ ok: true, errorMessage: null });
  });
});

describe("limits.botLogBots", () => {
  test("the developer log is kept for the bots that called last; a forgotten bot's log starts again", async () => {
    const { server, owner } = world;
    const names = ["log_a_bot", "log_b_bot", "log_c_bot"];
    const tokens = [];
    for (const name of names) tokens.push(await createBotViaApi(owner, name));
    for (const token of tokens) expect((await botCall(server.url, token, "getMe")).status).toBe(200);
    const logOf = async (name: string) => {
      const res = await owner.get(`/api/bots/${name}/log`);
      expect(res.status).toBe(200);
      return (res.body.data.entries as any[]).map((e) => e.method);
    };
    expect(botLogOf(server.app).botCount()).toBe(2);
    expect(await logOf("log_a_bot")).toEqual([]);
    expect(await logOf("log_b_bot")).toEqual(["getMe"]);
    expect(await logOf("log_c_bot")).toEqual(["getMe"]);

    expect((await botCall(server.url, tokens[0]!, "getChat", { chat_id: 1 })).status).toBe(400);
    expect(await logOf("log_a_bot")).toEqual(["getChat"]);
    expect(await logOf("log_b_bot")).toEqual([]);
    expect(await logOf("log_c_bot")).toEqual(["getMe"]);
  });
});

describe("limits.webhookDeliveries", () => {
  test("one bot's webhook is sent to at a time; the other's updates wait in the database and follow", async () => {
    const { server, person } = world;
    let open = 0;
    let mostOpen = 0;
    const received: string[] = [];
    const releases: Array<() => void> = [];
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      async fetch(req) {
        const update = (await req.json()) as { message: { text: string } };
        mostOpen = Math.max(mostOpen, ++open);
        received.push(update.message.text);
        await new Promise<void>((resolve) => releases.push(resolve));
        open--;
        return Response.json({});
      },
    });
    try {
      for (const name of ["hook_a_bot", "hook_b_bot"]) {
        const token = await createBotViaApi(world.owner, name);
        const set = await botCall(server.url, token, "setWebhook", { url: `${receiver.url}${name}` });
        expect(set.status).toBe(200);
      }
      await openChat(person, "hook_a_bot", "a");
      await openChat(person, "hook_b_bot", "b");
      await waitFor(() => received.length === 1, 10_000, "the first webhook POST");
      // the other bot's update does not go while the first POST is open
      await Bun.sleep(700);
      expect(received.length).toBe(1);
      releases.shift()!();
      await waitFor(() => received.length === 2, 10_000, "the second webhook POST");
      releases.shift()!();
      expect(received.sort()).toEqual(["/start a", "/start b"]);
      expect(mostOpen).toBe(1);
    } finally {
      for (const release of releases) release();
      receiver.stop(true);
    }
  }, 30_000);
});

test("in-memory leases number getUpdates calls without remembering each bot", async () => {
  const leases = new MemoryLeases();
  const seen = [await leases.next("poll:1"), await leases.next("poll:2"), await leases.next("poll:1")];
  expect(seen).toEqual([1, 2, 3]);
});

test("limits.heldRefusals: past the bound a refusal is answered at once, not held", async () => {
  const held = await botWorld({
    "limits.botCallsPerMinute": 1,
    "limits.botRefusalHoldMs": 4_000,
    "limits.heldRefusals": 1,
  });
  try {
    const token = await createBotViaApi(held.owner, "flood_bot");
    expect((await botCall(held.server.url, token, "getMe")).status).toBe(200);
    const first = botCall(held.server.url, token, "getMe");
    await waitFor(() => botRuntime(held.server.app).holds.size === 1, 5_000, "the first refusal to be held");
    const started = performance.now();
    const second = await botCall(held.server.url, token, "getMe");
    expect(second.status).toBe(429);
    // far sooner than the hold: answered at once, not held
    expect(performance.now() - started).toBeLessThan(2_500);
    expect(botRuntime(held.server.app).holds.size).toBe(1);
    expect((await first).status).toBe(429);
    expect(botRuntime(held.server.app).holds.size).toBe(0);
  } finally {
    held.server.stop();
  }
});
