import { createPublicKey } from "node:crypto";
import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { activeMemberIds, findConversationByCuid } from "../../domain/chats";
import {
  getPushSettings,
  listSubscriptions,
  removeSubscription,
  saveSubscription,
  setViewing,
  updatePushSettings,
  VIEWING_TTL_MS,
} from "../../domain/push/service";
import { pushSubscribers } from "../../domain/push/subscribers";
import { getEmailSettings, updateEmailSettings } from "../../domain/notifications/email-digest";
import type { PushSubscriptionRow } from "../../domain/push/table";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { allowPrivatePush, outboundUrlProblem } from "../../http/outbound";
import { toIso } from "../../lib/clock";
import { fieldError, notFound } from "../../lib/errors";
import { doc } from "../docs";
import { EmailSettings, NotificationSettings, PushDevice, PushSettings } from "../schemas";

const Base64Url = (maxLength: number) => t.String({ minLength: 1, maxLength, pattern: "^[A-Za-z0-9_-]+={0,2}$" });

const SubscribeBody = t.Object({
  endpoint: t.String({
    minLength: 1,
    maxLength: 2048,
    description: "the push service's URL (PushSubscription.endpoint)",
  }),
  keys: t.Object({
    p256dh: Base64Url(100),
    auth: Base64Url(40),
  }),
});

const PushSettingsPatch = t.Partial(PushSettings);
const EmailSettingsPatch = t.Partial(EmailSettings);

const serializeSubscription = (s: PushSubscriptionRow, sessionId: number): typeof PushDevice.static => ({
  id: s.cuid,
  userAgent: s.user_agent,
  createdAt: toIso(s.created_at),
  lastUsedAt: s.last_used_at === null ? null : toIso(s.last_used_at),
  current: s.session_id === sessionId,
});

/** The browser's P-256 public key must be a point on the curve, or every push to it would fail to encrypt. */
function checkKeys(p256dh: string, auth: string): void {
  const point = Buffer.from(p256dh, "base64url");
  let valid = point.length === 65 && point[0] === 4;
  if (valid) {
    try {
      createPublicKey({
        key: {
          kty: "EC",
          crv: "P-256",
          x: point.subarray(1, 33).toString("base64url"),
          y: point.subarray(33).toString("base64url"),
        },
        format: "jwk",
      });
    } catch {
      valid = false;
    }
  }
  if (!valid) throw fieldError("keys.p256dh", "must be an uncompressed P-256 public key (65 bytes, base64url)");
  if (Buffer.from(auth, "base64url").length !== 16) throw fieldError("keys.auth", "must be 16 bytes, base64url");
}

/** /api/push: the instance's VAPID key, this person's browsers that receive pushes, and the chat on screen. */
export function pushRoutes(app: App) {
  return new Elysia({ name: "client-push" })
    .use(requestContext(app))
    .get("/key", () => ok({ publicKey: app.vapid.publicKey }), {
      detail: doc("The instance's VAPID public key (base64url): pushManager.subscribe's applicationServerKey", {
        data: t.Object({ publicKey: t.String() }),
      }),
    })
    .get(
      "/subscriptions",
      async ({ user, session }) => {
        const rows = await listSubscriptions(app.db, app.clock.now(), user.id);
        return ok({ subscriptions: rows.map((s) => serializeSubscription(s, session.id)) });
      },
      {
        auth: true,
        detail: doc("The browsers that receive this account's pushes", {
          data: t.Object({ subscriptions: t.Array(PushDevice) }),
        }),
      },
    )
    .post(
      "/subscriptions",
      async ({ body, user, session, request }) => {
        const problem = outboundUrlProblem(app, body.endpoint, allowPrivatePush(app));
        if (problem) throw fieldError("endpoint", problem);
        checkKeys(body.keys.p256dh, body.keys.auth);
        const row = await saveSubscription(app.db, app.clock.now(), {
          userId: user.id,
          sessionId: session.id,
          endpoint: body.endpoint,
          p256dh: body.keys.p256dh.replace(/=+$/, ""),
          auth: body.keys.auth.replace(/=+$/, ""),
          userAgent: (request.headers.get("user-agent") ?? "").slice(0, 512),
        });
        pushSubscribers(app).add(user.id);
        return ok({ subscription: { id: row.cuid } });
      },
      {
        auth: true,
        body: SubscribeBody,
        detail: doc(
          "Receive pushes in this browser (a PushSubscription's endpoint and keys); it ends when this session signs out",
          { data: t.Object({ subscription: t.Object({ id: t.String() }) }) },
        ),
      },
    )
    .delete(
      "/subscriptions/:id",
      async ({ params, user }) => {
        await removeSubscription(app.db, user.id, params.id);
        return ok({ removed: true });
      },
      {
        auth: true,
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
        detail: doc("Stop pushes to one browser", { data: t.Object({ removed: t.Boolean() }), errors: ["NOT_FOUND"] }),
      },
    )
    .put(
      "/viewing",
      async ({ body, user, session }) => {
        let conversationId: number | null = null;
        if (body.chatId !== null) {
          const chat = await findConversationByCuid(app.db, body.chatId);
          if (!chat || !(await activeMemberIds(app.db, chat.id)).includes(user.id))
            throw notFound("Conversation not found");
          conversationId = chat.id;
        }
        await setViewing(app.db, app.clock.now(), { id: session.id, userId: user.id }, conversationId);
        return ok({ chatId: body.chatId, seconds: conversationId === null ? 0 : VIEWING_TTL_MS / 1000 });
      },
      {
        auth: true,
        body: t.Object({ chatId: t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()]) }),
        detail: doc(
          "The chat this browser shows now (null: none): no push about it while it is on screen. Holds for `seconds`; repeat it sooner while the chat stays open",
          { data: t.Object({ chatId: t.Union([t.String(), t.Null()]), seconds: t.Integer() }), errors: ["NOT_FOUND"] },
        ),
      },
    );
}

/** /api/account/notification-settings: which kinds of push the person gets, and whether a digest is mailed when away. */
export function notificationSettingsRoutes(app: App) {
  const settingsOf = async (userId: number) => ({
    push: await getPushSettings(app.db, userId),
    email: await getEmailSettings(app.db, userId),
  });
  return new Elysia({ name: "client-notification-settings" })
    .use(requestContext(app))
    .get("", async ({ user }) => ok(await settingsOf(user.id)), {
      auth: true,
      detail: doc(
        "Which kinds of push this account gets (every kind is on until switched off) and whether a digest of what was missed is mailed after mail.digestAfterHours away (off until switched on)",
        { data: NotificationSettings },
      ),
    })
    .patch(
      "",
      async ({ body, user }) => {
        const now = app.clock.now();
        if (body.push) await updatePushSettings(app.db, now, user.id, body.push);
        if (body.email) await updateEmailSettings(app.db, now, user.id, body.email);
        return ok(await settingsOf(user.id));
      },
      {
        auth: true,
        body: t.Object({ push: t.Optional(PushSettingsPatch), email: t.Optional(EmailSettingsPatch) }),
        detail: doc("Switch kinds of push, or the e-mail digest, on or off (settings left out keep their value)", {
          data: NotificationSettings,
        }),
      },
    );
}
