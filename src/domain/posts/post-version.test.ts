import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { rerunMigrations } from "../../testing/migrations";
import { postAs, postIdAs } from "../../testing/posts";

/** posts.version, posts.repost_count and users.posts_count: raised and kept by triggers, filled by their migrations. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const person = () => quickPerson(server);
const columns = (cuid: string) =>
  server.app.db
    .selectFrom("posts")
    .select(["version", "repost_count"])
    .where("cuid", "=", cuid)
    .executeTakeFirstOrThrow();

test("a post's version rises with every change of its row and counters, and only then", async () => {
  const author = await person();
  const other = await person();
  const id = await postIdAs(author.client, "versioned");
  let last = (await columns(id)).version;
  const rises = async (what: () => Promise<unknown>) => {
    await what();
    const now = (await columns(id)).version;
    expect(now).toBeGreaterThan(last);
    last = now;
  };
  await rises(() => other.client.post(`/api/social/posts/${id}/like`));
  await rises(() => other.client.post(`/api/social/posts/${id}/like`));
  await rises(() => other.client.post(`/api/social/posts/${id}/comments`, { content: "a comment" }));
  await rises(() => other.client.post(`/api/social/posts/${id}/repost`));
  expect((await columns(id)).repost_count).toBe(1);
  await rises(() => other.client.post(`/api/social/posts/${id}/repost`));
  expect((await columns(id)).repost_count).toBe(0);
  await rises(() => author.client.patch(`/api/social/posts/${id}`, { content: "edited" }));
  // what is read per request leaves it: bookmarks, and the poll's votes
  await other.client.post(`/api/social/posts/${id}/bookmark`);
  expect((await columns(id)).version).toBe(last);
  const polled = await postAs(author.client, { content: "poll", poll: { options: ["a", "b"] } });
  const before = (await columns(polled.id)).version;
  expect((await other.client.post(`/api/social/posts/${polled.id}/poll/vote`, { options: [0] })).status).toBe(200);
  expect((await columns(polled.id)).version).toBe(before);
});

test("the migration fills repost_count from existing reposts", async () => {
  const app = server.app;
  const author = await person();
  const ids = [await postIdAs(author.client, "shared twice"), await postIdAs(author.client, "shared never")];
  for (const p of [await person(), await person()])
    expect((await p.client.post(`/api/social/posts/${ids[0]}/repost`)).status).toBe(200);
  // with the later columns of posts
  await rerunMigrations(app.db, [
    "20261124215000_post_version",
    "20261129070000_media_renditions",
    "20261129110000_link_previews",
  ]);
  expect((await columns(ids[0]!)).repost_count).toBe(2);
  expect((await columns(ids[1]!)).repost_count).toBe(0);
  // and the triggers are back
  expect((await (await person()).client.post(`/api/social/posts/${ids[1]}/repost`)).status).toBe(200);
  expect((await columns(ids[1]!)).repost_count).toBe(1);
});

test("the migration fills users.posts_count from existing posts and reposts", async () => {
  const app = server.app;
  const [writer, sharer] = [await person(), await person()];
  const id = await postIdAs(writer.client, "one");
  await postIdAs(writer.client, "two");
  expect((await sharer.client.post(`/api/social/posts/${id}/repost`)).status).toBe(200);
  const counts = async () =>
    (
      await app.db
        .selectFrom("users")
        .select("posts_count")
        .where("id", "in", [writer.user.id, sharer.user.id])
        .orderBy("id")
        .execute()
    ).map((r) => r.posts_count);
  expect(await counts()).toEqual([2, 1]);
  await rerunMigrations(app.db, ["20261124215200_user_posts_count"]);
  expect(await counts()).toEqual([2, 1]);
  expect((await writer.client.delete(`/api/social/posts/${id}`)).status).toBe(200);
  // the repost goes with its original
  expect(await counts()).toEqual([1, 0]);
  expect((await sharer.client.get(`/api/social/users/${writer.user.username}`)).body.data.profile.postsCount).toBe(1);
});
