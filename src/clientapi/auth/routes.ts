import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { createSession, revokeSession } from "../../domain/sessions/service";
import { clearCookie, CSRF_COOKIE, ACCESS_COOKIE, REFRESH_COOKIE, serializeCookie } from "../../http/cookies";
import { issueCsrfToken } from "../../http/csrf";
import { ok } from "../../http/envelope";
import { addSetCookies, requestContext, sessionCookies, sessionTtls } from "../../http/context";
import { serializeAccount } from "../serializers/account";
import { signIn } from "./login";

const LoginBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  password: t.String({ minLength: 1, maxLength: 128 }),
  twoFactorCode: t.Optional(t.String({ maxLength: 32 })),
});

/** Sign-in side of the Client API: /api/auth/* */
export function authRoutes(app: App) {
  return new Elysia({ name: "client-auth", prefix: "/auth" })
    .use(requestContext(app))
    .get("/csrf", ({ set }) => {
      const csrfToken = issueCsrfToken(app.secret);
      // readable by scripts (double submit): not httpOnly; lives as long as a refresh token
      addSetCookies(set as never, [serializeCookie(app, CSRF_COOKIE, csrfToken, { httpOnly: false, maxAgeSeconds: app.config["auth.refreshTtlSeconds"] })]);
      return ok({ csrfToken, captchaRequired: app.config.registration === "captcha" });
    })
    .post(
      "/login",
      async ({ body, request, ip, set }) => {
        const user = await signIn(app, { ...body, ip });
        const { tokens } = await createSession(app.db, app.clock.now(), sessionTtls(app), {
          userId: user.id,
          userAgent: request.headers.get("user-agent") ?? "",
          ip,
        });
        addSetCookies(set as never, sessionCookies(app, tokens));
        return ok({ account: serializeAccount(user) });
      },
      { body: LoginBody },
    )
    .get("/me", ({ user }) => ok({ account: serializeAccount(user) }), { auth: true })
    .post(
      "/logout",
      async ({ session, set }) => {
        await revokeSession(app.db, app.clock.now(), session.id);
        app.events.publish(session.user_id, "session:revoked", { sessionId: session.cuid });
        addSetCookies(set as never, [clearCookie(app, ACCESS_COOKIE), clearCookie(app, REFRESH_COOKIE)]);
        return ok({});
      },
      { auth: true },
    );
}
