import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { approveQrLogin, claimQrLogin, getQrStatus, QR_POLL_INTERVAL_MS, startQrLogin } from "../../domain/auth/qr";
import { assertUsable } from "../../domain/sessions/service";
import { findUserById } from "../../domain/users/service";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { notFound } from "../../lib/errors";
import { serializeAccount } from "../serializers/account";
import { assertRequestDeviceAllowed, openSession } from "./session-cookies";

const TokenBody = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) });

/** QR login: a program starts and polls; a signed-in device approves; the program claims its session once. */
export function qrRoutes(app: App) {
  return new Elysia({ name: "client-auth-qr" })
    .use(requestContext(app))
    .post("/start", async () => {
      const { token, expiresAt } = await startQrLogin(app.db, app.clock.now());
      return ok({ token, expiresAt: toIso(expiresAt), pollIntervalMs: QR_POLL_INTERVAL_MS, link: `${app.config.baseUrl}/auth/link?t=${token}` });
    })
    .get("/status", async ({ query }) => ok({ status: await getQrStatus(app.db, app.clock.now(), query.token) }), { query: TokenBody })
    .post(
      "/approve",
      async ({ body, user }) => {
        await approveQrLogin(app.db, app.clock.now(), body.token, user.id);
        return ok({ status: "APPROVED" });
      },
      { auth: true, body: TokenBody },
    )
    .post(
      "/claim",
      async ({ body, request, ip, set }) => {
        await assertRequestDeviceAllowed(app, request);
        const userId = await claimQrLogin(app.db, app.clock.now(), body.token);
        const user = await findUserById(app.db, userId);
        if (!user) throw notFound("The approving account no longer exists");
        assertUsable(user);
        await openSession(app, { request, ip, set }, user);
        return ok({ account: serializeAccount(user) });
      },
      { body: TokenBody },
    );
}
