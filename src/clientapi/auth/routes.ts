import { Elysia, t } from "elysia";
import { doc } from "../docs";
import { Account, Captcha, CsrfAnswer } from "../schemas";
import type { App } from "../../app";
import { revokeSessionAndNotify } from "../../domain/sessions/revoke";
import { clearCookie, CSRF_COOKIE, ACCESS_COOKIE, REFRESH_COOKIE, serializeCookie } from "../../http/cookies";
import { issueCsrfToken } from "../../http/csrf";
import { ok, requestLanguage } from "../../http/envelope";
import { addSetCookies, requestContext } from "../../http/context";
import { accountJson, serializeAccount } from "../serializers/account";
import { signIn } from "./login";
import { assertRequestDeviceAllowed, openSession } from "./session-cookies";
import { createCaptcha } from "../../domain/auth/captcha";
import { textFor } from "../../domain/users/language";
import { registerAccount } from "../../domain/auth/registration";
import { loadSharp } from "../../media/sharp";
import { acceptedLanguages, pickLanguage } from "../../locales/languages";

const RegisterBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  username: t.String({ minLength: 1, maxLength: 32 }),
  password: t.String({ minLength: 1, maxLength: 128 }),
  displayName: t.Optional(t.String({ maxLength: 64 })),
  captchaId: t.Optional(t.String({ maxLength: 64 })),
  captchaAnswer: t.Optional(t.String({ maxLength: 32 })),
  acceptRules: t.Optional(
    t.Boolean({
      description: "true: the person accepted the rules of GET /api/instance (required while there are any)",
    }),
  ),
  inviteCode: t.Optional(t.String({ maxLength: 64 })),
});
const LoginBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  password: t.String({ minLength: 1, maxLength: 128 }),
  twoFactorCode: t.Optional(t.String({ maxLength: 32 })),
});

/** A new CSRF token, set as the csrf_token cookie too, and the sign-up mode (GET /api/auth/csrf, GET /api/start). */
export function issueCsrf(app: App, set: unknown): typeof CsrfAnswer.static {
  const csrfToken = issueCsrfToken(app.secret);
  // readable by scripts (double submit): not httpOnly; lives as long as a refresh token
  addSetCookies(set as never, [
    serializeCookie(app, CSRF_COOKIE, csrfToken, {
      httpOnly: false,
      maxAgeSeconds: app.config["auth.refreshTtlSeconds"],
    }),
  ]);
  // the app explains the sign-up mode (open, captcha, invite, closed) before anyone fills the form in
  return {
    csrfToken,
    captchaRequired: app.config.registration === "captcha",
    registration: app.config.registration,
  };
}

/**
 * /api/auth: GET csrf, POST login, GET me, POST logout, GET captcha, POST register (self-service
 * sign-up; the person then signs in with POST login). Sessions, 2fa, qr, email and password have their
 * own prefixes under /api/auth (see the route table in clientapi/index.ts).
 */
export function authRoutes(app: App) {
  return new Elysia({ name: "client-auth" })
    .use(requestContext(app))
    .get("/csrf", ({ set }) => ok(issueCsrf(app, set)), {
      detail: doc("Get a CSRF token (also set as the csrf_token cookie)", { data: CsrfAnswer }),
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
      {
        body: LoginBody,
        detail: doc("Sign in with e-mail and password (sets the session cookies)", {
          data: t.Object({ account: Account }),
          errors: [
            "INVALID_CREDENTIALS",
            "EMAIL_NOT_VERIFIED",
            "TWO_FACTOR_REQUIRED",
            "TWO_FACTOR_EMAIL_REQUIRED",
            "TWO_FACTOR_TELEGRAM_REQUIRED",
            "TWO_FACTOR_INVALID_CODE",
            "ACCOUNT_DISABLED",
            "DEVICE_BANNED",
          ],
        }),
      },
    )
    .get("/me", ({ user, set }) => accountJson(set, user), {
      auth: true,
      detail: doc("The signed-in account", { data: t.Object({ account: Account }) }),
    })
    .post(
      "/logout",
      async ({ session, set }) => {
        await revokeSessionAndNotify(app, session);
        addSetCookies(set as never, [clearCookie(app, ACCESS_COOKIE), clearCookie(app, REFRESH_COOKIE)]);
        return ok({});
      },
      { auth: true, detail: doc("Sign out this session (clears the session cookies)") },
    )
    .get(
      "/captcha",
      async ({ request }) =>
        ok(await createCaptcha(app.db, app.clock.now(), await loadSharp(app), await textFor(requestLanguage(request)))),
      {
        detail: doc(
          "A captcha for registration: a picture of a code and a text question (in the Accept-Language asked for); either answer passes",
          {
            data: Captcha,
          },
        ),
      },
    )
    .post(
      "/register",
      async ({ body, request }) => {
        await assertRequestDeviceAllowed(app, request);
        // the server writes to the person (mails, pushes) in the language their browser asked for, when it has it
        const language = pickLanguage(acceptedLanguages(request.headers.get("accept-language")));
        await registerAccount(app, { ...body, language });
        // the same answer whether or not the address already had an account (it gets a mail instead)
        return ok({ sent: true });
      },
      {
        body: RegisterBody,
        detail: doc(
          "Create an account; then sign in with POST login. Answers the same whether or not the e-mail address already has an account: a new address gets a confirmation mail, a known one a mail saying someone tried",
          {
            data: t.Object({ sent: t.Literal(true) }),
            errors: [
              "CAPTCHA_REQUIRED",
              "CAPTCHA_FAILED",
              "INVITE_REQUIRED",
              "INVITE_INVALID",
              "INVITE_EXPIRED",
              "INVITE_USED_UP",
              "FORBIDDEN",
              "DEVICE_BANNED",
            ],
          },
        ),
      },
    );
}
