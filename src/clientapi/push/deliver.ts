import type { App } from "../../app";
import { activeMembers, findConversationById } from "../../domain/chats";
import type { ConversationRow, MessageRow } from "../../domain/chats/table";
import type { NotificationType } from "../../domain/notifications/table";
import type { DomainTxHookPayloads } from "../../domain/hooks";
import { forgetSession, pushTargets, viewersOf, type PushTarget } from "../../domain/push/service";
import { pushSubscribers } from "../../domain/push/subscribers";
import type { PushKind } from "../../domain/push/table";
import { inTransaction } from "../../db/transaction";
import { enqueueJob, PermanentJobError, registerJobHandler, type JsonValue } from "../../jobs/queue";
import { findUserById } from "../../domain/users/service";
import type { UserRow } from "../../domain/users/table";
import { deliverPush, type PushPayload } from "./send";
import { byLanguage, systemMessageIn, textFor, type ServerText } from "../../domain/users/language";
import { fromJson } from "../../domain/chats/validate";

/** A push's body is a glance, not the message: longer text is cut here. */
const BODY_MAX = 160;

const clip = (text: string): string => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > BODY_MAX ? `${flat.slice(0, BODY_MAX - 1)}…` : flat;
};

/** The app's paths a push opens (src/web routes). */
const chatUrl = (c: Pick<ConversationRow, "cuid">) => `/dashboard/messages/${c.cuid}`;
const postUrl = (postCuid: string) => `/posts/${postCuid}`;
const profileUrl = (u: Pick<UserRow, "username">) => `/users/${u.username}`;

/** The kinds of media a glance names; any other is an "Attachment". */
const NAMED_MEDIA = ["photo", "video", "animation", "audio", "voice", "video_note", "sticker", "document"] as const;

/** What a message says in a line, worded with T: its text, else what it carries. */
export function messageGlance(
  t: ServerText,
  m: Pick<MessageRow, "content" | "media" | "extra" | "invoice" | "kind" | "system">,
): string {
  if (m.kind === "system") return clip(systemMessageIn(t, fromJson(m.system), m.content));
  if (m.content.trim()) return clip(m.content);
  if (m.invoice) return t("glance.invoice");
  if (m.media) {
    const type = (JSON.parse(m.media) as Array<{ type?: string }>)[0]?.type;
    const named = NAMED_MEDIA.find((kind) => kind === type);
    return named ? t(`glance.${named}`) : t("glance.attachment");
  }
  if (m.extra) {
    const extra = JSON.parse(m.extra) as Record<string, unknown>;
    if (extra.poll) return t("glance.poll");
    if (extra.location || extra.venue) return t("glance.location");
    if (extra.contact) return t("glance.contact");
    if (extra.dice) return t("glance.dice");
  }
  return t("glance.message");
}

/** The job that works out who is told of a change and what (one per change). */
const PLAN_JOB = "push:plan";
/** The job that delivers one push to one browser (retried on its own). */
const SEND_JOB = "push:send";

/** What a plan job is about: the change, by ids (the job reads the rest when it runs). */
type PushPlan =
  /** the first message of the chat's that the plan stands for */
  | { type: "message"; conversationId: number; messageId: number }
  | { type: "notification"; recipientId: number; notificationId: number }
  | { type: "reaction"; conversationId: number; messageId: number; userId: number; emoji: string }
  | { type: "payment"; paymentId: number }
  | { type: "gift"; senderId: number; recipientId: number; amount: number };

interface PushSend {
  target: PushTarget;
  payload: PushPayload;
}

/** What a push says (all but its kind), worded in one recipient's language. */
type PushWords = (t: ServerText) => Omit<PushPayload, "kind">;

/**
 * Queues one delivery job per subscription of the accounts of RECIPIENTS that want pushes
 * of KIND, leaving out who has CONVERSATIONID on screen; each is told in their own language
 * (WORDS is called once per language).
 */
async function pushTo(
  app: App,
  recipients: readonly number[],
  kind: PushKind,
  words: PushWords,
  conversationId?: number,
): Promise<void> {
  if (recipients.length === 0) return;
  const now = app.clock.now();
  let to = recipients;
  if (conversationId !== undefined) {
    const viewing = await viewersOf(app.db, now, conversationId);
    to = recipients.filter((id) => !viewing.has(id));
  }
  const targets = await pushTargets(app.db, now, to, kind);
  if (targets.size === 0) return;
  const sends: PushSend[] = [];
  for (const [language, userIds] of await byLanguage(app.db, [...targets.keys()])) {
    const payload: PushPayload = { kind, ...words(await textFor(language)) };
    for (const id of userIds) for (const target of targets.get(id)!) sends.push({ target, payload });
  }
  await inTransaction(app.storage, async (scope) => {
    for (const send of sends) await enqueueJob(scope, SEND_JOB, send as unknown as JsonValue);
  });
}

/** The most messages one push of a chat tells of, read newest first. */
const GATHERED_MAX = 100;

