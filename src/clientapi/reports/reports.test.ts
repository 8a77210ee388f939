import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { adminWorld, auditEntries, expectError } from "../../testing/admin";
import { botCall, createBotViaApi, openChat } from "../../testing/botapi";
import type { TestClient } from "../../testing/client";
import { quickPerson } from "../../testing/fixtures";
import { uploadFor } from "../../testing/media";
import type { TestServer } from "../../testing/server";

let server: TestServer;
let admin: TestClient;
let adminName: string;
let person: TestClient;

beforeAll(async () => {
  ({ server, admin, adminName, person } = await adminWorld({ "limits.reportsPerHour": 3 }));
});
afterAll(() => server.stop());

type Person = Awaited<ReturnType<typeof quickPerson>>;

const report = (who: Person, type: string, id: string, reason = "spam", comment?: string) =>
  who.client.post("/api/social/reports", { target: { type, id }, reason, ...(comment ? { comment } : {}) });

async function postBy(author: Person, content: string): Promise<string> {
  const res = await author.client.post("/api/social/posts", { content });
  expect(res.status).toBe(200);
  return res.body.data.post.id;
}

/** The open queue's group whose target has id ID. */
async function openGroup(id: string): Promise<any> {
  const res = await admin.get("/api/admin/reports?status=open&limit=100");
  expect(res.status).toBe(200);
  return (res.body.data.groups as any[]).find((g) => g.target.id === id);
}

const resolve = (reportId: string, body: Record<string, unknown>) =>
  admin.post(`/api/admin/reports/${reportId}/resolve`, body);

const notificationsOf = async (who: Person) =>
  (await who.client.get("/api/social/notifications")).body.data.notifications as any[];

