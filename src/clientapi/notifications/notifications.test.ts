import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser, quickPerson } from "../../testing/fixtures";
import { notify } from "../../domain/notifications/service";
import type { DeliveredEvent } from "../../realtime/broker";
import { postIdAs } from "../../testing/posts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

describe("notify", () => {
  test("stores, delivers live with the unread count, skips self and blocked", async () => {
    const a = await person();
    const b = await person();
    const events: DeliveredEvent[] = [];
    const stop = server.app.events.subscribe(a.user.id, (e) => events.push(e));
    const post = await server.app.db
      .insertInto("posts")
      .values({ cuid: "post-of-a", author_id: a.user.id, created_at: server.clock.now() })
      .returningAll()
      .executeTakeFirstOrThrow();
    await notify(server.app, { recipientId: a.user.id, actorId: b.user.id, type: "like", postId: post.id });
    await notify(server.app, { recipientId: a.user.id, actorId: a.user.id, type: "like" });
    // the same like again (unlike + like) within a day is not repeated
    await notify(server.app, { recipientId: a.user.id, actorId: b.user.id, type: "like", postId: post.id });
    await notify(server.app, { recipientId: a.user.id, actorId: b.user.id, type: "mention" });
    stop();
    expect(events.map((e) => [e.event, (e.data as any).unreadCount, (e.data as any).notification.type])).toEqual([
      ["notification:new", 1, "like"],
      ["notification:new", 2, "mention"],
    ]);
    const res = await a.client.get("/api/social/notifications");
    expect(res.status).toBe(200);
    expect(res.body.data.unreadCount).toBe(2);
    const actor = {
      id: b.user.cuid,
      username: b.user.username,
      displayName: b.user.display_name,
      avatarUrl: null,
      isBot: false,
    };
    expect(res.body.data.notifications).toEqual([
      {
        id: expect.any(String),
        type: "mention",
        actor,
        actors: [actor],
        count: 1,
        postId: null,
        commentId: null,
        reportId: null,
        read: false,
        createdAt: expect.any(String),
      },
      expect.objectContaining({ type: "like", postId: "post-of-a", commentId: null, count: 1 }),
    ]);
    expect(res.body.data.pageInfo).toEqual({ nextCursor: null });

    // notifications about a post that is gone leave the list and the count
    await server.app.db.deleteFrom("posts").where("id", "=", post.id).execute();
    const gone = await a.client.get("/api/social/notifications");
    expect(gone.body.data.notifications.map((n: any) => n.type)).toEqual(["mention"]);
    expect(gone.body.data.unreadCount).toBe(1);

    // a block removes the notifications between the two, either way, and nothing new arrives
    await notify(server.app, { recipientId: b.user.id, actorId: a.user.id, type: "follow" });
    await a.client.post(`/api/social/users/${b.user.username}/block`);
    await notify(server.app, { recipientId: a.user.id, actorId: b.user.id, type: "comment" });
    const after = await a.client.get("/api/social/notifications");
    expect(after.body.data).toMatchObject({ notifications: [], unreadCount: 0 });
    expect((await b.client.get("/api/social/notifications")).body.data).toMatchObject({
      notifications: [],
      unreadCount: 0,
    });
    await a.client.post(`/api/social/users/${b.user.username}/block`);
    expect((await a.client.get("/api/social/notifications")).body.data.notifications).toEqual([]);
  });
});

