import type { App } from "../../app";
import { activeMembers, findConversationById } from "../../domain/chats";
import type { ConversationRow, MessageRow } from "../../domain/chats/table";
import { findNotification, loadNotificationViews } from "../../domain/notifications/service";
import type { NotificationType } from "../../domain/notifications/table";
import { anySubscribed, forgetSession, pushTargets, viewersOf } from "../../domain/push/service";
import type { PushKind } from "../../domain/push/table";
import { findUserById } from "../../domain/users/service";
import type { UserRow } from "../../domain/users/table";
import { deliverPush, pushOutbox, type PushPayload } from "./send";

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

/** Sends PAYLOAD to every subscription of the accounts in TARGETS, each delivery queued and retried on its own. */
function fanOut(app: App, targets: Map<number, Parameters<typeof deliverPush>[1][]>, payload: PushPayload): void {
  const outbox = pushOutbox(app);
  for (const list of targets.values())
    for (const target of list) outbox.schedule(() => deliverPush(app, target, payload));
}

/** Pushes PAYLOAD to the accounts of RECIPIENTS that want its kind, leaving out who has CONVERSATIONID on screen. */
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
  fanOut(app, await pushTargets(app.db, now, to, payload.kind), payload);
}

/** A new message: its chat's people (not the sender, not bots) who do not have the chat open. */
async function pushMessage(app: App, conversationId: number, messageId: number, senderId: number): Promise<void> {
  const members = await activeMembers(app.db, conversationId);
  const recipients = members.filter((m) => m.user_id !== senderId && !m.is_bot).map((m) => m.user_id);
  if (!(await anySubscribed(app.db, recipients))) return;
  const [conversation, message, sender] = await Promise.all([
    findConversationById(app.db, conversationId),
    app.db.selectFrom("messages").selectAll().where("id", "=", messageId).executeTakeFirst(),
    findUserById(app.db, senderId),
  ]);
  if (!conversation || !message || !sender || message.deleted_at !== null) return;
  const action = message.kind === "system" ? (JSON.parse(message.system ?? "{}") as { action?: string }).action : null;
  // service messages tell of payments (a refund, a payment) or of the chat's members: only the former are pushed
  if (message.kind === "system" && action !== "payment" && action !== "refund") return;
  const kind: PushKind = message.kind === "system" ? "payments" : "messages";
  const glance = message.kind === "system" ? clip(message.content) : messageGlance(message);
  const payload: PushPayload =
    conversation.type === "group"
      ? {
          kind,
          title: conversation.title ?? "Group",
          body: `${sender.display_name}: ${glance}`,
          url: chatUrl(conversation),
        }
      : { kind, title: sender.display_name, body: glance, url: chatUrl(conversation) };
  await pushTo(app, recipients, payload, conversation.id);
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
  if (!(await anySubscribed(app.db, [recipientId]))) return;
  const row = await findNotification(app.db, notificationId);
  const what = row && NOTIFICATION_PUSH[row.type];
  if (!row || !what) return;
  const [view] = await loadNotificationViews(app.db, [row]);
  if (!view) return;
  const url = view.postCuid ? postUrl(view.postCuid) : profileUrl(view.actor);
  await pushTo(app, [recipientId], { kind: what.kind, title: view.actor.display_name, body: what.says, url });
}

async function pushReaction(
  app: App,
  p: { conversationId: number; messageId: number; userId: number; emoji: string },
): Promise<void> {
  const message = await app.db.selectFrom("messages").selectAll().where("id", "=", p.messageId).executeTakeFirst();
  if (!message || message.sender_id === p.userId || message.kind !== "user") return;
  if (!(await anySubscribed(app.db, [message.sender_id]))) return;
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

/**
 * Web Push for what people are told about: new messages (bots' too), mentions, replies,
 * follows, reactions and payments, each kind as the person chose. The listeners only queue
 * work (PushOutbox): what to push is worked out after the change was answered, so a send
 * never waits on it, nor on a push service.
 */
export function installPushDelivery(app: App): void {
  const later = (work: () => Promise<void>) => pushOutbox(app).schedule(work);
  app.hooks.on("message:created", ({ conversationId, messageId, senderId }) =>
    later(() => pushMessage(app, conversationId, messageId, senderId)),
  );
  app.hooks.on("notification:created", ({ recipientId, notificationId }) =>
    later(() => pushNotification(app, recipientId, notificationId)),
  );
  app.hooks.on("message:reacted", (p) => later(() => pushReaction(app, p)));
  app.hooks.on("payment:succeeded", ({ paymentId }) => later(() => pushPaymentToOwner(app, paymentId)));
  app.hooks.on("stars:gifted", (p) => later(() => pushGift(app, p)));
  // a signed-out device gets nothing more: its subscriptions go with its session
  app.hooks.onEvent((event) => {
    if (event.type !== "session:revoked") return;
    later(async () => {
      const session = await app.db
        .selectFrom("sessions")
        .select("id")
        .where("cuid", "=", event.sessionCuid)
        .executeTakeFirst();
      if (session) await forgetSession(app.db, session.id);
    });
  });
}
