import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { revokeSession } from "../../domain/sessions/service";
import { clearCookie, CSRF_COOKIE, ACCESS_COOKIE, REFRESH_COOKIE, serializeCookie } from "../../http/cookies";
import { issueCsrfToken } from "../../http/csrf";
import { ok } from "../../http/envelope";
import { addSetCookies, requestContext } from "../../http/context";
import { serializeAccount } from "../serializers/account";
import { signIn } from "./login";
import { assertRequestDeviceAllowed, openSession } from "./session-cookies";
import { registerRoutes } from "./register";
import { emailRoutes } from "./email";
import { sessionRoutes } from "./sessions";
import { passwordRoutes } from "./password";
import { twoFactorRoutes } from "./two-factor";
import { qrRoutes } from "./qr";

const LoginBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  password: t.String({ minLength: 1, maxLength: 128 }),
  twoFactorCode: t.Optional(t.String({ maxLength: 32 })),
});

/**
 * Sign-in side of the Client API, /api/auth/*:
 *   GET csrf, POST login, GET me, POST logout                 (here)
 *   GET captcha, POST register                                (register.ts)
 *   POST email/verify, POST email/resend                      (email.ts)
 *   GET sessions, DELETE sessions/:id, POST sessions/revoke-others (sessions.ts)
 *   POST password/change, password/forgot, password/reset     (password.ts)
 *   POST 2fa/totp/setup, 2fa/totp/enable, 2fa/disable, 2fa/method (two-factor.ts)
 *   POST qr/start, GET qr/status, POST qr/approve, qr/claim   (qr.ts)
 */
export function authRoutes(app: App) {
  return new Elysia({ name: "client-auth", prefix: "/auth" })
    .use(requestContext(app))
    .get("/csrf", ({ set }) => {
      const csrfToken = issueCsrfToken(app.secret);
      // readable by scripts (double submit): not httpOnly; lives as long as a refresh token
      addSetCookies(set as never, [serializeCookie(app, CSRF_COOKIE, csrfToken, { httpOnly: false, maxAgeSeconds: app.config["auth.refreshTtlSeconds"] })]);
      // the app explains the sign-up mode (open, captcha, closed) before anyone fills the form in
      return ok({ csrfToken, captchaRequired: app.config.registration === "captcha", registration: app.config.registration });
    })
    .post(
      "/login",
      async ({ body, request, ip, set }) => {
        // a banned device learns nothing about the credentials it tries
        await assertRequestDeviceAllowed(app, request);
        const user = await signIn(app, { ...body, ip });
        await openSession(app, { request, ip, set }, user);
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
    )
    .use(registerRoutes(app))
    .use(emailRoutes(app))
    .use(sessionRoutes(app))
    .use(passwordRoutes(app))
    .use(twoFactorRoutes(app))
    .use(qrRoutes(app));
}
