import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { consumeSignInLink } from "../../domain/auth/sign-in-links";
import { assertUsable } from "../../domain/sessions/service";
import { findUserById } from "../../domain/users/service";
import { clientIp } from "../../http/client-ip";
import { openSession } from "./session-cookies";

export const SIGN_IN_LINK_PATH = "/auth/sign-in-link";

const USED_PAGE = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Sign-in link used</title>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem">
<h1>This sign-in link was already used or has expired</h1>
<p>A sign-in link works once, for 15 minutes. Press Enter in the terminal running <code>socialctl dev</code> for a new one.</p>
<p><a href="/">Open the app</a></p></body></html>`;

/**
 * GET /auth/sign-in-link?t=TOKEN: opening a sandbox's one-time link signs this browser in as
 * its person and lands on LANDING (a path of this site: their chat with the bot). Mounted only
 * on the server `socialctl dev` runs (wiring.ts), the one place links are made: a GET that
 * signs in would otherwise let any page sign a visitor in to an account of the page's choosing.
 */
export function signInLinkRoutes(app: App, landing: string) {
  return new Elysia({ name: "sandbox-sign-in-link" }).get(
    SIGN_IN_LINK_PATH,
    async ({ query, request, server, set }) => {
      const userId = await consumeSignInLink(app.db, app.clock.now(), query.t);
      const user = userId === null ? undefined : await findUserById(app.db, userId);
      if (!user) {
        set.status = 410;
        set.headers["content-type"] = "text/html; charset=utf-8";
        return USED_PAGE;
      }
      assertUsable(user);
      await openSession(app, { request, ip: clientIp(request, server, app.config.trustProxy), set }, user);
      set.status = 303;
      set.headers.location = landing;
      set.headers["cache-control"] = "no-store";
      return "";
    },
    { query: t.Object({ t: t.String({ maxLength: 200 }) }) },
  );
}
