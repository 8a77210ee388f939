import { expect } from "bun:test";
import { createSession } from "../../domain/sessions/service";
import type { UserRow } from "../../domain/users/table";
import { sessionTtls } from "../../http/context";
import { ACCESS_COOKIE, REFRESH_COOKIE } from "../../http/cookies";
import { newCuid } from "../../lib/ids";
import { TestClient } from "../../testing/client";
import type { TestServer } from "../../testing/server";

let counter = 0;

/**
 * A signed-in client for a fresh account, made straight in the database with a session
 * issued directly: no password hashing, so files that need dozens of people stay fast.
 * (Sign-in itself is covered by the auth tests.)
 */
export async function quickPerson(server: TestServer, input: { username?: string; displayName?: string } = {}): Promise<{ user: UserRow; client: TestClient }> {
  const app = server.app;
  const now = app.clock.now();
  const username = input.username ?? `p${++counter}_${Math.random().toString(36).slice(2, 7)}`;
  const user = await app.db
    .insertInto("users")
    .values({
      cuid: newCuid(),
      email: `${username.toLowerCase()}@example.test`,
      username,
      username_lower: username.toLowerCase(),
      display_name: input.displayName ?? username,
      password_hash: null,
      email_verified_at: now,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await app.hooks.emit("user:created", { userId: user.id });
  const { tokens } = await createSession(app.db, now, sessionTtls(app), { userId: user.id, userAgent: "socialctl-tests/1.0", ip: "127.0.0.1" });
  const client = new TestClient(server.url);
  client.cookies.set(ACCESS_COOKIE, tokens.accessToken);
  client.cookies.set(REFRESH_COOKIE, tokens.refreshToken);
  return { user, client };
}

/** Creates a post through the API (expecting success) and returns it as the API shows it. */
export async function postAs(client: TestClient, body: string | Record<string, unknown>): Promise<any> {
  const res = await client.post("/api/social/posts", typeof body === "string" ? { content: body } : body);
  expect(res.status).toBe(200);
  return res.body.data.post;
}

/** Creates a text post and returns its id. */
export const postIdAs = async (client: TestClient, content: string): Promise<string> => (await postAs(client, content)).id;
