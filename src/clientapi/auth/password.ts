import { doc } from "../docs";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { changePassword, requestPasswordReset, resetPassword } from "../../domain/auth/passwords";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { loginLimiter } from "./limits";

const Password = t.String({ minLength: 1, maxLength: 128 });

/** Password change (signed in), forgotten-password mail, and reset with the mailed token. */
export function passwordRoutes(app: App) {
  return new Elysia({ name: "client-auth-password" })
    .use(requestContext(app))
    .post(
      "/change",
      async ({ body, user, session, ip }) => {
        // guessing the current password from a stolen session costs login attempts
        await loginLimiter(app).consume(ip);
        const revokedSessions = await changePassword(app, user, session.id, body.currentPassword, body.newPassword);
        return ok({ passwordChanged: true, revokedSessions });
      },
      {
        auth: true,
        body: t.Object({ currentPassword: Password, newPassword: Password }),
        detail: doc("Change the password; other devices are signed out", {
          data: t.Object({ passwordChanged: t.Literal(true), revokedSessions: t.Integer() }),
          errors: ["INVALID_CREDENTIALS"],
        }),
      },
    )
    .post(
      "/forgot",
      async ({ body, ip }) => {
        await loginLimiter(app).consume(ip);
        await requestPasswordReset(app, body.email);
        // the same answer whether or not the address has an account
        return ok({ sent: true });
      },
      {
        body: t.Object({ email: t.String({ minLength: 1, maxLength: 254 }) }),
        detail: doc("Mail a password-reset link (answers the same whether the address is known or not)", {
          data: t.Object({ sent: t.Literal(true) }),
        }),
      },
    )
    .post(
      "/reset",
      async ({ body }) => {
        await resetPassword(app, body.token, body.newPassword);
        return ok({ passwordChanged: true });
      },
      {
        body: t.Object({ token: t.String({ minLength: 1, maxLength: 200 }), newPassword: Password }),
        detail: doc("Set a new password with the mailed token", {
          data: t.Object({ passwordChanged: t.Literal(true) }),
        }),
      },
    );
}
