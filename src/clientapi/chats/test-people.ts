import type { App } from "../../app";
import { createSession } from "../../domain/sessions/service";
import type { UserRow } from "../../domain/users/table";
import { sessionCookies, sessionTtls } from "../../http/context";
import { newCuid } from "../../lib/ids";
import { TestClient } from "../../testing/client";

let counter = 0;

/**
 * A signed-in person for chat tests, made without password hashing (bcrypt would dominate
 * these files' run time): the account row is inserted and a real session's cookies are put
 * in the client's jar, so every request still goes through cookie authentication and CSRF.
 */
export async function quickPerson(server: { app: App; url: string }): Promise<{ user: UserRow & { password: string }; client: TestClient }> {
  const { app } = server;
  const n = ++counter;
  const username = `chat${n}_${Math.random().toString(36).slice(2, 7)}`;
  const now = app.clock.now();
  const user = await app.db
    .insertInto("users")
    .values({ cuid: newCuid(), email: `${username}@example.test`, username, username_lower: username, display_name: username, password_hash: null, email_verified_at: now, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  const { tokens } = await createSession(app.db, now, sessionTtls(app), { userId: user.id, userAgent: "chat-tests", ip: "127.0.0.1" });
  const client = new TestClient(server.url);
  for (const cookie of sessionCookies(app, tokens)) {
    const [pair] = cookie.split(";");
    const eq = pair!.indexOf("=");
    client.cookies.set(pair!.slice(0, eq), decodeURIComponent(pair!.slice(eq + 1)));
  }
  return { user: { ...user, password: "" }, client };
}
