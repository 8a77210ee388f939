import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { quickPerson } from "../../testing/fixtures";
import type { DeliveredEvent } from "../../realtime/broker";
import { uploadFor } from "../../testing/media";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);
type Person = Awaited<ReturnType<typeof person>>;

async function postStory(p: Person, kind: "story" | "story-voice" = "story", caption?: string) {
  const mediaUrl = await uploadFor(server.app, p.user.id, kind);
  const res = await p.client.post("/api/social/stories", { mediaUrl, ...(caption === undefined ? {} : { caption }) });
  expect(res.status).toBe(200);
  return res.body.data.story;
}

describe("creating stories", () => {
  test("image and voice stories; followers get story:new", async () => {
    const author = await person();
    const fan = await person();
    await fan.client.post(`/api/social/users/${author.user.username}/follow`);
    const events: DeliveredEvent[] = [];
    const stop = server.app.events.subscribe(fan.user.id, (e) => events.push(e));
    const story = await postStory(author, "story", "Закат 🌅");
    stop();
    expect(story).toMatchObject({
      author: { id: author.user.cuid, username: author.user.username },
      mediaType: "image",
      caption: "Закат 🌅",
      seen: true,
      viewsCount: 0,
    });
    expect(story.mediaUrl).toContain("/files/");
    expect(Date.parse(story.expiresAt) - Date.parse(story.createdAt)).toBe(24 * 3600_000);
    expect(events.filter((e) => e.event === "story:new").map((e) => e.data)).toEqual([
      { storyId: story.id, author: { id: author.user.cuid, username: author.user.username } },
    ]);
    const voice = await postStory(author, "story-voice");
    expect(voice).toMatchObject({ mediaType: "voice", caption: "" });
  });

  test("media must be the caller's own story upload; caption at most 200", async () => {
    const a = await person();
    const b = await person();
    const own = await uploadFor(server.app, a.user.id, "story");
    const avatar = await uploadFor(server.app, a.user.id, "avatar");
    const others = await uploadFor(server.app, b.user.id, "story");
    let res = await a.client.post("/api/social/stories", { mediaUrl: others });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
    expect(res.body.error.details.fieldErrors.mediaUrl).toHaveLength(1);
    res = await a.client.post("/api/social/stories", { mediaUrl: avatar });
    expect(res.body.error.details.fieldErrors.mediaUrl[0]).toContain("story");
    res = await a.client.post("/api/social/stories", {
      mediaUrl: "https://example.com/a.jpg",
      caption: "x".repeat(201),
    });
    expect(Object.keys(res.body.error.details.fieldErrors).sort()).toEqual(["caption", "mediaUrl"]);
    res = await a.client.post("/api/social/stories", { mediaUrl: own, caption: "x".repeat(201) });
    expect(res.body.error.details.fieldErrors.caption).toHaveLength(1);
    res = await a.client.post("/api/social/stories", {});
    expect(res.status).toBe(422);
    expect(res.body.error.details.fieldErrors.mediaUrl).toBeDefined();
    res = await a.client.post("/api/social/stories", { mediaUrl: own }, { csrf: false });
    expect(res.status).toBe(403);
    res = await new TestClient(server.url).post("/api/social/stories", { mediaUrl: own });
    expect(res.status).toBe(401);
    // nothing was created
    res = await a.client.get(`/api/social/users/${a.user.username}/stories`);
    expect(res.body.data.stories).toEqual([]);
  });
});