/**
 * New messages of a chat from FROMMESSAGEID on: each of its people (not bots) who did not send
 * the newest one and does not have the chat open is told of the newest, with how many came
 * since their own last message there. One plan stands for every message sent while it waits
 * in the queue (its key is the chat), so a burst, or a backlog behind a slow push service,
 * makes one push per chat rather than one per message.
 */
async function pushMessages(app: App, conversationId: number, fromMessageId: number): Promise<void> {
  const [conversation, members, sent] = await Promise.all([
    findConversationById(app.db, conversationId),
    activeMembers(app.db, conversationId),
    app.db
      .selectFrom("messages")
      .selectAll()
      .where("conversation_id", "=", conversationId)
      .where("id", ">=", fromMessageId)
      .where("deleted_at", "is", null)
      .orderBy("id", "desc")
      .limit(GATHERED_MAX)
      .execute(),
  ]);
  // service messages tell of payments (a refund, a payment) or of the chat's members: only the former are pushed
  const pushed = sent.filter((m) => {
    if (m.kind !== "system") return true;
    const action = (JSON.parse(m.system ?? "{}") as { action?: string }).action;
    return action === "payment" || action === "refund";
  });
  const newest = pushed[0];
  if (!conversation || !newest) return;
  const sender = await findUserById(app.db, newest.sender_id);
  if (!sender) return;
  const kind: PushKind = newest.kind === "system" ? "payments" : "messages";
  // recipients by how many messages they have not answered: one payload for each count
  const byCount = new Map<number, number[]>();
  for (const m of members) {
    if (m.is_bot || m.user_id === newest.sender_id) continue;
    const ownLast = pushed.findIndex((x) => x.sender_id === m.user_id);
    const count = ownLast === -1 ? pushed.length : ownLast;
    byCount.set(count, [...(byCount.get(count) ?? []), m.user_id]);
  }
  for (const [count, recipients] of byCount) {
    await pushTo(
      app,
      recipients,
      kind,
      (t) => {
        const chat = conversation.type === "group" ? (conversation.title ?? t("push.group")) : sender.display_name;
        const title =
          count <= 1
            ? chat
            : count >= GATHERED_MAX
              ? t("push.gatheredAtLeast", { title: chat, count: GATHERED_MAX })
              : t("push.gathered", { title: chat, count });
        const glance = messageGlance(t, newest);
        const body = conversation.type === "group" ? `${sender.display_name}: ${glance}` : glance;
        return { title, body, url: chatUrl(conversation) };
      },
      conversation.id,
    );
  }
}

/** Which kind of push each notification is (what it says after the actor's name: `push.<type>`); absent: not pushed. */
const NOTIFICATION_PUSH = {
  mention: "mentions",
  comment: "replies",
  reply: "replies",
  follow: "follows",
  like: "reactions",
  repost: "reactions",
} as const satisfies Partial<Record<NotificationType, PushKind>>;

const isPushedNotification = (type: NotificationType): type is keyof typeof NOTIFICATION_PUSH =>
  Object.hasOwn(NOTIFICATION_PUSH, type);

async function pushNotification(app: App, recipientId: number, notificationId: number): Promise<void> {
  // the one action pushed (its group may have gathered others since): who did it, and to what
  const row = await app.db
    .selectFrom("notifications as n")
    .innerJoin("users as actor", "actor.id", "n.actor_id")
    .leftJoin("posts as p", "p.id", "n.post_id")
    .select(["n.type", "actor.display_name", "actor.username", "actor.deleted_at", "p.cuid as postCuid"])
    .where("n.id", "=", notificationId)
    .where("n.recipient_id", "=", recipientId)
    .executeTakeFirst();
  if (!row || !isPushedNotification(row.type) || row.deleted_at !== null) return;
  const type = row.type;
  const url = row.postCuid ? postUrl(row.postCuid) : profileUrl(row);
  await pushTo(app, [recipientId], NOTIFICATION_PUSH[type], (t) => ({
    title: row.display_name,
    body: t(`push.${type}`),
    url,
  }));
}

async function pushReaction(
  app: App,
  p: { conversationId: number; messageId: number; userId: number; emoji: string },
): Promise<void> {
  const message = await app.db.selectFrom("messages").selectAll().where("id", "=", p.messageId).executeTakeFirst();
  if (!message || message.sender_id === p.userId || message.kind !== "user") return;
  const [conversation, reactor] = await Promise.all([
    findConversationById(app.db, p.conversationId),
    findUserById(app.db, p.userId),
  ]);
  if (!conversation || !reactor) return;
  await pushTo(
    app,
    [message.sender_id],
    "reactions",
    (t) => ({
      title: reactor.display_name,
      body: t("push.reacted", { emoji: p.emoji, glance: messageGlance(t, message) }),
      url: chatUrl(conversation),
    }),
    conversation.id,
  );
}