describe("reporting", () => {
  test("a repeat report of an open target is the same report; a person sees their own reports", async () => {
    const author = await quickPerson(server);
    const reader = await quickPerson(server);
    const postId = await postBy(author, "Buy cheap watches");
    const first = await report(reader, "post", postId, "spam", "  an advert  ");
    expect(first.status).toBe(200);
    expect(first.body.data.report).toMatchObject({ status: "open" });
    const again = await report(reader, "post", postId, "abuse");
    expect(again.body.data.report.id).toBe(first.body.data.report.id);

    const mine = (await reader.client.get("/api/social/reports")).body.data;
    expect(mine.reports).toEqual([
      {
        id: first.body.data.report.id,
        status: "open",
        target: { type: "post", id: postId, label: `Post by @${author.user.username}` },
        reason: "spam",
        comment: "an advert",
        resolution: null,
        createdAt: expect.any(String),
      },
    ]);
    expect(mine.pageInfo).toEqual({ nextCursor: null });
    // and in the person's data export
    const exported = (await reader.client.get("/api/account/export")).body.data.export.reports;
    expect(exported).toEqual([
      expect.objectContaining({ id: first.body.data.report.id, target: { type: "post", id: postId }, status: "open" }),
    ]);
  });

  test("nobody reports themselves, their own account or their own bot", async () => {
    const author = await quickPerson(server);
    const postId = await postBy(author, "mine");
    expectError(await report(author, "post", postId), 400, "VALIDATION_ERROR");
    expectError(await report(author, "user", author.user.username), 400, "VALIDATION_ERROR");
    await createBotViaApi(author.client, `own_${author.user.id}_bot`);
    const res = await report(author, "bot", `own_${author.user.id}_bot`);
    expectError(res, 400, "VALIDATION_ERROR");
    expect(res.body.error.details.fieldErrors.target).toEqual(["is your own: nobody reports themselves"]);
  });

  test("a target the reporter cannot see is NOT_FOUND", async () => {
    const author = await quickPerson(server);
    const outsider = await quickPerson(server);
    const friend = await quickPerson(server);
    const postId = await postBy(author, "you cannot see me");
    await author.client.post(`/api/social/users/${outsider.user.username}/block`);
    expectError(await report(outsider, "post", postId), 404, "NOT_FOUND");
    // a message of a chat the reporter is not in
    const cid = await openChat(author.client, friend.user.username);
    const sent = await author.client.post(`/api/social/messages/${cid}`, { content: "between us" });
    expectError(await report(outsider, "message", sent.body.data.message.id), 404, "NOT_FOUND");
    expectError(await report(outsider, "user", "nobody_by_that_name"), 404, "NOT_FOUND");
    expectError(await report(outsider, "bot", author.user.username), 404, "NOT_FOUND");
    expectError(await report(outsider, "comment", "nosuchcomment"), 404, "NOT_FOUND");
    expectError(
      await outsider.client.post("/api/social/reports", { target: { type: "post", id: postId }, reason: "boring" }),
      422,
      "VALIDATION_ERROR",
    );
  });

  test("new reports are rate limited per account; a repeat report spends nothing", async () => {
    const reporter = await quickPerson(server);
    const author = await quickPerson(server);
    const ids = [];
    for (let i = 0; i < 4; i++) ids.push(await postBy(author, `post ${i}`));
    for (const id of ids.slice(0, 3)) expect((await report(reporter, "post", id)).status).toBe(200);
    expect((await report(reporter, "post", ids[0]!)).status).toBe(200);
    const limited = await report(reporter, "post", ids[3]!);
    expectError(limited, 429, "RATE_LIMITED");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("only administrators see and resolve the queue", async () => {
    expectError(await person.get("/api/admin/reports"), 403, "FORBIDDEN");
    expectError(await person.get("/api/admin/reports/count"), 403, "FORBIDDEN");
    expectError(await person.post("/api/admin/reports/whatever/resolve", { action: "dismiss" }), 403, "FORBIDDEN");
  });
});

describe("the moderation queue", () => {
  test("several reports of one target are one group; the list pages by target", async () => {
    const author = await quickPerson(server);
    const [a, b] = [await quickPerson(server), await quickPerson(server)];
    const hot = await postBy(author, "a post many people report");
    const other = await postBy(author, "another post");
    const third = await postBy(author, "a third post");
    await report(a, "post", hot, "spam");
    await report(b, "post", hot, "abuse", "rude");
    await report(a, "post", other, "other");
    await report(b, "post", third, "illegal");

    const group = await openGroup(hot);
    expect(group).toMatchObject({
      status: "open",
      target: {
        type: "post",
        id: hot,
        label: `Post by @${author.user.username}`,
        present: true,
        text: "a post many people report",
        account: { username: author.user.username, isBot: false, disabled: false },
      },
      reportCount: 2,
      resolution: null,
    });
    expect(group.reports.map((r: any) => [r.reporter.username, r.reason, r.comment])).toEqual([
      [b.user.username, "abuse", "rude"],
      [a.user.username, "spam", null],
    ]);

    // newest reported first, one target per item, across pages
    const first = (await admin.get("/api/admin/reports?limit=2")).body.data;
    expect(first.groups.map((g: any) => g.target.id)).toEqual([third, other]);
    const next = (await admin.get(`/api/admin/reports?limit=2&cursor=${first.pageInfo.nextCursor}`)).body.data;
    expect(next.groups[0].target.id).toBe(hot);
    expect(next.groups[0].reportCount).toBe(2);
    expectError(await admin.get("/api/admin/reports?status=pending"), 422, "VALIDATION_ERROR");

    const count = (await admin.get("/api/admin/reports/count")).body.data.open;
    expect(count.reports).toBeGreaterThanOrEqual(4);
    expect(count.targets).toBeLessThan(count.reports);
  });

  test("remove-content removes the post, resolves all its reports, is audited, and notifies each reporter", async () => {
    const author = await quickPerson(server);
    const [a, b] = [await quickPerson(server), await quickPerson(server)];
    const postId = await postBy(author, "Spam spam lovely spam");
    const ra = (await report(a, "post", postId)).body.data.report.id;
    await report(b, "post", postId);
    const before = (await admin.get("/api/admin/reports/count")).body.data.open.reports;

    const res = await resolve(ra, { action: "remove-content", note: "advertising" });
    expect(res.status).toBe(200);
    expect(res.body.data.resolved).toBe(2);
    expect(res.body.data.group).toMatchObject({
      status: "resolved",
      target: { id: postId, present: false, text: "Spam spam lovely spam" },
      resolution: { action: "remove-content", note: "advertising", resolver: { username: adminName } },
    });
    expectError(await a.client.get(`/api/social/posts/${postId}`), 404, "NOT_FOUND");
    expect(await openGroup(postId)).toBeUndefined();
    expect((await admin.get("/api/admin/reports/count")).body.data.open.reports).toBe(before - 2);
    const resolved = (await admin.get("/api/admin/reports?status=resolved&limit=100")).body.data.groups as any[];
    expect(resolved.find((g) => g.target.id === postId).reportCount).toBe(2);

    const [removal, resolution] = await auditEntries(admin, 2);
    expect(resolution).toMatchObject({
      actor: { username: adminName },
      action: "report.resolve",
      target: { type: "report", id: ra },
      details: { action: "remove-content", note: "advertising", reports: 2, target: { type: "post", id: postId } },
    });
    expect(removal).toMatchObject({ action: "post.remove", target: { type: "post", id: postId } });

    for (const reporter of [a, b]) {
      const [n] = await notificationsOf(reporter);
      expect(n).toMatchObject({ type: "report", reportId: expect.any(String), read: false });
      const mine = (await reporter.client.get("/api/social/reports")).body.data.reports;
      expect(mine[0]).toMatchObject({ id: n.reportId, status: "resolved", resolution: { action: "remove-content" } });
      // the administrators' note is theirs
      expect(mine[0].resolution.note).toBeUndefined();
    }
    expectError(await resolve(ra, { action: "dismiss" }), 409, "REPORT_RESOLVED");
    // reported again after the resolution: a new report, open
    const author2 = await quickPerson(server);
    const again = await postBy(author2, "fresh");
    expect((await report(a, "post", again)).body.data.report.id).not.toBe(ra);
  });

  test("block-posting stops the author publishing for the minutes asked; it needs minutes", async () => {
    const author = await quickPerson(server);
    const reader = await quickPerson(server);
    const post = await postBy(author, "first");
    const comment = (await author.client.post(`/api/social/posts/${post}/comments`, { content: "a nasty comment" }))
      .body.data.comment.id;
    const id = (await report(reader, "comment", comment, "abuse")).body.data.report.id;
    expect((await openGroup(comment)).target.context).toEqual({ postId: post });
    expectError(await resolve(id, { action: "block-posting" }), 400, "VALIDATION_ERROR");
    expectError(await resolve(id, { action: "block-posting", minutes: 0 }), 400, "VALIDATION_ERROR");
    expectError(await resolve(id, { action: "dismiss", minutes: 5 }), 400, "VALIDATION_ERROR");
    expect((await openGroup(comment)).reportCount).toBe(1);

    expect((await resolve(id, { action: "block-posting", minutes: 30 })).status).toBe(200);
    expectError(
      await author.client.post("/api/social/posts", { content: "again" }),
      403,
      "POSTING_TEMPORARILY_BLOCKED",
    );
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "account.block-posting",
      target: { type: "account", label: `@${author.user.username}` },
      details: { minutes: 30 },
    });
    server.clock.advance(31 * 60_000);
    expect((await author.client.post("/api/social/posts", { content: "again" })).status).toBe(200);
  });

  test("disable-account disables the author; an action that does not fit the target changes nothing", async () => {
    const target = await quickPerson(server);
    const reader = await quickPerson(server);
    const id = (await report(reader, "user", target.user.username, "abuse")).body.data.report.id;
    const audited = (await auditEntries(admin, 100)).length;
    expectError(await resolve(id, { action: "remove-content" }), 400, "VALIDATION_ERROR");
    expectError(await resolve(id, { action: "disable-bot" }), 400, "VALIDATION_ERROR");
    expect((await auditEntries(admin, 100)).length).toBe(audited);
    expect((await openGroup(target.user.username)).status).toBe("open");

    expect((await resolve(id, { action: "disable-account" })).status).toBe(200);
    expectError(await target.client.get("/api/auth/me"), 403, "ACCOUNT_DISABLED");
    expect((await auditEntries(admin, 1))[0]).toMatchObject({ action: "account.disable" });
    expectError(await resolve("nosuchreport", { action: "dismiss" }), 404, "NOT_FOUND");
  });

  test("a reported message keeps its text for the admin; remove-content wipes it in the chat", async () => {
    const sender = await quickPerson(server);
    const receiver = await quickPerson(server);
    const cid = await openChat(sender.client, receiver.user.username);
    const sent = (await sender.client.post(`/api/social/messages/${cid}`, { content: "send me your password" })).body
      .data.message;
    const id = (await report(receiver, "message", sent.id, "abuse")).body.data.report.id;
    await sender.client.patch(`/api/social/messages/${cid}/${sent.id}`, { content: "nothing to see" });

    const group = await openGroup(sent.id);
    expect(group.target).toMatchObject({
      type: "message",
      text: "send me your password",
      media: [],
      context: { conversationId: cid, chatType: "private", messageId: sent.messageId },
      label: `Message by @${sender.user.username}`,
    });
    expect((await resolve(id, { action: "remove-content" })).status).toBe(200);
    const shown = (await receiver.client.get(`/api/social/messages/${cid}`)).body.data.messages as any[];
    expect(shown.find((m) => m.id === sent.id)?.content ?? "").toBe("");
    expect((await auditEntries(admin, 1))[0]).toMatchObject({
      action: "message.remove",
      target: { type: "message", id: sent.id },
    });
  });

  test("a story can be reported and removed; dismiss leaves the target as it was", async () => {
    const author = await quickPerson(server);
    const fan = await quickPerson(server);
    await fan.client.post(`/api/social/users/${author.user.username}/follow`);
    const mediaUrl = await uploadFor(server.app, author.user.id, "story");
    const story = (await author.client.post("/api/social/stories", { mediaUrl, caption: "look" })).body.data.story;
    const id = (await report(fan, "story", story.id, "other")).body.data.report.id;
    expect((await openGroup(story.id)).target.media).toEqual([{ url: mediaUrl, kind: expect.any(String) }]);
    expect((await resolve(id, { action: "dismiss" })).body.data.group.resolution.action).toBe("dismiss");
    expect((await fan.client.get(`/api/social/stories/${story.id}`)).status).toBe(200);
    const again = (await report(fan, "story", story.id, "other")).body.data.report.id;
    expect((await resolve(again, { action: "remove-content" })).status).toBe(200);
    expectError(await fan.client.get(`/api/social/stories/${story.id}`), 404, "NOT_FOUND");
  });

  test("disable-bot blocks a bot reported by its chat", async () => {
    const owner = await quickPerson(server);
    const victim = await quickPerson(server);
    const name = `mailer_${owner.user.id}_bot`;
    const token = await createBotViaApi(owner.client, name);
    const cid = await openChat(victim.client, name);
    const sent = await botCall(server.url, token, "sendMessage", { chat_id: victim.user.id, text: "win a prize" });
    expect(sent.body.ok).toBe(true);
    const shown = (await victim.client.get(`/api/social/messages/${cid}`)).body.data.messages as any[];
    const message = shown.find((m) => m.content === "win a prize");
    const byMessage = (await report(victim, "message", message.id, "spam")).body.data.report.id;
    const byBot = (await report(victim, "bot", name, "spam")).body.data.report.id;
    expect((await openGroup(name)).target.account).toMatchObject({ username: name, isBot: true });
    expectError(await resolve(byMessage, { action: "disable-account" }), 400, "VALIDATION_ERROR");

    expect((await resolve(byBot, { action: "disable-bot" })).status).toBe(200);
    const refused = await botCall(server.url, token, "getMe");
    expect(refused.status).toBe(403);
    expect((await auditEntries(admin, 1))[0]).toMatchObject({ action: "bot.block", target: { type: "bot" } });
    // the message's report is of another target: still open, and now resolvable by the bot's block too
    expect((await openGroup(message.id)).target.account.username).toBe(name);
    expect((await resolve(byMessage, { action: "dismiss" })).status).toBe(200);
  });
});
