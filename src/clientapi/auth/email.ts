import { doc } from "../docs";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { resendEmailVerification, verifyEmailWithCode, verifyEmailWithToken } from "../../domain/auth/verification";
import { assertUsable } from "../../domain/sessions/service";
import { deviceBanned } from "../../domain/auth/devices";
import { fieldError, unauthorized } from "../../lib/errors";
import { ok } from "../../http/envelope";
import { requestContext, resolveAuth } from "../../http/context";

const VerifyBody = t.Object({
  code: t.Optional(t.String({ maxLength: 16 })),
  token: t.Optional(t.String({ maxLength: 200 })),
});

/** POST /auth/email/verify {code} (signed in) or {token} (from the link); POST /auth/email/resend. */
export function emailRoutes(app: App) {
  return new Elysia({ name: "client-auth-email" })
    .use(requestContext(app))
    .post(
      "/verify",
      async ({ body, request, ip }) => {
        if (body.token) {
          await verifyEmailWithToken(app, body.token);
          return ok({ emailVerified: true });
        }
        if (!body.code) throw fieldError("code", "is required (or give the link's token)");
        const found = await resolveAuth(app, request, ip);
        if (!found) throw unauthorized("Sign in to confirm with a code, or use the link's token");
        assertUsable(found.user);
        if (found.deviceBanned) throw deviceBanned();
        await verifyEmailWithCode(app, found.user, body.code);
        return ok({ emailVerified: true });
      },
      {
        body: VerifyBody,
        detail: doc("Confirm the e-mail address with the mailed code (signed in) or the link's token", {
          data: t.Object({ emailVerified: t.Literal(true) }),
          errors: ["UNAUTHORIZED", "ACCOUNT_DISABLED", "DEVICE_BANNED"],
        }),
      },
    )
    .post("/resend", async ({ user }) => ok({ sent: await resendEmailVerification(app, user) }), {
      auth: true,
      detail: doc("Mail the confirmation code and link again", { data: t.Object({ sent: t.Boolean() }) }),
    });
}
