import type { App } from "../app";
import type { DomainEventOf, DomainEventType } from "../domain/events";
import type { RealtimeEventName, RealtimeEvents } from "../realtime/events";

/** The realtime event (src/realtime/events.ts) a domain event becomes, named and shaped as the Client API shows it. */
type WireEvent = { [E in RealtimeEventName]: [E, RealtimeEvents[E]] }[RealtimeEventName];

/**
 * Each domain event as persons' clients receive it: one entry per event type (the compiler
 * holds this table to the DomainEvent union), ids shown as cuids.
 */
const toWire: { [T in DomainEventType]: (event: DomainEventOf<T>) => WireEvent } = {
  "chat:changed": ({ conversation: c, memberCount }) => [
    "chat:updated",
    {
      conversationId: c.cuid,
      chat: {
        id: c.cuid,
        type: c.type,
        title: c.title,
        description: c.description,
        photoUrl: c.photo_url,
        memberCount,
      },
    },
  ],
  "message:deleted": (e) => ["message:deleted", { conversationId: e.conversation.cuid, messageId: e.message.cuid }],
  "message:reactions": (e) => [
    "message:reaction",
    { conversationId: e.conversation.cuid, messageId: e.message.cuid, reactions: e.reactions },
  ],
  "chat:read": (e) => [
    "message:read",
    {
      conversationId: e.conversation.cuid,
      userId: e.reader?.cuid ?? "",
      // no message at that position any more: the position itself
      messageId: e.message?.cuid ?? String(e.seq),
    },
  ],
  "chat:typing": (e) => [
    "typing",
    { conversationId: e.conversation.cuid, user: { id: e.user.cuid, username: e.user.username } },
  ],
  "posts:published": (e) => ["feed:new", { postIds: e.posts.map((p) => p.cuid) }],
  "post:deleted": (e) => ["post:deleted", { postId: e.post.cuid }],
  "story:posted": (e) => [
    "story:new",
    { storyId: e.story.cuid, author: { id: e.author.cuid, username: e.author.username } },
  ],
  "stars:balance": (e) => ["stars:balance", { balance: e.balance }],
  "session:revoked": (e) => ["session:revoked", { sessionId: e.sessionCuid }],
};

/**
 * Live delivery of domain events to persons: each becomes its Client API realtime event,
 * published on the App's broker to the accounts concerned (the transports frame it).
 */
export function installRealtimeDelivery(app: App): void {
  app.hooks.onEvent((event) => {
    if (event.to.length === 0) return;
    const [name, data] = (toWire[event.type] as (e: typeof event) => WireEvent)(event);
    app.events.publish(event.to, name, data as never);
  });
}
