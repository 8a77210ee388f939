import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { issueSignInLink, SIGN_IN_LINK_TTL_MS } from "../../domain/auth/sign-in-links";
import type { UserRow } from "../../domain/users/table";
import { setPassword } from "../../domain/users/service";
import { TestClient } from "../../testing/client";
import { quickPerson } from "../../testing/fixtures";
import { startTestServer, type TestServer } from "../../testing/server";
import { SIGN_IN_LINK_PATH } from "./sign-in-link";

let sandbox: TestServer;
let plain: TestServer;
let person: UserRow;

beforeAll(async () => {
  [sandbox, plain] = await Promise.all([
    startTestServer({}, { sandbox: { landing: "/dashboard/messages?user=sandbox_bot" } }),
    startTestServer(),
  ]);
  ({ user: person } = await quickPerson(sandbox));
});
afterAll(() => Promise.all([sandbox.stop(), plain.stop()]));

/** Opens a link TOKEN on SERVER in a fresh browser-like client; the client keeps what it was given. */
async function open(server: TestServer, token: string) {
  const client = new TestClient(server.url);
  const res = await client.get(`${SIGN_IN_LINK_PATH}?t=${encodeURIComponent(token)}`, {
    headers: { accept: "text/html" },
  });
  return { client, res };
}

describe("the sandbox's one-time sign-in link", () => {
  test("signs in once and lands where the sandbox said", async () => {
    const token = await issueSignInLink(sandbox.app, person.id);
    const { client, res } = await open(sandbox, token);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/messages?user=sandbox_bot");
    expect((await client.get("/api/auth/me")).body.data.account.username).toBe(person.username);

    const again = await open(sandbox, token);
    expect(again.res.status).toBe(410);
    expect(again.res.body).toContain("This sign-in link was already used or has expired");
    expect(again.client.cookies.has("auth_access_token")).toBe(false);
  });

  test("expires, and a newer link replaces an unused older one", async () => {
    const expiring = await issueSignInLink(sandbox.app, person.id);
    sandbox.clock.advance(SIGN_IN_LINK_TTL_MS);
    expect((await open(sandbox, expiring)).res.status).toBe(410);

    const older = await issueSignInLink(sandbox.app, person.id);
    const newer = await issueSignInLink(sandbox.app, person.id);
    expect((await open(sandbox, older)).res.status).toBe(410);
    expect((await open(sandbox, newer)).res.status).toBe(303);
    expect((await open(sandbox, "made-up")).res.status).toBe(410);
  });

  test("a password change voids an unused link", async () => {
    const { user } = await quickPerson(sandbox);
    const token = await issueSignInLink(sandbox.app, user.id);
    await setPassword(sandbox.app, user.id, "a changed password");
    expect((await open(sandbox, token)).res.status).toBe(410);
  });

  test("a server not started by socialctl dev has no such route: a real token signs nobody in", async () => {
    const { user } = await quickPerson(plain);
    const token = await issueSignInLink(plain.app, user.id);
    const { client, res } = await open(plain, token);
    expect(res.status).toBe(200); // the app's page, as for any address it does not serve
    expect(client.cookies.has("auth_access_token")).toBe(false);
    // the token was never used: the route, not the token, is what is missing
    const row = await plain.app.db.selectFrom("auth_codes").select("used_at").executeTakeFirstOrThrow();
    expect(row.used_at).toBeNull();
  });
});
