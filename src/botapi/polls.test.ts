import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Bot } from "grammy";
import type { PollAnswer, Poll } from "@grammyjs/types";
import type { TestServer } from "../testing/server";
import type { TestClient } from "../testing/client";
import { signedInClient } from "../testing/fixtures";
import type { UserRow } from "../domain/users/table";
import { botApiUserId } from "../domain/bots/ids";
import { botCall, botWorld, createBotViaApi, history, openChat, waitFor, waitForLongPoll } from "../testing/botapi";
import { WsClient } from "../testing/realtime";

let server: TestServer;
let owner: TestClient;
let person: TestClient;
let personUser: UserRow;
let token: string;
let cid: string;
let chatId: number;

beforeAll(async () => {
  ({ server, owner, person, personUser } = await botWorld());
  token = await createBotViaApi(owner, "poll_votes_bot", "Polls");
  cid = await openChat(person, "poll_votes_bot");
  chatId = botApiUserId(personUser.id);
});
afterAll(() => server.stop());

const call = (method: string, params: Record<string, unknown> = {}) => botCall(server.url, token, method, params);

/** Sends a poll from the bot; returns its message_id and the id the person's app shows. */
async function sendPoll(params: Record<string, unknown>, to = chatId, conversation = cid) {
  const r = await call("sendPoll", { chat_id: to, question: "Tea?", options: ["Green", "Black", "None"], ...params });
  expect(r.body.ok).toBe(true);
  const shown = (await history(person, conversation)).find((m) => m.messageId === r.body.result.message_id);
  return { messageId: r.body.result.message_id as number, mid: shown.id as string, poll: r.body.result.poll as Poll };
}

const vote = (mid: string, options: number[], who = person, conversation = cid) =>
  who.post(`/api/social/messages/${conversation}/${mid}/poll/vote`, { options });
const retract = (mid: string, who = person) => who.delete(`/api/social/messages/${cid}/${mid}/poll/vote`);

/** Drains the bot's queue: every update since the last call. */
let offset = 0;
async function updates(): Promise<any[]> {
  const r = await call("getUpdates", { offset, timeout: 0 });
  const list = r.body.result as any[];
  if (list.length) offset = list[list.length - 1].update_id + 1;
  return list;
}

