import { doc } from "../docs";
import { Account, QrRequest, QrStart } from "../schemas";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import {
  approveQrLogin,
  claimQrLogin,
  getQrRequest,
  QR_POLL_INTERVAL_MS,
  refuseQrLogin,
  startQrLogin,
} from "../../domain/auth/qr";
import { assertUsable } from "../../domain/sessions/service";
import { findUserById } from "../../domain/users/service";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { toIso } from "../../lib/clock";
import { notFound } from "../../lib/errors";
import { serializeAccount } from "../serializers/account";
import { assertRequestDeviceAllowed, openSession } from "./session-cookies";

const TokenBody = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) });

/** QR login: a program starts and polls; a signed-in device approves (or refuses); the program claims its session once. */
export function qrRoutes(app: App) {
  return new Elysia({ name: "client-auth-qr" })
    .use(requestContext(app))
    .post(
      "/start",
      async ({ request, ip }) => {
        const { token, expiresAt } = await startQrLogin(app.db, app.clock.now(), {
          userAgent: request.headers.get("user-agent") ?? "",
          ip,
        });
        return ok({
          token,
          expiresAt: toIso(expiresAt),
          pollIntervalMs: QR_POLL_INTERVAL_MS,
          link: `${app.config.baseUrl}/auth/link?t=${token}`,
        });
      },
      {
        detail: doc("Start a QR login: show `link` as a QR code, then poll /status", {
          data: QrStart,
        }),
      },
    )
    .get(
      "/status",
      async ({ query }) => {
        // the device is the asker's own: whoever holds the token is the asker or the person deciding
        const { status, device } = await getQrRequest(app.db, app.clock.now(), query.token);
        const answer: typeof QrRequest.static = {
          status,
          device: { ...device, requestedAt: toIso(device.requestedAt) },
        };
        return ok(answer);
      },
      {
        query: TokenBody,
        detail: doc("Poll a QR login: PENDING, APPROVED (then /claim), REFUSED, CLAIMED or EXPIRED", {
          data: QrRequest,
        }),
      },
    )
    .post(
      "/approve",
      async ({ body, user }) => {
        await approveQrLogin(app.db, app.clock.now(), body.token, user.id);
        return ok({ status: "APPROVED" });
      },
      {
        auth: true,
        body: TokenBody,
        detail: doc("Approve a QR login from this signed-in device", {
          data: t.Object({ status: t.Literal("APPROVED") }),
        }),
      },
    )
    .post(
      "/refuse",
      async ({ body }) => {
        await refuseQrLogin(app.db, app.clock.now(), body.token);
        return ok({ status: "REFUSED" });
      },
      {
        auth: true,
        body: TokenBody,
        detail: doc("Refuse a QR login", { data: t.Object({ status: t.Literal("REFUSED") }) }),
      },
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
      {
        body: TokenBody,
        detail: doc("Claim an approved QR login: sets this program's session cookies", {
          data: t.Object({ account: Account }),
          errors: ["ACCOUNT_DISABLED", "DEVICE_BANNED"],
        }),
      },
    );
}
