import type { Db } from "../../db";
import { newCuid } from "../../lib/ids";
import { notFound } from "../../lib/errors";
import type { Insertable } from "kysely";
import { PUSH_KINDS, type NotificationSettingsTable, type PushKind, type PushSubscriptionRow } from "./table";

/** Which kinds of push an account gets. */
export type PushSettings = Record<PushKind, boolean>;

export const DEFAULT_PUSH_SETTINGS: PushSettings = Object.freeze({
  messages: true,
  mentions: true,
  replies: true,
  follows: true,
  reactions: true,
  payments: true,
});

const column = (kind: PushKind) => `push_${kind}` as const;

/** The account's push settings, defaults (every kind on) filled in. */
export async function getPushSettings(db: Db, userId: number): Promise<PushSettings> {
  const row = await db.selectFrom("notification_settings").selectAll().where("user_id", "=", userId).executeTakeFirst();
  if (!row) return { ...DEFAULT_PUSH_SETTINGS };
  return Object.fromEntries(PUSH_KINDS.map((k) => [k, row[column(k)] === 1])) as PushSettings;
}

/** Stores the changed kinds (absent ones keep their value) and returns the result. */
export async function updatePushSettings(
  db: Db,
  now: number,
  userId: number,
  patch: Partial<PushSettings>,
): Promise<PushSettings> {
  const next = { ...(await getPushSettings(db, userId)), ...patch };
  const columns = Object.fromEntries(PUSH_KINDS.map((k) => [column(k), next[k] ? 1 : 0])) as Record<
    ReturnType<typeof column>,
    number
  >;
  await storeNotificationSettings(db, now, userId, columns);
  return next;
}

/** Writes COLUMNS of the account's notification settings (the row made on its first change). */
export async function storeNotificationSettings(
  db: Db,
  now: number,
  userId: number,
  columns: Partial<Omit<Insertable<NotificationSettingsTable>, "user_id" | "updated_at">>,
): Promise<void> {
  const values = { ...columns, updated_at: now };
  await db
    .insertInto("notification_settings")
    .values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column("user_id").doUpdateSet(values))
    .execute();
}

export interface NewPushSubscription {
  userId: number;
  sessionId: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  userAgent: string;
}

/**
 * Stores a browser's subscription for the session that made it. The endpoint names the
 * browser: subscribing again (new keys, another account signed in on it) replaces the row, so
 * one browser never gets a push twice or one meant for whoever used it before. A session is
 * one browser: its earlier subscription (the browser's push service moved it) is replaced too.
 */