describe("list and mark read", () => {
  test("pages, filters unread, marks some then all", async () => {
    const me = await person();
    const actor = await makeUser(server.app);
    for (const type of ["follow", "like", "comment", "reply", "mention"] as const) {
      await notify(server.app, { recipientId: me.user.id, actorId: actor.id, type });
    }
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const res: any = await me.client.get(`/api/social/notifications?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.body.data.unreadCount).toBe(5);
      ids.push(...res.body.data.notifications.map((n: any) => n.id));
      cursor = res.body.data.pageInfo.nextCursor;
      if (!cursor) break;
    }
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);

    let res = await me.client.post("/api/social/notifications/read", { ids: [ids[0], ids[1], "not-an-id"] });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ updated: 2, unreadCount: 3, unseenCount: 3 });
    res = await me.client.get("/api/social/notifications?unread=true");
    expect(res.body.data.notifications.map((n: any) => n.id)).toEqual(ids.slice(2));
    res = await me.client.get("/api/social/notifications");
    expect(res.body.data.notifications.map((n: any) => n.read)).toEqual([true, true, false, false, false]);

    // another person cannot mark my notifications
    const other = await person();
    res = await other.client.post("/api/social/notifications/read", { ids: ids.slice(2) });
    expect(res.body.data.updated).toBe(0);
    expect((await me.client.get("/api/social/notifications")).body.data.unreadCount).toBe(3);
    // and never sees them
    expect((await other.client.get("/api/social/notifications")).body.data.notifications).toEqual([]);

    res = await me.client.post("/api/social/notifications/read");
    expect(res.body.data).toEqual({ updated: 3, unreadCount: 0, unseenCount: 0 });
    res = await me.client.get("/api/social/notifications?unread=1");
    expect(res.body.data.notifications).toEqual([]);
  });

  test("bad input is VALIDATION_ERROR; no session is UNAUTHORIZED", async () => {
    const me = await person();
    let res = await me.client.get("/api/social/notifications?unread=maybe");
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.unread).toBeDefined();
    res = await me.client.get("/api/social/notifications?limit=abc");
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await me.client.get("/api/social/notifications?cursor=%%%");
    expect(res.status).toBe(400);
    res = await me.client.post("/api/social/notifications/read", { ids: "all" });
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.ids).toBeDefined();
    res = await me.client.post("/api/social/notifications/read", { ids: [1, 2] });
    expect(res.status).toBe(422);
    res = await me.client.post("/api/social/notifications/read", {}, { csrf: false });
    expect(res.status).toBe(403);
    const anon = new TestClient(server.url);
    expect((await anon.get("/api/social/notifications")).status).toBe(401);
  });
});

describe("groups", () => {
  const notificationsOf = async (who: { client: TestClient }, query = "") =>
    (await who.client.get(`/api/social/notifications${query}`)).body.data;
  const names = (n: any) => n.actors.map((u: any) => u.username);

  test("likes of a post group while unread; an unlike takes its actor out; once read, the next like starts a new group", async () => {
    const me = await person();
    const [b1, b2, b3] = [await person(), await person(), await person()];
    const post = await postIdAs(me.client, "like me");
    for (const fan of [b1, b2, b3]) await fan.client.post(`/api/social/posts/${post}/like`);

    let data = await notificationsOf(me);
    expect(data.unreadCount).toBe(1);
    expect(data.notifications).toHaveLength(1);
    const [group] = data.notifications;
    expect(group).toMatchObject({ type: "like", postId: post, count: 3, read: false });
    expect(names(group)).toEqual([b3, b2, b1].map((p) => p.user.username));
    expect(group.actor.username).toBe(b3.user.username);

    // b2 takes the like back: two people left, the latest first
    await b2.client.post(`/api/social/posts/${post}/like`);
    data = await notificationsOf(me);
    expect(data.notifications.map((n: any) => [n.id, n.count, names(n)])).toEqual([
      [group.id, 2, [b3.user.username, b1.user.username]],
    ]);

    // nobody left: the group goes, and with it the unread count
    await b3.client.post(`/api/social/posts/${post}/like`);
    await b1.client.post(`/api/social/posts/${post}/like`);
    data = await notificationsOf(me);
    expect(data).toMatchObject({ notifications: [], unreadCount: 0 });

    // read, then another like: a new unread group, the read one stays as it was
    await b1.client.post(`/api/social/posts/${post}/like`);
    const first = (await notificationsOf(me)).notifications[0];
    expect((await me.client.post("/api/social/notifications/read", { ids: [first.id] })).body.data).toEqual({
      updated: 1,
      unreadCount: 0,
      unseenCount: 0,
    });
    await b2.client.post(`/api/social/posts/${post}/like`);
    data = await notificationsOf(me);
    expect(data.unreadCount).toBe(1);
    expect(data.notifications.map((n: any) => [n.count, n.read, names(n)])).toEqual([
      [1, false, [b2.user.username]],
      [1, true, [b1.user.username]],
    ]);
    expect((await notificationsOf(me, "?unread=true")).notifications.map((n: any) => n.id)).toEqual([
      data.notifications[0].id,
    ]);
  });

  test('follows make one group ("3 people followed you"), delivered live as it grows; an unfollow takes one out', async () => {
    const me = await person();
    const events: DeliveredEvent[] = [];
    const stop = server.app.events.subscribe(me.user.id, (e) => events.push(e));
    const fans = [await person(), await person(), await person()];
    for (const fan of fans) await fan.client.post(`/api/social/users/${me.user.username}/follow`);
    // a like of my post and of my comment are groups of their own, beside the follows
    const post = await postIdAs(me.client, "a post");
    const comment = (await me.client.post(`/api/social/posts/${post}/comments`, { content: "my comment" })).body.data
      .comment;
    await fans[0]!.client.post(`/api/social/posts/${post}/like`);
    await fans[0]!.client.post(`/api/social/comments/${comment.id}/like`);
    stop();

    const live = events.filter((e) => e.event === "notification:new").map((e) => e.data as any);
    expect(live.slice(0, 3).map((d) => [d.notification.type, d.notification.count, d.unreadCount])).toEqual([
      ["follow", 1, 1],
      ["follow", 2, 1],
      ["follow", 3, 1],
    ]);
    expect(new Set(live.slice(0, 3).map((d) => d.notification.id)).size).toBe(1);

    let data = await notificationsOf(me);
    expect(data.unreadCount).toBe(3);
    expect(data.notifications.map((n: any) => [n.type, n.count, n.commentId])).toEqual([
      ["like", 1, comment.id],
      ["like", 1, null],
      ["follow", 3, null],
    ]);
    expect(names(data.notifications[2])).toEqual(fans.map((f) => f.user.username).reverse());

    await fans[1]!.client.post(`/api/social/users/${me.user.username}/follow`);
    data = await notificationsOf(me);
    expect(data.notifications[2]).toMatchObject({ type: "follow", count: 2 });
    expect(names(data.notifications[2])).toEqual([fans[2]!.user.username, fans[0]!.user.username]);

    // mark all read: every group read, the count at zero
    expect((await me.client.post("/api/social/notifications/read")).body.data).toEqual({
      updated: 3,
      unreadCount: 0,
      unseenCount: 0,
    });
    expect((await notificationsOf(me)).notifications.every((n: any) => n.read)).toBe(true);
  });

  test("pages of groups have no duplicates or gaps while new notifications arrive", async () => {
    const me = await person();
    const fan = await person();
    const post = async () =>
      (
        await server.app.db
          .insertInto("posts")
          .values({ cuid: `p-${Math.random().toString(36).slice(2)}`, author_id: me.user.id, created_at: 1 })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    const like = async () =>
      notify(server.app, { recipientId: me.user.id, actorId: fan.user.id, type: "like", postId: await post() });
    for (let i = 0; i < 25; i++) {
      await like();
      // some share a millisecond, some do not: the id breaks ties
      if (i % 3 === 0) server.clock.advance(1);
    }
    const expected = (await notificationsOf(me, "?limit=100")).notifications.map((n: any) => n.id);
    expect(expected).toHaveLength(25);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const data: any = await notificationsOf(me, `?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...data.notifications.map((n: any) => n.id));
      cursor = data.pageInfo.nextCursor;
      // newer ones arrive meanwhile: they go before the first page, never into the later ones
      await like();
    } while (cursor);
    expect(seen).toEqual(expected);
    expect((await notificationsOf(me)).unreadCount).toBe(29);
  });

  test("opening the list (seen) clears the badge's count, keeps groups unread, and tells my other windows", async () => {
    const me = await person();
    const fan = await person();
    const events: DeliveredEvent[] = [];
    const stop = server.app.events.subscribe(me.user.id, (e) => events.push(e));
    await notify(server.app, { recipientId: me.user.id, actorId: fan.user.id, type: "mention" });
    await notify(server.app, { recipientId: me.user.id, actorId: fan.user.id, type: "follow" });
    expect(events.map((e) => [e.event, (e.data as any).unreadCount, (e.data as any).unseenCount])).toEqual([
      ["notification:new", 1, 1],
      ["notification:new", 2, 2],
    ]);
    expect(await notificationsOf(me)).toMatchObject({ unreadCount: 2, unseenCount: 2 });

    server.clock.advance(1);
    const seen = await me.client.post("/api/social/notifications/seen");
    expect(seen.status).toBe(200);
    expect(seen.body.data).toEqual({ unreadCount: 2, unseenCount: 0 });
    expect(events.at(-1)).toMatchObject({ event: "notification:counts", data: { unreadCount: 2, unseenCount: 0 } });
    const data = await notificationsOf(me, "?unread=true");
    expect(data).toMatchObject({ unreadCount: 2, unseenCount: 0 });
    expect(data.notifications.map((n: any) => n.read)).toEqual([false, false]);

    // a new event after the list was opened counts again, also when it joins a group seen before
    server.clock.advance(1);
    const another = await person();
    await another.client.post(`/api/social/users/${me.user.username}/follow`);
    expect(events.at(-1)).toMatchObject({ event: "notification:new", data: { unreadCount: 2, unseenCount: 1 } });

    // reading tells the other windows too; read groups never count
    const read = await me.client.post("/api/social/notifications/read");
    expect(read.body.data).toEqual({ updated: 2, unreadCount: 0, unseenCount: 0 });
    expect(events.at(-1)).toMatchObject({ event: "notification:counts", data: { unreadCount: 0, unseenCount: 0 } });
    stop();

    // another person's seen mark is their own
    const other = await person();
    await notify(server.app, { recipientId: other.user.id, actorId: fan.user.id, type: "mention" });
    expect((await other.client.post("/api/social/notifications/seen")).body.data).toEqual({
      unreadCount: 1,
      unseenCount: 0,
    });
    await notify(server.app, { recipientId: me.user.id, actorId: other.user.id, type: "mention" });
    expect(await notificationsOf(me)).toMatchObject({ unreadCount: 1, unseenCount: 1 });
    expect((await new TestClient(server.url).post("/api/social/notifications/seen")).status).toBe(401);
  });
});
