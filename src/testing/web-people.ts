import type { Browser } from "playwright-core";
import type { App } from "../app";
import { newPerson } from "./browser";
import type { TestClient } from "./client";
import { quickPerson } from "./fixtures";

/**
 * A fresh account already signed in in a new browser profile: the session of `quickPerson`
 * (no password hashing) copied into the browser's cookies. CLIENT speaks for the same session
 * over the API, for the parts of a journey that happen elsewhere.
 */
export async function signedInBrowser(browser: Browser, server: { app: App; url: string }, opts: Parameters<typeof newPerson>[2] & { username?: string; displayName?: string } = {}) {
  const { user, client } = await quickPerson(server, { username: opts.username, displayName: opts.displayName });
  const person = await newPerson(browser, server.url, opts);
  await person.context.addCookies(cookiesOf(client, server.url));
  return { ...person, user, client };
}

/** CLIENT's cookies in the shape a browser context takes. */
export const cookiesOf = (client: TestClient, url: string) => [...client.cookies].map(([name, value]) => ({ name, value: encodeURIComponent(value), url }));
