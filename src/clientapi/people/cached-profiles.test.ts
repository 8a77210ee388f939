import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sql } from "kysely";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { fewestStatements } from "../../testing/statements";
import { testsOnPostgres } from "../../testing/postgres";
import { dbPath } from "../../config/layout";
import { freshProfile } from "../../testing/fresh-answers";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const sqliteOnly = test.skipIf(testsOnPostgres());
type Person = Awaited<ReturnType<typeof quickPerson>>;

/** VIEWER's answer for USERNAME over HTTP: status and body text. */
async function served(viewer: Person, username: string): Promise<[number, string]> {
  const res = await fetch(`${server.url}/api/social/users/${username}`, {
    headers: { cookie: viewer.client.cookieHeader() },
  });
  return [res.status, await res.text()];
}

/** Each viewer's answer for each name, read twice (the second of what the first kept), equals the one read afresh. */
async function expectExact(viewers: Person[], usernames: string[], what: string): Promise<void> {
  for (const viewer of viewers)
    for (const name of usernames) {
      const want = await freshProfile(server.app.db, viewer.user.id, name);
      for (let i = 0; i < 2; i++) {
        const [status, text] = await served(viewer, name);
        expect([what, viewer.user.username, name, status]).toEqual([what, viewer.user.username, name, want[0]]);
        if (status === 200)
          expect([what, viewer.user.username, name, text]).toEqual([what, viewer.user.username, name, want[1]]);
      }
    }
}

