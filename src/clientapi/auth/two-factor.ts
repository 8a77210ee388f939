import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { disableTwoFactor, enableTotp, setTwoFactorMethod, startTotpSetup } from "../../domain/auth/two-factor";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";

const Code = t.String({ minLength: 1, maxLength: 32 });
const Proof = { password: t.Optional(t.String({ minLength: 1, maxLength: 128 })), code: t.Optional(Code) };

/** Two-factor settings of the signed-in account: TOTP enrolment, method choice, switching off. */
export function twoFactorRoutes(app: App) {
  return new Elysia({ name: "client-auth-2fa" })
    .use(requestContext(app))
    .post("/totp/setup", async ({ user }) => ok(await startTotpSetup(app, user)), { auth: true })
    .post(
      "/totp/enable",
      async ({ body, user }) =>
        ok({ twoFactorMethod: "totp", recoveryCodes: await enableTotp(app, user, body.code, body.password) }),
      { auth: true, body: t.Object({ code: Code, password: Proof.password }) },
    )
    .post(
      "/disable",
      async ({ body, user }) => {
        await disableTwoFactor(app, user, body);
        return ok({ twoFactorMethod: "none" });
      },
      { auth: true, body: t.Object(Proof) },
    )
    .post("/method", async ({ body, user }) => ok(await setTwoFactorMethod(app, user, body)), {
      auth: true,
      body: t.Object({ method: t.Union([t.Literal("totp"), t.Literal("email"), t.Literal("messenger")]), ...Proof }),
    });
}
