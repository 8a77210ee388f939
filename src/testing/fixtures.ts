import type { App } from "../app";
import { createUser, type NewUser } from "../domain/users/service";
import type { UserRow } from "../domain/users/table";
import { TestClient } from "./client";

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
export async function signedInClient(server: { app: App; url: string }, input: Partial<NewUser> = {}) {
  const user = await makeUser(server.app, input);
  const client = new TestClient(server.url);
  const res = await client.login(user.email!, user.password);
  if (res.status !== 200) throw new Error(`login failed: ${JSON.stringify(res.body)}`);
  return { user, client };
}