describe("profiles made of kept shown columns", () => {
  test("every answer is the profile read afresh, after each change by the API and by SQL outside the app's code", async () => {
    const [a, b, c] = [await quickPerson(server), await quickPerson(server), await quickPerson(server)];
    const viewers = [a, b, c];
    let names = [a.user.username, b.user.username, c.user.username];
    const all = (what: string) => expectExact(viewers, names, what);
    await all("start");
    const api = async (who: Person, method: "post" | "patch" | "delete", path: string, body?: object) => {
      const res = await who.client[method](path, body);
      expect([path, res.status]).toEqual([path, 200]);
      return res.body.data;
    };
    // follows, both ways and by a third person (the counters of both accounts and the marks)
    await api(a, "post", `/api/social/users/${b.user.username}/follow`);
    await all("a follows b");
    await api(b, "post", `/api/social/users/${a.user.username}/follow`);
    await all("b follows a");
    await api(c, "post", `/api/social/users/${b.user.username}/follow`);
    await all("c follows b");
    await api(a, "post", `/api/social/users/${b.user.username}/follow`);
    await all("a unfollows b");
    // posts (the posts counter), their removal
    const post = await api(b, "post", "/api/social/posts", { content: "counted" });
    await all("b posts");
    await api(b, "delete", `/api/social/posts/${post.post.id}`);
    await all("b's post removed");
    // the shown columns
    await api(b, "patch", "/api/account/profile", { displayName: "Bee", bio: 'says "hi"' });
    await all("b edits the profile");
    // mutes and blocks, either way (a blocked viewer gets NOT_FOUND; a block removes follows)
    await api(a, "post", `/api/social/users/${b.user.username}/mute`);
    await all("a mutes b");
    await api(b, "post", `/api/social/users/${a.user.username}/follow`);
    await api(a, "post", `/api/social/users/${b.user.username}/block`);
    await all("a blocks b");
    await api(a, "post", `/api/social/users/${b.user.username}/block`);
    await all("a unblocks b");
    await api(c, "post", `/api/social/users/${a.user.username}/block`);
    await all("c blocks a");
    await api(c, "post", `/api/social/users/${a.user.username}/block`);
    await all("c unblocks a");

    // by SQL outside the app's code on the app's own database (the counters' triggers included)
    const run = async (statement: string, values: (string | number | null)[]) => {
      const sqlite = server.app.storage.sqlite;
      if (sqlite) sqlite.run(statement, values);
      else
        await sql
          .raw(
            values.reduce<string>(
              (s, v) => s.replace("?", v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v}'`),
              statement,
            ),
          )
          .execute(server.app.db);
    };
    const now = server.clock.now();
    await run("INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)", [
      c.user.id,
      a.user.id,
      now,
    ]);
    await all("c follows a by SQL");
    // a follow moved to another account (no counter moves: only the follow's own row says so)
    await run("UPDATE follows SET follower_id = ? WHERE follower_id = ? AND followee_id = ?", [
      b.user.id,
      c.user.id,
      a.user.id,
    ]);
    await all("c's follow of a moved to b by SQL");
    await run("UPDATE follows SET follower_id = ? WHERE follower_id = ? AND followee_id = ?", [
      c.user.id,
      b.user.id,
      a.user.id,
    ]);
    await all("and back");
    await run("DELETE FROM follows WHERE follower_id = ? AND followee_id = ?", [c.user.id, a.user.id]);
    await all("c's follow of a deleted by SQL");
    await run("INSERT INTO mutes (muter_id, muted_id, created_at) VALUES (?, ?, ?)", [b.user.id, c.user.id, now]);
    await all("b mutes c by SQL");
    await run("INSERT INTO blocks (blocker_id, blocked_id, created_at) VALUES (?, ?, ?)", [c.user.id, b.user.id, now]);
    await all("c blocks b by SQL");
    await run("DELETE FROM blocks WHERE blocker_id = ?", [c.user.id]);
    await all("c's block removed by SQL");
    await run("UPDATE users SET followers_count = 41 WHERE id = ?", [c.user.id]);
    await all("c's counter set by SQL");
    await run("UPDATE users SET bio = 'set by SQL' WHERE id = ?", [a.user.id]);
    await all("a's bio set by SQL");
    // a new name: the old one is NOT_FOUND, the new one found
    const renamed = `${c.user.username}_new`;
    await run("UPDATE users SET username = ?, username_lower = ? WHERE id = ?", [
      renamed,
      renamed.toLowerCase(),
      c.user.id,
    ]);
    names = [...names, renamed];
    await all("c renamed by SQL");
    await run("UPDATE users SET deleted_at = ? WHERE id = ?", [now, b.user.id]);
    // b's own session ends with the account: a and c look
    await expectExact([a, c], names, "b deleted by SQL");
    await run("UPDATE users SET deleted_at = NULL WHERE id = ?", [b.user.id]);
    await all("b back by SQL");
  });

  // another connection to the same file is what the CLI beside a running server is
  sqliteOnly("a write committed by another connection applies at once", async () => {
    const [a, b] = [await quickPerson(server), await quickPerson(server)];
    const names = [a.user.username, b.user.username];
    await expectExact([a, b], names, "start");
    const other = new Database(dbPath(server.dataDir));
    try {
      other.run("INSERT INTO follows (follower_id, followee_id, created_at) VALUES (?, ?, ?)", [
        a.user.id,
        b.user.id,
        1,
      ]);
      await expectExact([a, b], names, "a follows b from another connection");
      other.run("UPDATE users SET display_name = 'Elsewhere' WHERE id = ?", [a.user.id]);
      await expectExact([a, b], names, "a renamed from another connection");
      expect(JSON.parse((await served(b, a.user.username))[1]).data.profile.displayName).toBe("Elsewhere");
    } finally {
      other.close();
    }
  });

  test("a profile whose shown columns are kept is one statement; a follow of it shows at once", async () => {
    const [a, b, c] = [await quickPerson(server), await quickPerson(server), await quickPerson(server)];
    const profile = () => served(a, b.user.username);
    // PostgreSQL reads the session on each request (other nodes write unseen)
    const one = testsOnPostgres() ? 2 : 1;
    await profile();
    expect(await fewestStatements(server.app.storage, profile)).toBe(one);
    // the counters are read with the relations, whatever is kept
    await c.client.post(`/api/social/users/${b.user.username}/follow`);
    expect(await fewestStatements(server.app.storage, profile)).toBe(one);
    expect(JSON.parse((await profile())[1]).data.profile.followersCount).toBe(1);
    // the shown columns changed: read again (one statement more), then kept again
    const renamed = await fewestStatements(server.app.storage, profile, {
      before: (attempt) => b.client.patch("/api/account/profile", { displayName: `Bee ${attempt}` }),
    });
    expect(renamed).toBe(one + 1);
    expect(await fewestStatements(server.app.storage, profile)).toBe(one);
    expect(JSON.parse((await profile())[1]).data.profile.displayName).toBe("Bee 2");
  });
});
