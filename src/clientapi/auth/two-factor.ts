import { doc } from "../docs";
import { TotpSetup } from "../schemas";
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
    .post("/totp/setup", async ({ user }) => ok(await startTotpSetup(app, user)), {
      auth: true,
      detail: doc("Start TOTP enrolment: a secret and its otpauth:// URL for an authenticator app", {
        data: TotpSetup,
      }),
    })
    .post(
      "/totp/enable",
      async ({ body, user }) =>
        ok({ twoFactorMethod: "totp", recoveryCodes: await enableTotp(app, user, body.code, body.password) }),
      {
        auth: true,
        body: t.Object({ code: Code, password: Proof.password }),
        detail: doc("Turn TOTP on with a code from the authenticator; answers the recovery codes", {
          data: t.Object({ twoFactorMethod: t.Literal("totp"), recoveryCodes: t.Array(t.String()) }),
          errors: ["TWO_FACTOR_INVALID_CODE", "INVALID_CREDENTIALS"],
        }),
      },
    )
    .post(
      "/disable",
      async ({ body, user }) => {
        await disableTwoFactor(app, user, body);
        return ok({ twoFactorMethod: "none" });
      },
      {
        auth: true,
        body: t.Object(Proof),
        detail: doc("Turn two-factor sign-in off (with the password or a current code)", {
          data: t.Object({ twoFactorMethod: t.Literal("none") }),
          errors: ["TWO_FACTOR_INVALID_CODE", "INVALID_CREDENTIALS"],
        }),
      },
    )
    .post("/method", async ({ body, user }) => ok(await setTwoFactorMethod(app, user, body)), {
      auth: true,
      body: t.Object({ method: t.Union([t.Literal("totp"), t.Literal("email"), t.Literal("messenger")]), ...Proof }),
      detail: doc("Choose how the second factor is delivered: totp, email or messenger", {
        data: t.Object({ twoFactorMethod: t.String() }),
        errors: ["TWO_FACTOR_INVALID_CODE", "INVALID_CREDENTIALS"],
      }),
    });
}