export async function saveSubscription(db: Db, now: number, s: NewPushSubscription): Promise<PushSubscriptionRow> {
  await db
    .deleteFrom("push_subscriptions")
    .where("session_id", "=", s.sessionId)
    .where("endpoint", "!=", s.endpoint)
    .execute();
  const values = {
    user_id: s.userId,
    session_id: s.sessionId,
    p256dh: s.p256dh,
    auth: s.auth,
    user_agent: s.userAgent,
    created_at: now,
    last_used_at: null,
  };
  return db
    .insertInto("push_subscriptions")
    .values({ cuid: newCuid(), endpoint: s.endpoint, ...values })
    .onConflict((oc) => oc.column("endpoint").doUpdateSet({ ...values, cuid: newCuid() }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The account's subscriptions on sessions still signed in, newest use first. */
export async function listSubscriptions(db: Db, now: number, userId: number): Promise<PushSubscriptionRow[]> {
  return db
    .selectFrom("push_subscriptions as p")
    .innerJoin("sessions as s", "s.id", "p.session_id")
    .selectAll("p")
    .where("p.user_id", "=", userId)
    .where("s.revoked_at", "is", null)
    .where("s.refresh_expires_at", ">", now)
    .orderBy((eb) => eb.fn.coalesce("p.last_used_at", "p.created_at"), "desc")
    .orderBy("p.id", "desc")
    .execute();
}

/** Removes one of the account's subscriptions by its public id (NOT_FOUND when it has none such). */
export async function removeSubscription(db: Db, userId: number, cuid: string): Promise<void> {
  const res = await db
    .deleteFrom("push_subscriptions")
    .where("user_id", "=", userId)
    .where("cuid", "=", cuid)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("No such push subscription");
}

/** Removes the subscriptions a signed-out session made (and what it had on screen). */
export async function forgetSession(db: Db, sessionId: number): Promise<void> {
  await db.deleteFrom("push_subscriptions").where("session_id", "=", sessionId).execute();
  await db.deleteFrom("chat_viewing").where("session_id", "=", sessionId).execute();
}

/** Removes the subscription at ENDPOINT: the push service said it is gone (404/410). */
export async function removeEndpoint(db: Db, endpoint: string): Promise<void> {
  await db.deleteFrom("push_subscriptions").where("endpoint", "=", endpoint).execute();
}

/** Notes that the push service accepted a push for the subscription at ENDPOINT. */
export async function markUsed(db: Db, now: number, endpoint: string): Promise<void> {
  await db.updateTable("push_subscriptions").set({ last_used_at: now }).where("endpoint", "=", endpoint).execute();
}

/** Where a push for one account goes. */
export type PushTarget = Pick<PushSubscriptionRow, "endpoint" | "p256dh" | "auth">;

/**
 * The subscriptions a push of KIND reaches among USERIDS: on sessions still usable (not
 * signed out, not expired, the account neither disabled nor deleted), of accounts that want
 * KIND. Grouped by account.
 */
export async function pushTargets(
  db: Db,
  now: number,
  userIds: readonly number[],
  kind: PushKind,
): Promise<Map<number, PushTarget[]>> {
  const out = new Map<number, PushTarget[]>();
  if (userIds.length === 0) return out;
  const rows = await db
    .selectFrom("push_subscriptions as p")
    .innerJoin("sessions as s", "s.id", "p.session_id")
    .innerJoin("users as u", "u.id", "p.user_id")
    .leftJoin("notification_settings as n", "n.user_id", "p.user_id")
    .select(["p.user_id", "p.endpoint", "p.p256dh", "p.auth"])
    .where("p.user_id", "in", [...new Set(userIds)])
    .where("s.revoked_at", "is", null)
    .where("s.refresh_expires_at", ">", now)
    .where("u.disabled_at", "is", null)
    .where("u.deleted_at", "is", null)
    .where((eb) => eb.or([eb(`n.${column(kind)}`, "is", null), eb(`n.${column(kind)}`, "=", 1)]))
    .execute();
  for (const r of rows) {
    const list = out.get(r.user_id) ?? [];
    list.push({ endpoint: r.endpoint, p256dh: r.p256dh, auth: r.auth });
    out.set(r.user_id, list);
  }
  return out;
}

/** How long the app's word that it shows a chat holds; it repeats sooner while the chat stays on screen. */
export const VIEWING_TTL_MS = 60_000;

/**
 * Records that SESSION shows CONVERSATIONID now (null: no chat), until VIEWING_TTL_MS from now.
 * The caller has checked the person is a member.
 */
export async function setViewing(
  db: Db,
  now: number,
  session: { id: number; userId: number },
  conversationId: number | null,
): Promise<void> {
  if (conversationId === null) {
    await db.deleteFrom("chat_viewing").where("session_id", "=", session.id).execute();
    return;
  }
  const values = { user_id: session.userId, conversation_id: conversationId, until: now + VIEWING_TTL_MS };
  await db
    .insertInto("chat_viewing")
    .values({ session_id: session.id, ...values })
    .onConflict((oc) => oc.column("session_id").doUpdateSet(values))
    .execute();
}

/** Who of the members has CONVERSATIONID on screen now, on any of their devices. */
export async function viewersOf(db: Db, now: number, conversationId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom("chat_viewing")
    .select("user_id")
    .where("conversation_id", "=", conversationId)
    .where("until", ">", now)
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

/**
 * Removes subscriptions of sessions that ended (signed out by another process, expired, the
 * account gone) and screens nobody has repeated: housekeeping. Returns how many rows went.
 */
export async function removeEndedPushState(db: Db, now: number): Promise<number> {
  const ended = await db
    .deleteFrom("push_subscriptions")
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("sessions as s")
            .select("s.id")
            .whereRef("s.id", "=", "push_subscriptions.session_id")
            .where("s.revoked_at", "is", null)
            .where("s.refresh_expires_at", ">", now),
        ),
      ),
    )
    .executeTakeFirst();
  const stale = await db.deleteFrom("chat_viewing").where("until", "<=", now).executeTakeFirst();
  return Number(ended.numDeletedRows) + Number(stale.numDeletedRows);
}