/** A payment to a bot: its owner hears of it. */
async function pushPaymentToOwner(app: App, paymentId: number): Promise<void> {
  const found = await app.db
    .selectFrom("star_payments as p")
    .innerJoin("bots as b", "b.id", "p.bot_id")
    .innerJoin("users as bu", "bu.id", "p.bot_user_id")
    .innerJoin("users as payer", "payer.id", "p.payer_id")
    .select(["b.owner_id", "p.amount", "bu.username as botUsername", "payer.display_name as payerName"])
    .where("p.id", "=", paymentId)
    .executeTakeFirst();
  if (!found) return;
  await pushTo(app, [found.owner_id], "payments", (t) => ({
    title: t("push.botPaidTitle", { bot: found.botUsername }),
    body: t("push.botPaid", { payer: found.payerName, amount: found.amount }),
    url: "/dashboard/bots",
  }));
}

async function pushGift(app: App, p: { senderId: number; recipientId: number; amount: number }): Promise<void> {
  const sender = await findUserById(app.db, p.senderId);
  if (!sender) return;
  await pushTo(app, [p.recipientId], "payments", (t) => ({
    title: sender.display_name,
    body: t("push.gift", { amount: p.amount }),
    url: "/stars",
  }));
}

/** Carries out a plan job: who is told, and what. */
function planPushes(app: App, plan: PushPlan): Promise<void> {
  switch (plan.type) {
    case "message":
      return pushMessages(app, plan.conversationId, plan.messageId);
    case "notification":
      return pushNotification(app, plan.recipientId, plan.notificationId);
    case "reaction":
      return pushReaction(app, plan);
    case "payment":
      return pushPaymentToOwner(app, plan.paymentId);
    case "gift":
      return pushGift(app, plan);
  }
}

/**
 * Web Push for what people are told about: new messages (bots' too), mentions, replies,
 * follows, reactions and payments, each kind as the person chose. A change whose people may
 * have a subscription (pushSubscribers) queues a plan job, a message's in its own
 * transaction; the plan, run by whichever node claims it, queues one delivery job per
 * browser, each retried with backoff on its own. Nothing of it runs in a request, so a slow
 * push service never slows a send.
 */
export function installPushDelivery(app: App): void {
  const subscribers = pushSubscribers(app);
  const planLater = async (plan: PushPlan) => {
    await inTransaction(app.storage, (scope) => enqueueJob(scope, PLAN_JOB, plan as unknown as JsonValue));
  };
  const reachesSubscribers = ({ message, members }: DomainTxHookPayloads["message:storing"]) =>
    members.some((m) => m.user_id !== message.sender_id && !m.is_bot && subscribers.mayHave(m.user_id));
  app.hooks.within(
    "message:storing",
    (scope, payload) => {
      if (!reachesSubscribers(payload)) return;
      const { conversation, message } = payload;
      const plan: PushPlan = {
        type: "message",
        conversationId: conversation.id,
        messageId: message.id,
      };
      // while a plan for the chat waits in the queue, it stands for this message too
      return enqueueJob(scope, PLAN_JOB, plan as unknown as JsonValue, { key: `message:${conversation.id}` }).then(
        () => undefined,
      );
    },
    reachesSubscribers,
  );
  app.hooks.on("notification:created", ({ recipientId, notificationId }) =>
    subscribers.mayHave(recipientId) ? planLater({ type: "notification", recipientId, notificationId }) : undefined,
  );
  app.hooks.on("message:reacted", (p) => planLater({ type: "reaction", ...p }));
  app.hooks.on("payment:succeeded", ({ paymentId }) => planLater({ type: "payment", paymentId }));
  app.hooks.on("stars:gifted", ({ senderId, recipientId, amount }) =>
    subscribers.mayHave(recipientId) ? planLater({ type: "gift", senderId, recipientId, amount }) : undefined,
  );
  registerJobHandler(app, {
    kind: PLAN_JOB,
    maxAttempts: 3,
    backoffMs: 2_000,
    handle: (payload) => planPushes(app, payload as unknown as PushPlan),
  });
  registerJobHandler(app, {
    kind: SEND_JOB,
    maxAttempts: 6,
    backoffMs: 2_000,
    timeoutMs: 20_000,
    handle: async (payload, ctx) => {
      const { target, payload: push } = payload as unknown as PushSend;
      const outcome = await deliverPush(app, target, push, ctx.signal);
      if (outcome === "retry") throw new Error("the push service did not take the push");
      if (outcome === "refused") throw new PermanentJobError("the push service refused the push");
    },
  });
  // a signed-out device gets nothing more: its subscriptions go with its session
  app.hooks.onEvent((event) => {
    if (event.type !== "session:revoked") return;
    forgetSessionByCuid(app, event.sessionCuid).catch((err) =>
      app.log.warn("push subscriptions of a signed-out session not removed", {
        error: err instanceof Error ? err.message : String(err),
      }),
    );
  });
}

async function forgetSessionByCuid(app: App, sessionCuid: string): Promise<void> {
  const session = await app.db.selectFrom("sessions").select("id").where("cuid", "=", sessionCuid).executeTakeFirst();
  if (session) await forgetSession(app.db, session.id);
}
