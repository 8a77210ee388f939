import { doc } from "../docs";
import { Session } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { findLiveSession, listLiveSessions } from "../../domain/sessions/service";
import { revokeSessionAndNotify, revokeSessionsAndNotify } from "../../domain/sessions/revoke";
import type { SessionRow } from "../../domain/sessions/table";
import { ACCESS_COOKIE, REFRESH_COOKIE, clearCookie } from "../../http/cookies";
import { addSetCookies, requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { notFound } from "../../lib/errors";

const serializeSession = (s: SessionRow, currentId: number) => ({
  id: s.cuid,
  userAgent: s.user_agent,
  ip: s.ip,
  createdAt: toIso(s.created_at),
  lastSeenAt: toIso(s.last_seen_at),
  current: s.id === currentId,
});

/** The signed-in devices of the account: list, sign one out, sign out all others. */
export function sessionRoutes(app: App) {
  return new Elysia({ name: "client-auth-sessions" })
    .use(requestContext(app))
    .get(
      "",
      async ({ user, session }) => {
        const rows = await listLiveSessions(app.db, app.clock.now(), user.id);
        return ok({ sessions: rows.map((s) => serializeSession(s, session.id)) });
      },
      {
        auth: true,
        detail: doc("The account's signed-in devices", { data: t.Object({ sessions: t.Array(Session) }) }),
      },
    )
    .delete(
      "/:id",
      async ({ params, user, session, set }) => {
        const target = await findLiveSession(app.db, app.clock.now(), user.id, params.id);
        if (!target) throw notFound("No such session");
        await revokeSessionAndNotify(app, target);
        if (target.id === session.id)
          addSetCookies(set as never, [clearCookie(app, ACCESS_COOKIE), clearCookie(app, REFRESH_COOKIE)]);
        return ok({ revoked: true, current: target.id === session.id });
      },
      {
        auth: true,
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
        detail: doc("Sign out one device", { data: t.Object({ revoked: t.Boolean(), current: t.Boolean() }) }),
      },
    )
    .post(
      "/revoke-others",
      async ({ user, session }) => ok({ revoked: await revokeSessionsAndNotify(app, user.id, session.id) }),
      {
        auth: true,
        detail: doc("Sign out every other device", {
          data: t.Object({ revoked: t.Integer({ description: "how many" }) }),
        }),
      },
    );
}
