import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { TestClient } from "../../testing/client";
import { quickPerson } from "../../testing/fixtures";
import { countingDb } from "../../testing/statements";
import { loadProfileByUsername, requireVisibleUser, type ProfileUser } from "../../domain/profiles/service";
import { VersionedCache } from "../../cache/by-version";
import { ok } from "../../http/envelope";
import { profileJson, serializeProfile } from "./serialize";
import { sql } from "kysely";
import {
  hiddenAuthorIds,
  isBlockedEitherWay,
  followedIds,
  followerIds,
  isFollowing,
} from "../../domain/relations/service";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);

describe("profiles", () => {
  test("shows a profile with counts and relation flags", async () => {
    const a = await person();
    const b = await person();
    let res = await a.client.get(`/api/social/users/${b.user.username}`);
    expect(res.status).toBe(200);
    expect(res.body.data.profile).toEqual({
      id: b.user.cuid,
      username: b.user.username,
      displayName: b.user.username,
      bio: "",
      avatarUrl: null,
      coverUrl: null,
      coverVideoUrl: null,
      isBot: false,
      followersCount: 0,
      followingCount: 0,
      postsCount: 0,
      isFollowing: false,
      followsYou: false,
      isBlocked: false,
      isMuted: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(res.body.data.profile.email).toBeUndefined();
    await server.app.db
      .insertInto("posts")
      .values({ cuid: `p-${b.user.cuid}`, author_id: b.user.id, created_at: server.clock.now() })
      .execute();
    expect((await a.client.get(`/api/social/users/${b.user.username}`)).body.data.profile.postsCount).toBe(1);
    // case-insensitive, @ allowed
    res = await a.client.get(`/api/social/users/@${b.user.username.toUpperCase()}`);
    expect(res.status).toBe(200);
    expect(res.body.data.profile.id).toBe(b.user.cuid);
  });

  test("unknown user is NOT_FOUND; no session is UNAUTHORIZED", async () => {
    const a = await person();
    const res = await a.client.get("/api/social/users/nobody_here_xyz");
    expect(res.status).toBe(404);
    expect(res.body.success).toBe(false);
    expect(res.body.error.code).toBe("NOT_FOUND");
    const anon = await new TestClient(server.url).get(`/api/social/users/${a.user.username}`);
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe("UNAUTHORIZED");
  });

  test("a profile by username is one statement once its shown columns are kept, relations and NOT_FOUND included", async () => {
    const a = await person();
    const b = await person();
    expect((await a.client.post(`/api/social/users/${b.user.username}/follow`)).status).toBe(200);
    expect((await a.client.post(`/api/social/users/${b.user.username}/mute`)).status).toBe(200);
    const kept = new VersionedCache<Readonly<ProfileUser>>(10);
    const { db, counter } = countingDb(server.app.db);
    const first = await loadProfileByUsername(db, kept, a.user.id, b.user.username);
    // the counters and relations, then the shown columns, which are kept
    expect(counter.statements).toBe(2);
    counter.statements = 0;
    const seen = await loadProfileByUsername(db, kept, a.user.id, b.user.username);
    expect(counter.statements).toBe(1);
    expect(seen.user).toBe(first.user);
    expect(seen).toMatchObject({ followersCount: 1, isFollowing: true, followsYou: false, isMuted: true });
    const mine = await loadProfileByUsername(db, kept, a.user.id, `@${a.user.username.toUpperCase()}`);
    expect(mine).toMatchObject({ followingCount: 1, isFollowing: false, isMuted: false });
    // blocked by b: b no longer exists for a, in the same one statement
    expect((await b.client.post(`/api/social/users/${a.user.username}/block`)).status).toBe(200);
    counter.statements = 0;
    await expect(loadProfileByUsername(db, kept, a.user.id, b.user.username)).rejects.toMatchObject({ status: 404 });
    await expect(requireVisibleUser(db, a.user.id, b.user.username)).rejects.toMatchObject({ status: 404 });
    expect(counter.statements).toBe(2);
    // the blocker still sees whom they blocked (to unblock them)
    expect((await loadProfileByUsername(db, kept, b.user.id, a.user.username)).isBlocked).toBe(true);
    expect((await requireVisibleUser(db, b.user.id, a.user.username)).id).toBe(a.user.id);
  });

  test("a kept profile shows every change of its account, by the API or by SQL outside the app", async () => {
    const a = await person();
    const b = await person();
    const profileOf = async () => {
      const res = await a.client.get(`/api/social/users/${b.user.username}`);
      expect(res.status).toBe(200);
      return res.body.data.profile;
    };
    const one = await profileOf();
    expect(await profileOf()).toEqual(one);
    // by the API: the owner's edit
    const edit = await b.client.patch("/api/account/profile", { displayName: "Bee", bio: 'says "hi" ✓' });
    expect(edit.status).toBe(200);
    expect(await profileOf()).toMatchObject({ displayName: "Bee", bio: 'says "hi" ✓', followersCount: 0 });
    // counters and relations are read on every request, the shown columns staying kept
    expect((await a.client.post(`/api/social/users/${b.user.username}/follow`)).status).toBe(200);
    expect((await b.client.post(`/api/social/users/${a.user.username}/follow`)).status).toBe(200);
    expect(await profileOf()).toMatchObject({
      bio: 'says "hi" ✓',
      followersCount: 1,
      followingCount: 1,
      isFollowing: true,
      followsYou: true,
    });
    // by SQL outside the app's code (the CLI, another node): each shown column
    const sqlite = server.app.storage.sqlite;
    const change = async (column: string, value: string | number) => {
      if (sqlite) sqlite.run(`UPDATE users SET ${column} = ? WHERE id = ?`, [value, b.user.id]);
      else await sql`UPDATE users SET ${sql.ref(column)} = ${value} WHERE id = ${b.user.id}`.execute(server.app.db);
    };
    for (const [column, value, field, shown] of [
      ["bio", "written elsewhere", "bio", "written elsewhere"],
      ["cover_url", "/files/cover.png", "coverUrl", "/files/cover.png"],
      ["cover_video_url", "/files/cover.mp4", "coverVideoUrl", "/files/cover.mp4"],
      ["display_name", "Bea", "displayName", "Bea"],
      ["avatar_url", "/files/a.png", "avatarUrl", "/files/a.png"],
      ["created_at", Date.UTC(2020, 0, 2), "createdAt", "2020-01-02T00:00:00.000Z"],
    ] as const) {
      await change(column, value);
      expect([column, (await profileOf())[field]]).toEqual([column, shown]);
    }
  });

  test("a profile's JSON text is what serializing its view gives", async () => {
    const a = await person();
    const b = await person();
    await b.client.patch("/api/account/profile", { displayName: 'Zoë \u2028"Z" \\ x', bio: "line\nbreak </script>" });
    expect((await a.client.post(`/api/social/users/${b.user.username}/follow`)).status).toBe(200);
    const kept = new VersionedCache<Readonly<ProfileUser>>(10);
    for (const [viewer, name] of [
      [a, b.user.username],
      [b, a.user.username],
      [a, a.user.username],
    ] as const) {
      const view = await loadProfileByUsername(server.app.db, kept, viewer.user.id, name);
      for (let i = 0; i < 2; i++) {
        const set = { headers: {} as Record<string, unknown> };
        expect(profileJson(set, view)).toBe(JSON.stringify(ok({ profile: serializeProfile(view) })));
        expect(set.headers["content-type"]).toBe("application/json;charset=utf-8");
      }
    }
    const res = await fetch(`${server.url}/api/social/users/${b.user.username}`, {
      headers: { cookie: a.client.cookieHeader() },
    });
    expect(res.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(((await res.json()) as any).data.profile).toMatchObject({
      displayName: 'Zoë \u2028"Z" \\ x',
      bio: "line\nbreak </script>",
    });
  });
});

describe("follow", () => {
  test("toggles, counts, flags both sides, and notifies once", async () => {
    const a = await person();
    const b = await person();
    let res = await a.client.post(`/api/social/users/${b.user.username}/follow`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ following: true, followersCount: 1 });
    expect(await isFollowing(server.app.db, a.user.id, b.user.id)).toBe(true);
    expect(await followedIds(server.app.db, a.user.id)).toEqual([b.user.id]);
    expect(await followerIds(server.app.db, b.user.id)).toEqual([a.user.id]);

    res = await a.client.get(`/api/social/users/${b.user.username}`);
    expect(res.body.data.profile).toMatchObject({
      followersCount: 1,
      followingCount: 0,
      isFollowing: true,
      followsYou: false,
    });
    res = await b.client.get(`/api/social/users/${a.user.username}`);
    expect(res.body.data.profile).toMatchObject({
      followersCount: 0,
      followingCount: 1,
      isFollowing: false,
      followsYou: true,
    });

    res = await b.client.get("/api/social/notifications");
    expect(res.body.data.notifications).toHaveLength(1);
    expect(res.body.data.notifications[0]).toMatchObject({
      type: "follow",
      actor: { username: a.user.username },
      read: false,
    });

    res = await a.client.post(`/api/social/users/${b.user.username}/follow`);
    expect(res.body.data).toEqual({ following: false, followersCount: 0 });
    // following again the same day does not notify twice
    res = await a.client.post(`/api/social/users/${b.user.username}/follow`);
    expect(res.body.data.following).toBe(true);
    res = await b.client.get("/api/social/notifications");
    expect(res.body.data.notifications).toHaveLength(1);
  });

  test("self-follow, self-block and self-mute are VALIDATION_ERROR", async () => {
    const a = await person();
    for (const action of ["follow", "block", "mute"]) {
      const res = await a.client.post(`/api/social/users/${a.user.username}/${action}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("VALIDATION_ERROR");
      expect(res.body.error.details.fieldErrors.username).toHaveLength(1);
    }
  });

  test("needs CSRF and a session; unknown target is NOT_FOUND", async () => {
    const a = await person();
    const b = await person();
    let res = await a.client.post(`/api/social/users/${b.user.username}/follow`, {}, { csrf: false });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("CSRF_TOKEN_INVALID");
    const anon = new TestClient(server.url);
    res = await anon.post(`/api/social/users/${b.user.username}/follow`);
    expect(res.status).toBe(401);
    res = await a.client.post(`/api/social/users/no_such_user_q/follow`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("NOT_FOUND");
    expect(await isFollowing(server.app.db, a.user.id, b.user.id)).toBe(false);
  });
});

describe("followers and following lists", () => {
  test("pages with cursors, newest first, without duplicates", async () => {
    const star = await person();
    const fans = [];
    for (let i = 0; i < 5; i++) {
      const f = await person();
      await f.client.post(`/api/social/users/${star.user.username}/follow`);
      fans.push(f);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 5; i++) {
      const q: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const res = await star.client.get(`/api/social/users/${star.user.username}/followers${q}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.users.map((u: any) => u.username));
      cursor = res.body.data.pageInfo.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(fans.map((f) => f.user.username).reverse());

    const res = await fans[0]!.client.get(`/api/social/users/${fans[0]!.user.username}/following`);
    expect(res.body.data.users).toEqual([
      {
        id: star.user.cuid,
        username: star.user.username,
        displayName: star.user.username,
        avatarUrl: null,
        isBot: false,
        bio: "",
        isFollowing: true,
      },
    ]);
    expect(res.body.data.pageInfo.nextCursor).toBeNull();
  });

  test("bad cursor and limit are VALIDATION_ERROR", async () => {
    const a = await person();
    let res = await a.client.get(`/api/social/users/${a.user.username}/followers?cursor=garbage`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.cursor).toBeDefined();
    res = await a.client.get(`/api/social/users/${a.user.username}/following?limit=0`);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fieldErrors.limit).toBeDefined();
    res = await a.client.get(`/api/social/users/${a.user.username}/following?limit=1000`);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
  });
});

describe("block and mute", () => {
  test("blocking removes follows both ways, hides the blocker, and prevents follows", async () => {
    const a = await person();
    const b = await person();
    await a.client.post(`/api/social/users/${b.user.username}/follow`);
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    let res = await a.client.post(`/api/social/users/${b.user.username}/block`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ blocked: true });
    expect(await isFollowing(server.app.db, a.user.id, b.user.id)).toBe(false);
    expect(await isFollowing(server.app.db, b.user.id, a.user.id)).toBe(false);
    expect(await isBlockedEitherWay(server.app.db, b.user.id, a.user.id)).toBe(true);
    expect(await hiddenAuthorIds(server.app.db, b.user.id)).toEqual([a.user.id]);
    expect(await hiddenAuthorIds(server.app.db, a.user.id)).toEqual([b.user.id]);

    // the blocked person no longer finds the blocker
    for (const path of ["", "/followers", "/following"]) {
      res = await b.client.get(`/api/social/users/${a.user.username}${path}`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    res = await b.client.post(`/api/social/users/${a.user.username}/follow`);
    expect(res.status).toBe(404);
    // the blocker sees the flag and cannot follow until unblocking
    res = await a.client.get(`/api/social/users/${b.user.username}`);
    expect(res.body.data.profile).toMatchObject({
      isBlocked: true,
      isFollowing: false,
      followersCount: 0,
      followingCount: 0,
    });
    res = await a.client.post(`/api/social/users/${b.user.username}/follow`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");

    res = await a.client.post(`/api/social/users/${b.user.username}/block`);
    expect(res.body.data).toEqual({ blocked: false });
    res = await b.client.get(`/api/social/users/${a.user.username}`);
    expect(res.status).toBe(200);
    expect(await hiddenAuthorIds(server.app.db, b.user.id)).toEqual([]);
  });

  test("blocked accounts vanish from follower lists of third parties", async () => {
    const a = await person();
    const b = await person();
    const c = await person();
    await b.client.post(`/api/social/users/${c.user.username}/follow`);
    await a.client.post(`/api/social/users/${c.user.username}/follow`);
    await a.client.post(`/api/social/users/${b.user.username}/block`);
    const res = await a.client.get(`/api/social/users/${c.user.username}/followers`);
    expect(res.body.data.users.map((u: any) => u.username)).toEqual([a.user.username]);
    const res2 = await b.client.get(`/api/social/users/${c.user.username}/followers`);
    expect(res2.body.data.users.map((u: any) => u.username)).toEqual([b.user.username]);
  });

  test("mute toggles and hides only for the muter", async () => {
    const a = await person();
    const b = await person();
    let res = await a.client.post(`/api/social/users/${b.user.username}/mute`);
    expect(res.body.data).toEqual({ muted: true });
    expect(await hiddenAuthorIds(server.app.db, a.user.id)).toEqual([b.user.id]);
    expect(await hiddenAuthorIds(server.app.db, b.user.id)).toEqual([]);
    res = await a.client.get(`/api/social/users/${b.user.username}`);
    expect(res.body.data.profile.isMuted).toBe(true);
    res = await b.client.get(`/api/social/users/${a.user.username}`);
    expect(res.status).toBe(200);
    expect(res.body.data.profile.isMuted).toBe(false);
    res = await a.client.post(`/api/social/users/${b.user.username}/mute`);
    expect(res.body.data).toEqual({ muted: false });
    expect(await hiddenAuthorIds(server.app.db, a.user.id)).toEqual([]);
  });
});

describe("privacy", () => {
  test("no other person's e-mail or private state appears in any payload about them", async () => {
    const a = await person();
    const b = await person();
    await a.client.post(`/api/social/users/${b.user.username}/follow`);
    await b.client.post(`/api/social/users/${a.user.username}/follow`);
    const aPost = (
      await a.client.post("/api/social/posts", {
        content: `hello @${b.user.username} #privacycheck`,
        clientPostId: "a-secret-key",
      })
    ).body.data.post;
    const bPost = (await b.client.post("/api/social/posts", { content: "b writes" })).body.data.post;
    await a.client.post(`/api/social/posts/${bPost.id}/like`);
    await a.client.post(`/api/social/posts/${bPost.id}/bookmark`);
    const comment = (await a.client.post(`/api/social/posts/${bPost.id}/comments`, { content: "a comments" })).body.data
      .comment;

    const paths = [
      `/api/social/users/${a.user.username}`,
      `/api/social/users/${a.user.username}/followers`,
      `/api/social/users/${a.user.username}/following`,
      `/api/social/users/${a.user.username}/posts`,
      `/api/social/users/${a.user.username}/stories`,
      "/api/social/feed",
      `/api/social/posts/${aPost.id}`,
      `/api/social/posts/${bPost.id}`,
      `/api/social/posts/${bPost.id}/likes`,
      `/api/social/posts/${bPost.id}/comments`,
      `/api/social/comments/${comment.id}`,
      "/api/social/hashtags/privacycheck/posts",
      `/api/social/search?q=${a.user.username}`,
      "/api/social/notifications",
      "/api/social/stories",
    ];
    for (const path of paths) {
      const res = await b.client.get(path);
      expect(res.status).toBe(200);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(a.user.email!);
      expect(text).not.toContain('"email"');
      expect(text).not.toContain("a-secret-key");
    }
    expect((await a.client.get(`/api/social/posts/${aPost.id}`)).body.data.post.clientPostId).toBe("a-secret-key");
    // what A bookmarked and liked is A's own business: B's view of the post shows B's state only
    const seen = (await b.client.get(`/api/social/posts/${bPost.id}`)).body.data.post;
    expect(seen).toMatchObject({ bookmarked: false, liked: false, likeCount: 1 });
    expect((await b.client.get("/api/social/bookmarks")).body.data.posts).toEqual([]);
    // B was notified of A's mention, like and comment; A's own notifications stay A's
    const kinds = (await b.client.get("/api/social/notifications")).body.data.notifications
      .map((n: any) => n.type)
      .sort();
    expect(kinds).toEqual(expect.arrayContaining(["comment", "follow", "like", "mention"]));
    expect((await a.client.get("/api/social/notifications")).body.data.notifications.map((n: any) => n.type)).toEqual([
      "follow",
    ]);
  });
});