describe("feed, views and viewers", () => {
  test("feed groups followed authors with seen flags; viewing marks seen; owner sees viewers", async () => {
    const me = await person();
    const alice = await person();
    const bob = await person();
    const stranger = await person();
    await me.client.post(`/api/social/users/${alice.user.username}/follow`);
    await me.client.post(`/api/social/users/${bob.user.username}/follow`);
    const a1 = await postStory(alice);
    const a2 = await postStory(alice);
    const b1 = await postStory(bob);
    await postStory(stranger);
    await postStory(me);

    let res = await me.client.get("/api/social/stories");
    expect(res.status).toBe(200);
    let groups = res.body.data.groups;
    expect(groups.map((g: any) => g.author.username)).toEqual([bob.user.username, alice.user.username]);
    expect(groups[1].stories.map((s: any) => s.id)).toEqual([a1.id, a2.id]);
    expect(groups[1].stories.every((s: any) => s.seen === false && s.viewsCount === undefined)).toBe(true);
    expect(groups[1].hasUnseen).toBe(true);

    res = await me.client.post(`/api/social/stories/${b1.id}/view`);
    expect(res.status).toBe(200);
    expect(res.body.data.story.seen).toBe(true);
    await me.client.post(`/api/social/stories/${b1.id}/view`); // twice counts once
    res = await me.client.get("/api/social/stories");
    groups = res.body.data.groups;
    // groups with unseen stories come first
    expect(groups.map((g: any) => [g.author.username, g.hasUnseen])).toEqual([
      [alice.user.username, true],
      [bob.user.username, false],
    ]);

    res = await bob.client.get(`/api/social/stories/${b1.id}/viewers`);
    expect(res.status).toBe(200);
    expect(res.body.data.viewers).toEqual([
      { user: expect.objectContaining({ username: me.user.username }), viewedAt: expect.any(String) },
    ]);
    expect(res.body.data.pageInfo.nextCursor).toBeNull();
    res = await bob.client.get(`/api/social/users/${bob.user.username}/stories`);
    expect(res.body.data.stories[0]).toMatchObject({ id: b1.id, viewsCount: 1, seen: true });

    // viewers are the owner's only
    res = await me.client.get(`/api/social/stories/${b1.id}/viewers`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    res = await bob.client.get(`/api/social/stories/${b1.id}/viewers?limit=0`);
    expect(res.status).toBe(400);

    res = await me.client.get(`/api/social/users/${alice.user.username}/stories`);
    expect(res.body.data.stories.map((s: any) => s.id)).toEqual([a1.id, a2.id]);
  });

  test("viewer paging", async () => {
    const owner = await person();
    const story = await postStory(owner);
    const viewers = [];
    for (let i = 0; i < 3; i++) {
      const v = await person();
      await v.client.post(`/api/social/stories/${story.id}/view`);
      viewers.push(v.user.username);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 4; i++) {
      const res: any = await owner.client.get(
        `/api/social/stories/${story.id}/viewers?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
      );
      seen.push(...res.body.data.viewers.map((v: any) => v.user.username));
      cursor = res.body.data.pageInfo.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(viewers.reverse());
  });

  test("unknown story ids are NOT_FOUND everywhere", async () => {
    const a = await person();
    for (const [method, path] of [
      ["GET", "/api/social/stories/nope"],
      ["POST", "/api/social/stories/nope/view"],
      ["GET", "/api/social/stories/nope/viewers"],
      ["DELETE", "/api/social/stories/nope"],
    ] as const) {
      const res = await a.client.request(method, path, method === "GET" ? undefined : {});
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    const res = await a.client.get("/api/social/users/nobody_xyz_q/stories");
    expect(res.status).toBe(404);
  });
});

describe("privacy and deletion", () => {
  test("blocks hide stories both ways", async () => {
    const a = await person();
    const b = await person();
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    const story = await postStory(a);
    await a.client.post(`/api/social/users/${b.user.username}/block`);
    let res = await b.client.get(`/api/social/stories/${story.id}`);
    expect(res.status).toBe(404);
    res = await b.client.post(`/api/social/stories/${story.id}/view`);
    expect(res.status).toBe(404);
    res = await b.client.get("/api/social/stories");
    expect(res.body.data.groups).toEqual([]);
    res = await b.client.get(`/api/social/users/${a.user.username}/stories`);
    expect(res.status).toBe(404);
    // the blocker sees the profile of the blocked person but no stories
    const bStory = await postStory(b);
    res = await a.client.get(`/api/social/users/${b.user.username}/stories`);
    expect(res.body.data.stories).toEqual([]);
    res = await a.client.get(`/api/social/stories/${bStory.id}`);
    expect(res.status).toBe(404);
  });

  test("muted authors leave the stories feed", async () => {
    const a = await person();
    const b = await person();
    await a.client.post(`/api/social/users/${b.user.username}/follow`);
    await postStory(b);
    expect((await a.client.get("/api/social/stories")).body.data.groups).toHaveLength(1);
    await a.client.post(`/api/social/users/${b.user.username}/mute`);
    expect((await a.client.get("/api/social/stories")).body.data.groups).toEqual([]);
  });

  test("only the author deletes; a deleted story leaves every listing", async () => {
    const a = await person();
    const b = await person();
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    const story = await postStory(a);
    let res = await b.client.delete(`/api/social/stories/${story.id}`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    res = await a.client.delete(`/api/social/stories/${story.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ deleted: true });
    expect((await b.client.get(`/api/social/stories/${story.id}`)).status).toBe(404);
    expect((await a.client.delete(`/api/social/stories/${story.id}`)).status).toBe(404);
    expect((await b.client.get("/api/social/stories")).body.data.groups).toEqual([]);
    expect((await a.client.get(`/api/social/users/${a.user.username}/stories`)).body.data.stories).toEqual([]);
  });

  // last: moves the server clock forward a day
  test("stories expire after 24 hours without any cleanup job", async () => {
    const a = await person();
    const b = await person();
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    const story = await postStory(a);
    await b.client.post(`/api/social/stories/${story.id}/view`);
    server.clock.advance(24 * 3600_000 - 1000);
    expect((await b.client.get("/api/social/stories")).body.data.groups).toHaveLength(1);
    const fresh = await postStory(a);
    server.clock.advance(1001);
    let res = await b.client.get("/api/social/stories");
    expect(res.body.data.groups).toHaveLength(1);
    expect(res.body.data.groups[0].stories.map((s: any) => s.id)).toEqual([fresh.id]);
    res = await b.client.get(`/api/social/users/${a.user.username}/stories`);
    expect(res.body.data.stories.map((s: any) => s.id)).toEqual([fresh.id]);
    for (const path of [`/api/social/stories/${story.id}`, `/api/social/stories/${story.id}/viewers`]) {
      expect((await a.client.get(path)).status).toBe(404);
    }
    expect((await b.client.post(`/api/social/stories/${story.id}/view`)).status).toBe(404);
  });
});
