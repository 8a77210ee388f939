import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { createCaptcha } from "../../domain/auth/captcha";
import { loadSharp } from "../../media/sharp";
import { registerAccount } from "../../domain/auth/registration";
import { ok } from "../../http/envelope";
import { requestContext } from "../../http/context";
import { serializeAccount } from "../serializers/account";
import { assertRequestDeviceAllowed, openSession } from "./session-cookies";

const RegisterBody = t.Object({
  email: t.String({ minLength: 1, maxLength: 254 }),
  username: t.String({ minLength: 1, maxLength: 32 }),
  password: t.String({ minLength: 1, maxLength: 128 }),
  displayName: t.Optional(t.String({ maxLength: 64 })),
  captchaId: t.Optional(t.String({ maxLength: 64 })),
  captchaAnswer: t.Optional(t.String({ maxLength: 32 })),
});

/** GET /auth/captcha, POST /auth/register: self-service sign-up, which also signs the person in. */
export function registerRoutes(app: App) {
  return new Elysia({ name: "client-auth-register" })
    .use(requestContext(app))
    .get("/captcha", async () => ok(await createCaptcha(app.db, app.clock.now(), await loadSharp(app))))
    .post(
      "/register",
      async ({ body, request, ip, set }) => {
        await assertRequestDeviceAllowed(app, request);
        const user = await registerAccount(app, body);
        await openSession(app, { request, ip, set }, user);
        return ok({ account: serializeAccount(user) });
      },
      { body: RegisterBody },
    );
}
