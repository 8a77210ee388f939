import type { App } from "../../app";
import { activeMemberIds, findConversationById } from "../../domain/chats";
import type { MessageRow } from "../../domain/chats/table";
import type { DomainHookPayloads } from "../../domain/hooks";
import { withPayloadJson } from "../../realtime/broker";
import { freshMessageShape, serializeMessage, type ClientMessage } from "./serialize";

/**
 * The shape each message row was last delivered in. The send endpoint answers with the very
 * object its `message:new` event carried, instead of loading sender and reactions again.
 * Keyed by the row object: it lives as long as that request's row does.
 */
const delivered = new WeakMap<MessageRow, ClientMessage>();

/** The message as its live event showed it, when ROW (the same object) was just delivered. */
export const deliveredShape = (row: MessageRow): ClientMessage | undefined => delivered.get(row);

/** Each shape's JSON text, made once: a send's answer and its live event write the same message. */
const messageJsons = new WeakMap<ClientMessage, string>();

/** JSON.stringify(MESSAGE), made once per shape object (which must not change once shaped). */
export function messageJsonOf(message: ClientMessage): string {
  let json = messageJsons.get(message);
  if (json === undefined) messageJsons.set(message, (json = JSON.stringify(message)));
  return json;
}

/**
 * Live delivery of chat messages: on the domain's `message:live` hook, the message goes to
 * every current member as `message:new` / `message:edited` `{conversationId, message}`, the
 * message shaped exactly as the chat endpoints show it.
 */
export function installChatDelivery(app: App): void {
  const deliver = async ({
    conversationId,
    messageId,
    event,
    conversation: held,
    message: heldRow,
    sender,
    memberIds: heldIds,
  }: DomainHookPayloads["message:live"]) => {
    // a new message's emitter holds all three (no promises to wait for)
    const [conversation, row, memberIds] =
      held && heldRow && heldIds
        ? [held, heldRow, heldIds]
        : await Promise.all([
            held ?? findConversationById(app.db, conversationId),
            heldRow ?? app.db.selectFrom("messages").selectAll().where("id", "=", messageId).executeTakeFirst(),
            heldIds ?? activeMemberIds(app.db, conversationId),
          ]);
    // nobody online or lately so: nobody to show it to, now or on a resume (the sender's answer is shaped by the route)
    if (!conversation || !row || !app.events.wants(memberIds)) return;
    // a message this very send wrote has no reactions yet
    const fresh = event === "message:new" && row === heldRow;
    const message =
      (fresh && sender && freshMessageShape(conversation, row, sender)) ||
      (await serializeMessage(app.db, conversation, row, { fresh, known: sender && [sender] }));
    if (row === heldRow) delivered.set(row, message);
    // the payload's text around the message's, which the send's answer writes too
    const payload = { conversationId: conversation.cuid, message };
    const json = `{"conversationId":${JSON.stringify(conversation.cuid)},"message":${messageJsonOf(message)}}`;
    app.events.publish(memberIds, event, withPayloadJson(payload, json));
  };
  app.hooks.on("message:live", (p) =>
    // a new message's emitter holds the chat, row and members: nobody to show it to, no promise
    p.conversation && p.message && p.memberIds && !app.events.wants(p.memberIds) ? undefined : deliver(p),
  );
}
