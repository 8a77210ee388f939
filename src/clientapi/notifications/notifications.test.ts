import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { makeUser, quickPerson } from "../../testing/fixtures";
import { notify } from "../../domain/notifications/service";
import type { DeliveredEvent } from "../../realtime/broker";

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
    expect(res.body.data.notifications).toEqual([
      {
        id: expect.any(String),
        type: "mention",
        actor: {
          id: b.user.cuid,
          username: b.user.username,
          displayName: b.user.display_name,
          avatarUrl: null,
          isBot: false,
        },
        postId: null,
        commentId: null,
        reportId: null,
        read: false,
        createdAt: expect.any(String),
      },
      expect.objectContaining({ type: "like", postId: "post-of-a", commentId: null }),
    ]);
    expect(res.body.data.pageInfo).toEqual({ nextCursor: null });

    // once blocked (either way) nothing new arrives and old ones are hidden
    await a.client.post(`/api/social/users/${b.user.username}/block`);
    await notify(server.app, { recipientId: a.user.id, actorId: b.user.id, type: "comment" });
    const after = await a.client.get("/api/social/notifications");
    expect(after.body.data).toMatchObject({ notifications: [], unreadCount: 0 });
    await a.client.post(`/api/social/users/${b.user.username}/block`);
    const unblocked = await a.client.get("/api/social/notifications");
    expect(unblocked.body.data.notifications.map((n: any) => n.type)).toEqual(["mention", "like"]);

    // notifications about a post that is gone leave the list and the count
    await server.app.db.deleteFrom("posts").where("id", "=", post.id).execute();
    const gone = await a.client.get("/api/social/notifications");
    expect(gone.body.data.notifications.map((n: any) => n.type)).toEqual(["mention"]);
    expect(gone.body.data.unreadCount).toBe(1);
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
    expect(res.body.data).toEqual({ updated: 2, unreadCount: 3 });
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
    expect(res.body.data).toEqual({ updated: 3, unreadCount: 0 });
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