describe("polls in chats", () => {
  test("open_period and close_date: echoed, and the poll closes on time by the app clock", async () => {
    const sentAt = Math.floor(server.clock.now() / 1000);
    const timed = await sendPoll({ open_period: 60 });
    expect(timed.poll.open_period).toBe(60);
    expect(timed.poll.close_date).toBeGreaterThanOrEqual(sentAt + 60);
    expect(timed.poll.close_date).toBeLessThanOrEqual(sentAt + 62);
    const dated = await sendPoll({ close_date: sentAt + 120 });
    expect(dated.poll.close_date).toBe(sentAt + 120);
    expect(dated.poll.open_period).toBeUndefined();
    expect((await vote(timed.mid, [0])).status).toBe(200);

    server.clock.advance(90_000);
    const late = await vote(timed.mid, [1]);
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe("POLL_CLOSED");
    const shown = (await history(person, cid)).find((m) => m.id === timed.mid);
    expect(shown.poll.isClosed).toBe(true);
    expect((await call("stopPoll", { chat_id: chatId, message_id: timed.messageId })).body.description).toBe(
      "Bad Request: poll has already been closed",
    );
    // the other closes later
    expect((await vote(dated.mid, [2])).status).toBe(200);
    server.clock.advance(60_000);
    expect((await retract(dated.mid)).status).toBe(409);
    await updates();
  });

  test("one answer: vote, counts for everyone, one vote set per person, take back, vote again", async () => {
    await updates();
    const { mid, poll } = await sendPoll({ is_anonymous: false });
    const first = await vote(mid, [1]);
    expect(first.status).toBe(200);
    expect(first.body.data.poll).toMatchObject({
      question: "Tea?",
      totalVoterCount: 1,
      myVotes: [1],
      isClosed: false,
      options: [
        { index: 0, text: "Green", voterCount: 0 },
        { index: 1, text: "Black", voterCount: 1 },
        { index: 2, text: "None", voterCount: 0 },
      ],
    });
    // the stored copy is not shown beside the counted one
    expect(first.body.data.message.extra.poll).toBeUndefined();

    const again = await vote(mid, [0]);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("ALREADY_VOTED");
    const two = await vote(mid, [0, 1]);
    expect(two.status).toBe(400);
    expect(two.body.error.details.fieldErrors.options).toEqual(["this poll takes one answer"]);
    const outOfRange = await vote(mid, [3]);
    expect(outOfRange.status).toBe(400);

    const back = await retract(mid);
    expect(back.status).toBe(200);
    expect(back.body.data.poll).toMatchObject({ totalVoterCount: 0, myVotes: [] });
    expect((await vote(mid, [0])).body.data.poll.options[0].voterCount).toBe(1);

    // the bot got who chose what, then the new counts, in order: vote, take back, vote again
    const got = await updates();
    expect(got.map((u) => Object.keys(u).find((k) => k !== "update_id"))).toEqual([
      "poll_answer",
      "poll",
      "poll_answer",
      "poll",
      "poll_answer",
      "poll",
    ]);
    const answers = got.filter((u) => u.poll_answer).map((u) => u.poll_answer as PollAnswer);
    expect(answers.map((a) => a.option_ids)).toEqual([[1], [], [0]]);
    expect(answers[0]).toEqual({
      poll_id: poll.id,
      user: { id: chatId, is_bot: false, first_name: expect.any(String), username: expect.any(String) },
      option_ids: [1],
      option_persistent_ids: ["1"],
    });
    expect(got[5].poll).toMatchObject({
      id: poll.id,
      total_voter_count: 1,
      options: [
        { text: "Green", voter_count: 1 },
        { text: "Black", voter_count: 0 },
        { text: "None", voter_count: 0 },
      ],
    });
    // the history shows the person's own vote; the Bot API's Message shows the counts
    const shown = (await history(person, cid)).find((m) => m.id === mid);
    expect(shown.poll.myVotes).toEqual([0]);
  });

  test("several answers; an anonymous poll reports counts only; a group's other members see counts live", async () => {
    await updates();
    const friend = await signedInClient(server);
    const g = await person.post("/api/social/groups", { title: "Poll group", members: [friend.user.username] });
    const gid = g.body.data.conversationId as string;
    expect((await person.post(`/api/social/groups/${gid}/members`, { username: "poll_votes_bot" })).status).toBe(200);
    const groupId = -(
      await server.app.db.selectFrom("conversations").select("id").where("cuid", "=", gid).executeTakeFirstOrThrow()
    ).id;
    const { mid, messageId } = await sendPoll({ allows_multiple_answers: true }, groupId, gid);

    const live = await WsClient.open(server.url, friend.client);
    try {
      const mine = await vote(mid, [0, 2], person, gid);
      expect(mine.body.data.poll).toMatchObject({ totalVoterCount: 1, myVotes: [0, 2] });
      const isCounted = (e: { event: string; data: any }) =>
        e.event === "message:edited" && e.data.message.id === mid && e.data.message.poll.totalVoterCount === 1;
      await live.waitFor((frames) => frames.some(isCounted), 5000, "the new counts live");
      const edited = live.frames.find(isCounted)!;
      // what every member gets alike carries the counts, not anyone's own choice
      expect(edited.data.message.poll.options.map((o: { voterCount: number }) => o.voterCount)).toEqual([1, 0, 1]);
      expect(edited.data.message.poll.myVotes).toBeUndefined();
      expect((await vote(mid, [2], friend.client, gid)).body.data.poll).toMatchObject({
        totalVoterCount: 2,
        myVotes: [2],
      });
    } finally {
      live.close();
    }
    const got = (await updates()).filter((u) => u.poll || u.poll_answer);
    // anonymous: no poll_answer, only the new state
    expect(got.map((u) => Object.keys(u)[1] ?? Object.keys(u)[0])).not.toContain("poll_answer");
    expect(got.every((u) => u.poll)).toBe(true);
    expect(got.at(-1).poll).toMatchObject({ total_voter_count: 2, allows_multiple_answers: true, is_anonymous: true });
    expect(got.at(-1).poll.options.map((o: { voter_count: number }) => o.voter_count)).toEqual([1, 0, 2]);

    // stopPoll returns the final Poll; a closed poll takes no votes
    const stopped = await call("stopPoll", { chat_id: groupId, message_id: messageId });
    expect(stopped.body.result).toMatchObject({ is_closed: true, total_voter_count: 2 });
    const late = await vote(mid, [1], friend.client, gid);
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: "POLL_CLOSED", message: "This poll is closed" });
    expect((await call("stopPoll", { chat_id: groupId, message_id: messageId })).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: poll has already been closed",
    });
  });

  test("quiz: one final answer, the correct one shown once answered", async () => {
    // correct_option_ids is the newer form of correct_option_id
    const { mid, poll } = await sendPoll({ type: "quiz", correct_option_ids: [2], explanation: "none is best" });
    expect(poll).toMatchObject({ correct_option_id: 2, correct_option_ids: [2], allows_revoting: false });
    const before = (await history(person, cid)).find((m) => m.id === mid);
    expect(before.poll).toMatchObject({ type: "quiz", correctOptionId: null, explanation: null, myVotes: [] });
    const answered = await vote(mid, [0]);
    expect(answered.body.data.poll).toMatchObject({ correctOptionId: 2, explanation: "none is best", myVotes: [0] });
    const back = await retract(mid);
    expect(back.status).toBe(403);
    expect(back.body.error.message).toBe("A quiz answer cannot be taken back");
  });

  test("stopPoll refusals in the compatible API's words; allowed_updates leaves poll updates out", async () => {
    const text = await call("sendMessage", { chat_id: chatId, text: "no poll here" });
    expect((await call("stopPoll", { chat_id: chatId, message_id: text.body.result.message_id })).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: message with poll to stop not found",
    });
    const { mid } = await sendPoll({ is_anonymous: false });
    const own = await person.post(`/api/social/messages/${cid}/${mid}/forward`, { toConversationId: cid });
    expect((await call("stopPoll", { chat_id: chatId, message_id: own.body.data.message.messageId })).body).toEqual({
      ok: false,
      error_code: 400,
      description: "Bad Request: message can't be edited",
    });

    await updates();
    await call("getUpdates", { offset, timeout: 0, allowed_updates: ["message"] });
    try {
      await vote(mid, [0]);
      expect((await updates()).filter((u) => u.poll || u.poll_answer)).toEqual([]);
    } finally {
      await call("getUpdates", { offset, timeout: 0, allowed_updates: [] });
    }
  });

  test("a grammY bot gets poll_answer from a person's vote and stops the poll", async () => {
    const bot = new Bot(token, { client: { apiRoot: server.url } });
    const answers: PollAnswer[] = [];
    let final: Poll | undefined;
    bot.on("poll_answer", async (ctx) => {
      answers.push(ctx.pollAnswer);
      final = await ctx.api.stopPoll(chatId, polls.get(ctx.pollAnswer.poll_id)!);
    });
    const polls = new Map<string, number>();
    const running = bot.start({ timeout: 1, drop_pending_updates: true });
    try {
      // bot.isRunning() holds before start() has dropped the pending updates: one made meanwhile could go
      await waitForLongPoll(server.app, token);
      const sent = await bot.api.sendPoll(chatId, "Coffee?", [{ text: "Yes" }, { text: "No" }], {
        is_anonymous: false,
      });
      polls.set(sent.poll.id, sent.message_id);
      const shown = (await history(person, cid)).find((m) => m.messageId === sent.message_id);
      expect((await vote(shown.id, [0])).status).toBe(200);
      await waitFor(() => final !== undefined, 10_000, "the bot to stop the poll");
      expect(answers.map((a) => a.option_ids)).toEqual([[0]]);
      expect(final).toMatchObject({ id: sent.poll.id, is_closed: true, total_voter_count: 1 });
      const closed = (await history(person, cid)).find((m) => m.id === shown.id);
      expect(closed.poll).toMatchObject({ isClosed: true, options: [{ voterCount: 1 }, { voterCount: 0 }] });
    } finally {
      await bot.stop();
      await running;
    }
  }, 20_000);
});
