import type { App } from "../app";
import { createUser, type NewUser } from "../domain/users/service";
import type { UserRow } from "../domain/users/table";
import { createSession } from "../domain/sessions/service";
import { sessionTtls } from "../http/context";
import { ACCESS_COOKIE, REFRESH_COOKIE } from "../http/cookies";
import { newCuid } from "../lib/ids";
import { clientOf, TestClient, type Reachable } from "./client";

let counter = 0;

/** Creates a verified account directly in the database (fast), with a unique name unless given. */
export async function makeUser(app: App, input: Partial<NewUser> = {}): Promise<UserRow & { password: string }> {
  const n = ++counter;
  const username = input.username ?? `user${n}_${Math.random().toString(36).slice(2, 7)}`;
  const password = input.password ?? "correct horse battery";
  const user = await createUser(app.db, app.clock.now(), {
    email: `${username.toLowerCase()}@example.test`,
    verified: true,
    ...input,
    username,
    password,
  });
  return { ...user, password };
}

/** A signed-in client for a fresh account. */
export async function signedInClient(server: Reachable & { app: App }, input: Partial<NewUser> = {}) {
  const user = await makeUser(server.app, input);
  const client = clientOf(server);
  const res = await client.login(user.email!, user.password);
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return { user, client };
}

let quickCounter = 0;

/**
 * A signed-in client for a fresh account, made straight in the database with a session
 * issued directly: no password hashing, so files that need dozens of people stay fast.
 * Every request still goes through cookie authentication and CSRF; sign-in itself is
 * covered by the auth tests (use `signedInClient` where the password matters).
 */
export async function quickPerson(
  server: Reachable & { app: App },
  input: { username?: string; displayName?: string } = {},
): Promise<{ user: UserRow; client: TestClient }> {
  const { app } = server;
  const now = app.clock.now();
  const username = input.username ?? `p${++quickCounter}_${Math.random().toString(36).slice(2, 7)}`;
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
  const { tokens } = await createSession(app.db, now, sessionTtls(app), {
    userId: user.id,
    userAgent: "socialctl-tests/1.0",
    ip: "127.0.0.1",
  });
  const client = clientOf(server);
  client.cookies.set(ACCESS_COOKIE, tokens.accessToken);
  client.cookies.set(REFRESH_COOKIE, tokens.refreshToken);
  return { user, client };
}

/**
 * N verified accounts inserted as rows, all with PASSWORD_HASH (property tests make hundreds:
 * one cheap hash for all instead of one createUser each).
 */
export async function insertPeople(app: App, n: number, passwordHash: string): Promise<UserRow[]> {
  const now = app.clock.now();
  const out: UserRow[] = [];
  for (let i = 0; i < n; i++) {
    // the end of a cuid: ids made together share their first characters
    const name = `p${newCuid().slice(-12)}`;
    out.push(
      await app.db
        .insertInto("users")
        .values({
          cuid: newCuid(),
          email: `${name}@example.test`,
          username: name,
          username_lower: name,
          display_name: name,
          password_hash: passwordHash,
          email_verified_at: now,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow(),
    );
  }
  return out;
}
