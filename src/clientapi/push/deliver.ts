import type { App } from "../../app";
import { activeMembers, findConversationById } from "../../domain/chats";
import type { ConversationRow, MessageRow } from "../../domain/chats/table";
import type { NotificationType } from "../../domain/notifications/table";
import { forgetSession, pushTargets, viewersOf, type PushTarget } from "../../domain/push/service";
import { pushSubscribers } from "../../domain/push/subscribers";
import type { PushKind } from "../../domain/push/table";
import { inTransaction } from "../../db/transaction";
import { enqueueJob, PermanentJobError, registerJobHandler, type JsonValue } from "../../jobs/queue";
import { findUserById } from "../../domain/users/service";
import type { UserRow } from "../../domain/users/table";
import { deliverPush, type PushPayload } from "./send";

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

/** What a message says in a line: its text, else what it carries. */
export function messageGlance(m: Pick<MessageRow, "content" | "media" | "extra" | "invoice">): string {
  if (m.content.trim()) return clip(m.content);
  if (m.invoice) return "Invoice";
  if (m.media) {
    const items = JSON.parse(m.media) as Array<{ type?: string }>;
    const type = items[0]?.type;
    const named: Record<string, string> = {
      photo: "Photo",
      video: "Video",
      animation: "GIF",
      audio: "Audio",
      voice: "Voice message",
      video_note: "Video message",
      sticker: "Sticker",
      document: "File",
    };
    return (type && named[type]) ?? "Attachment";
  }
  if (m.extra) {
    const extra = JSON.parse(m.extra) as Record<string, unknown>;
    if (extra.poll) return "Poll";
    if (extra.location || extra.venue) return "Location";
    if (extra.contact) return "Contact";
    if (extra.dice) return "Dice";
  }
  return "Message";
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

/**
 * Queues one delivery job per subscription of the accounts of RECIPIENTS that want
 * PAYLOAD's kind, leaving out who has CONVERSATIONID on screen.
 */
async function pushTo(
  app: App,
  recipients: readonly number[],
  payload: PushPayload,
  conversationId?: number,
): Promise<void> {
  if (recipients.length === 0) return;
  const now = app.clock.now();
  let to = recipients;
  if (conversationId !== undefined) {
    const viewing = await viewersOf(app.db, now, conversationId);
    to = recipients.filter((id) => !viewing.has(id));
  }
  const targets = [...(await pushTargets(app.db, now, to, payload.kind)).values()].flat();
  if (targets.length === 0) return;
  await inTransaction(app.storage, async (scope) => {
    for (const target of targets)
      await enqueueJob(scope, SEND_JOB, { target, payload } satisfies PushSend as unknown as JsonValue);
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
  const glance = newest.kind === "system" ? clip(newest.content) : messageGlance(newest);
  // recipients by how many messages they have not answered: one payload for each count
  const byCount = new Map<number, number[]>();
  for (const m of members) {
    if (m.is_bot || m.user_id === newest.sender_id) continue;
    const ownLast = pushed.findIndex((x) => x.sender_id === m.user_id);
    const count = ownLast === -1 ? pushed.length : ownLast;
    byCount.set(count, [...(byCount.get(count) ?? []), m.user_id]);
  }
  for (const [count, recipients] of byCount) {
    const more = count > 1 ? ` (${count >= GATHERED_MAX ? `${GATHERED_MAX}+` : count} new messages)` : "";
    const payload: PushPayload =
      conversation.type === "group"
        ? {
            kind,
            title: `${conversation.title ?? "Group"}${more}`,
            body: `${sender.display_name}: ${glance}`,
            url: chatUrl(conversation),
          }
        : { kind, title: `${sender.display_name}${more}`, body: glance, url: chatUrl(conversation) };
    await pushTo(app, recipients, payload, conversation.id);
  }
}

/** Which kind of push each notification is, and what it says after the actor's name; absent: not pushed. */
const NOTIFICATION_PUSH: Partial<Record<NotificationType, { kind: PushKind; says: string }>> = {
  mention: { kind: "mentions", says: "mentioned you" },
  comment: { kind: "replies", says: "commented on your post" },
  reply: { kind: "replies", says: "replied to your comment" },
  follow: { kind: "follows", says: "followed you" },
  like: { kind: "reactions", says: "liked your post" },
  repost: { kind: "reactions", says: "reposted your post" },
};

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
  const what = row && NOTIFICATION_PUSH[row.type];
  if (!row || !what || row.deleted_at !== null) return;
  const url = row.postCuid ? postUrl(row.postCuid) : profileUrl(row);
  await pushTo(app, [recipientId], { kind: what.kind, title: row.display_name, body: what.says, url });
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
  const payload: PushPayload = {
    kind: "reactions",
    title: reactor.display_name,
    body: `reacted ${p.emoji} to your message: ${messageGlance(message)}`,
    url: chatUrl(conversation),
  };
  await pushTo(app, [message.sender_id], payload, conversation.id);
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
  await pushTo(app, [found.owner_id], {
    kind: "payments",
    title: `@${found.botUsername} was paid`,
    body: `${found.payerName} paid ${found.amount} ⭐`,
    url: "/dashboard/bots",
  });
}

async function pushGift(app: App, p: { senderId: number; recipientId: number; amount: number }): Promise<void> {
  const sender = await findUserById(app.db, p.senderId);
  if (!sender) return;
  await pushTo(app, [p.recipientId], {
    kind: "payments",
    title: sender.display_name,
    body: `gave you ${p.amount} ⭐`,
    url: "/stars",
  });
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
  app.hooks.within("message:storing", (scope, { conversation, message, members }) => {
    const reached = members.some((m) => m.user_id !== message.sender_id && !m.is_bot && subscribers.mayHave(m.user_id));
    if (!reached) return;
    const plan: PushPlan = {
      type: "message",
      conversationId: conversation.id,
      messageId: message.id,
    };
    // while a plan for the chat waits in the queue, it stands for this message too
    return enqueueJob(scope, PLAN_JOB, plan as unknown as JsonValue, { key: `message:${conversation.id}` }).then(
      () => undefined,
    );
  });
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
